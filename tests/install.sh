#!/bin/sh
# Installing: `meson install --destdir` of the build puts the tools, their
# bash completion and the harness (as splice-selftest, with its helpers) in
# a tree that needs no source.  Skipped when the harness itself runs
# installed: there is no build to install then.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

# install_tree: installs the build in BINDIR under ./root; sets PREFIX to
# the installed prefix inside it (root/usr/local, say), selftest and harness
# to where splice-selftest and run.sh went.
install_tree() {
  [ -d "$BINDIR/meson-info" ] || skip "$BINDIR is not a meson build directory"
  need meson
  meson install -C "$BINDIR" --no-rebuild --quiet --destdir "$PWD/root" > log 2>&1 ||
    { cat log >&2; fail "meson install --destdir"; }
  selftest=$(find "$PWD/root" -path '*/bin/splice-selftest')
  [ -x "$selftest" ] || fail "no executable bin/splice-selftest installed"
  PREFIX=${selftest%/bin/splice-selftest}
  harness=$(dirname "$(find "$PWD/root" -path '*/splice-tools/tests/run.sh')")
}

tcase t_selftest_destdir "splice-selftest in a --destdir tree runs the installed harness, tools and helpers"
t_selftest_destdir() {
  install_tree
  # k_splice01 needs the helper splice-probe; the areas after it need the
  # source tree for all or some of their cases.
  run_status st "$selftest" t_to_pipe k_splice01 fuzz static man t_suite_args > out 2>&1
  status 0 "$(cat st)" "splice-selftest t_to_pipe k_splice01 fuzz static man t_suite_args"
  mentions out "tools from $PREFIX/bin\$"
  grep -q '^ok [0-9]* - cat: .*)$' out || { cat out >&2; fail "t_to_pipe did not pass"; }
  grep -q '^ok [0-9]* - kernel: splice01: .*)$' out ||
    { cat out >&2; fail "k_splice01 did not pass: helper not found?"; }
  for area in fuzz static man bench; do
    grep -q "^ok [0-9]* - $area: .* # SKIP needs .* from the source tree" out ||
      { cat out >&2; fail "$area: no case skipped for want of the source tree"; }
  done
  tail -n 1 out | grep -q '^[1-9][0-9]* passed, 0 failed, [1-9][0-9]* skipped$' ||
    { cat out >&2; fail "summary"; }
}

tcase t_selftest_strict "splice-selftest --strict: every installed tool runs with --strict"
t_selftest_strict() {
  install_tree
  run_status st "$selftest" --strict t_to_pipe t_to_append > out 2>&1
  status 0 "$(cat st)" "splice-selftest --strict t_to_pipe t_to_append"
  mentions out "^# strict mode"
  # t_to_append exists to test a fallback: strict mode skips it.
  mentions out "t_to_append\|O_APPEND.*# SKIP .*--strict forbids"
  [ "$(tail -n 1 out)" = "1 passed, 0 failed, 1 skipped" ] || { cat out >&2; fail "summary"; }
}

tcase t_selftest_usage "splice-selftest: --version, --help; a bad option exits 2 naming it"
t_selftest_usage() {
  install_tree
  "$selftest" --version > out || fail "--version"
  grep -qx "splice-selftest (splice-tools) $(splice-cat --version | sed 's/.* //')" out ||
    fail "version: $(cat out)"
  "$selftest" --help > out || fail "--help"
  mentions out "Usage: splice-selftest"
  run_status st "$selftest" --bogus > out 2> err
  status 2 "$(cat st)" "splice-selftest --bogus"
  mentions err "unknown option: --bogus"
  mentions err "Try 'splice-selftest --help'"
  [ ! -s out ] || fail "splice-selftest --bogus wrote to stdout"
}

tcase t_selftest_kernel_usage "splice-selftest --kernel: no image, a missing one, one that is no kernel: exit 2"
t_selftest_kernel_usage() {
  install_tree
  run_status st "$selftest" --kernel > out 2> err
  status 2 "$(cat st)" "splice-selftest --kernel"
  mentions err "^splice-selftest: --kernel needs an image$"
  run_status st "$selftest" --kernel ./none --strict kernel > out 2> err
  status 2 "$(cat st)" "splice-selftest --kernel ./none"
  mentions err "^splice-selftest: ./none: no such file$"
  echo "not a kernel" > bzImage
  cp bzImage linux-image.deb
  run_status st "$selftest" --kernel bzImage kernel > out 2> err
  status 2 "$(cat st)" "splice-selftest --kernel bzImage (a text file)"
  mentions err "bzImage: not a bzImage (nor a .deb holding one)$"
  run_status st "$selftest" --kernel=linux-image.deb kernel > out 2> err
  status 2 "$(cat st)" "splice-selftest --kernel=linux-image.deb (a text file)"
  mentions err "linux-image.deb: no boot/vmlinuz-\\* in the package$"
  [ ! -s out ] || { cat out >&2; fail "wrote to stdout"; }
}

tcase t_installed_areas "the installed harness holds every area script of the source tree"
t_installed_areas() {
  install_tree
  (cd "$TESTS" && ls -- *.sh) > want
  (cd "$harness" && ls -- *.sh) > got || fail "no installed harness"
  same want got
}

tcase t_harness_ends_leftovers "the harness ends what a case leaves running, passing or failing, and names it"
t_harness_ends_leftovers() {
  # A copy of the harness with one area of two cases that leave a sleeper.
  mkdir h
  cp "$TESTS/run.sh" "$TESTS/lib.sh" h/
  cat > h/leak.sh << EOF
. "\$TESTS/lib.sh"
tcase t_pass "passes"
t_pass() { sleep 300 & echo \$! > $PWD/pass.pid; }
tcase t_fail "fails"
t_fail() { sleep 300 & echo \$! > $PWD/fail.pid; fail "on purpose"; }
run_area "\$@"
EOF
  run_status st sh h/run.sh --bindir "$BINDIR" leak > out 2>&1
  status 1 "$(cat st)" "run.sh leak"
  mentions out "1 passed, 1 failed"
  [ "$(grep -c "left running: *sleep 300" out)" -eq 2 ] || { cat out >&2; fail "not named"; }
  for p in pass fail; do
    pid=$(cat $p.pid)
    state=$(sed 's/.*) \(.\).*/\1/' "/proc/$pid/stat" 2> /dev/null || :)
    case $state in '' | Z | X) ;; *) kill "$pid"; fail "the $p case's sleeper outlived the harness" ;; esac
  done
}

tcase t_harness_interrupted "a harness ended by SIGTERM to its process group ends the case that runs"
t_harness_interrupted() {
  need setsid
  mkdir h
  cp "$TESTS/run.sh" "$TESTS/lib.sh" h/
  cat > h/hang.sh << EOF
. "\$TESTS/lib.sh"
tcase t_hang "hangs"
t_hang() { sleep 300 & echo \$! > $PWD/hang.pid; sleep 300; }
run_area "\$@"
EOF
  setsid sh h/run.sh --bindir "$BINDIR" hang > out 2>&1 &
  for _i in $(seq 100); do [ -s hang.pid ] && break; sleep 0.05; done
  [ -s hang.pid ] || fail "the case never started"
  pid=$(cat hang.pid)
  # The harness leads its session's process group; the case, one of its own.
  group=$(ps -o pgid= -p "$(ps -o sid= -p "$pid" | tr -d ' ')" | tr -d ' ')
  kill -TERM "-$group"
  for _i in $(seq 40); do
    state=$(sed 's/.*) \(.\).*/\1/' "/proc/$pid/stat" 2> /dev/null || :)
    case $state in '' | Z | X) return 0 ;; esac
    sleep 0.05
  done
  kill "$pid"
  fail "the case's sleeper outlived the interrupted harness"
}

tcase t_completion "bash completion: each installed tool completes every long option of its --help"
t_completion() {
  install_tree
  need bash
  framework=/usr/share/bash-completion/bash_completion
  [ -f "$framework" ] || skip "bash-completion is not installed"
  dir=$(dirname "$(find root -path '*/bash-completion/completions/splice-cat')")
  [ -d "$dir" ] || fail "no completion installed where bash-completion looks"
  n=0
  for tool in "$PREFIX"/bin/*; do
    name=${tool##*/}
    [ -r "$dir/$name" ] || fail "no completion file for $name"
    # What bash-completion's loader does for the first completion of $name,
    # then the completion of "$name --" as bash would run it.
    PATH=$PREFIX/bin:$PATH bash -c '
      . "$1" || exit 1
      . "$2" || exit 1
      spec=$(complete -p "$3") || exit 1
      func=${spec#*-F }
      func=${func%% *}
      COMP_WORDS=("$3" --)
      COMP_CWORD=1
      COMP_LINE="$3 --"
      COMP_POINT=${#COMP_LINE}
      COMPREPLY=()
      "$func" "$3" -- "$3"
      printf "%s\n" "${COMPREPLY[@]}"' sh "$framework" "$dir/$name" "$name" > offered 2> err ||
      { cat err >&2; fail "$name: no completion function bound"; }
    "$tool" --help | grep -o -- '--[a-z][a-z-]*' | sort -u > want
    sed 's/=$//' offered | sort -u > got
    comm -23 want got > missing
    [ ! -s missing ] || fail "$name: completion does not offer $(tr '\n' ' ' < missing)"
    n=$((n + 1))
  done
  [ "$n" -ge 8 ] || fail "only $n commands installed"
}

run_area "$@"
