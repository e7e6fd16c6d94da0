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

tcase t_selftest_destdir "splice-selftest in a --destdir tree runs the installed harness, tools and helpers, and lists only the cases it can run"
t_selftest_destdir() {
  install_tree
  # k_splice01 needs the helper splice-probe; the areas after it need the
  # source tree for all or some of their cases.
  run_status st "$selftest" t_to_pipe k_splice01 fuzz static man t_suite_args > out 2>&1
  [ "$(cat st)" -eq 0 ] || cat out >&2
  status_in 0 st "splice-selftest t_to_pipe k_splice01 fuzz static man t_suite_args"
  mentions out "tools from $PREFIX/bin\$"
  grep -q '^ok [0-9]* t_to_pipe - cat: .*)$' out || { cat out >&2; fail "t_to_pipe did not pass"; }
  grep -q '^ok [0-9]* k_splice01 - kernel: splice01: .*)$' out ||
    { cat out >&2; fail "k_splice01 did not pass: helper not found?"; }
  # The cases that need the source tree are not run, only counted: fuzz's
  # 2, static's 7, 6 of man's, t_suite_args.
  mentions out "^# 16 cases need the source tree (its pages, sources, fuzz corpora), which an installed run has not: not run$"
  ! grep -q "SKIP needs .* from the source tree" out || { cat out >&2; fail "a source case skipped"; }
  grep -q '^ok [0-9]* t_help_width - man: ' out || { cat out >&2; fail "man's installed cases"; }
  tail -n 1 out | grep -q '^[1-9][0-9]* passed, 0 failed' || { cat out >&2; fail "summary"; }
  # --list lists what runs: no case of the source tree's.
  "$selftest" --list static > list || fail "splice-selftest --list static"
  [ ! -s list ] || { cat list >&2; fail "an installed --list lists static's cases"; }
  # Naming only such cases is no failure: none to run, all counted.
  run_status st "$selftest" static > out 2>&1
  status_in 0 st "splice-selftest static, installed"
  mentions out "^# 7 cases need the source tree"
}

tcase t_selftest_strict "splice-selftest --strict: every installed tool runs with --strict"
t_selftest_strict() {
  install_tree
  run_status st "$selftest" --strict t_to_pipe t_to_append > out 2>&1
  status_in 0 st "splice-selftest --strict t_to_pipe t_to_append"
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
  status_in 2 st "splice-selftest --bogus"
  mentions err "unknown option: --bogus"
  mentions err "Try 'splice-selftest --help'"
  [ ! -s out ] || fail "splice-selftest --bogus wrote to stdout"
}

tcase t_selftest_kernel_usage "splice-selftest --kernel: no image, a missing one, one that is no kernel: exit 2"
t_selftest_kernel_usage() {
  install_tree
  run_status st "$selftest" --kernel > out 2> err
  status_in 2 st "splice-selftest --kernel"
  mentions err "^splice-selftest: --kernel needs an image$"
  run_status st "$selftest" --kernel ./none --strict kernel > out 2> err
  status_in 2 st "splice-selftest --kernel ./none"
  mentions err "^splice-selftest: ./none: no such file$"
  echo "not a kernel" > bzImage
  cp bzImage linux-image.deb
  run_status st "$selftest" --kernel bzImage kernel > out 2> err
  status_in 2 st "splice-selftest --kernel bzImage (a text file)"
  mentions err "bzImage: not a bzImage, an arm64 Image or a ppc64el vmlinux (nor a .deb holding one)$"
  run_status st "$selftest" --kernel=linux-image.deb kernel > out 2> err
  status_in 2 st "splice-selftest --kernel=linux-image.deb (a text file)"
  mentions err "linux-image.deb: no boot/vmlinuz-\\* or vmlinux-\\* in the package$"
  [ ! -s out ] || { cat out >&2; fail "wrote to stdout"; }
}

tcase t_installed_areas "the installed harness holds every area script of the source tree"
t_installed_areas() {
  install_tree
  (cd "$TESTS" && ls -- *.sh) > want
  (cd "$harness" && ls -- *.sh) > got || fail "no installed harness"
  same want got
}

tcase t_selftest_operands \
  "splice-selftest and run.sh: an unknown, empty or misspelt name, a bad -j, --timeout or --kernel-timeout, an empty --kernel: exit 2, nothing run"
t_selftest_operands() {
  install_tree
  helpers=$(dirname "$(find "$PWD/root" -name splice-probe)")
  for runner in "$selftest" "sh $harness/run.sh --bindir $PREFIX/bin --helpers $helpers"; do
    name=${runner%% *}
    name=${name##*/}
    [ "$name" = sh ] && name=run.sh
    # One good name beside a misspelt one: nothing runs, the bad one named.
    # splice-selftest hands its words to run.sh, which checks them: run.sh
    # itself takes a few, to show its own name in the message.
    all="'k_splice01 k_splice1O' k_splice1O 'kernel nosuch' '' '-j 0' '-j x' --jobs=x"
    all="$all '--timeout abc' --timeout= '--timeout 0' '--kernel-timeout x'"
    all="$all --kernel-timeout=0 --kernel-timeout="
    [ "$name" = run.sh ] && all="'k_splice01 k_splice1O' '' '-j x' --kernel-timeout="
    eval "set -- $all"
    for args in "$@"; do
      case $args in
      "") set -- k_splice01 "" ;;
      *) set -f; set -- $args; set +f ;;
      esac
      # shellcheck disable=SC2086 # the runner's words
      run_status st $runner "$@" > out 2> err
      status_in 2 st "$name $args"
      grep -q "^ok\|^not ok" out && { cat out >&2; fail "$name $args ran a case"; }
      mentions err "^$name: "
      case $args in
      *k_splice1O*) mentions err "no such area or case: 'k_splice1O'" ;;
      *nosuch*) mentions err "'nosuch'" ;;
      esac
    done
    # --opt=value as --opt value.
    # shellcheck disable=SC2086 # the runner's words
    run_status st $runner --timeout=60 --kernel-timeout=30 -j1 k_splice01 > out 2> err
    status_in 0 st "$name --timeout=60 --kernel-timeout=30 -j1 k_splice01"
    mentions out "^1 passed, 0 failed$"
    mentions out "^# a case that runs 60 s (30 s in the kernel area) is ended, timed out$"
  done
  run_status st "$selftest" --kernel= kernel > out 2> err
  status_in 2 st "splice-selftest --kernel= kernel"
  mentions err "^splice-selftest: --kernel needs an image"
  run_status st "$selftest" --busybox kernel > out 2> err
  status_in 2 st "splice-selftest --busybox kernel"
  mentions err "^splice-selftest: --busybox needs --kernel IMAGE"
  run_status st "$selftest" --kernel "" kernel > out 2> err
  status_in 2 st "splice-selftest --kernel '' kernel"
  mentions err "^splice-selftest: --kernel needs an image"
  [ ! -s out ] || { cat out >&2; fail "an empty --kernel wrote to stdout"; }
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
  status_in 1 st "run.sh leak"
  mentions out "1 passed, 1 failed"
  [ "$(grep -c "left running: *sleep 300" out)" -eq 2 ] || { cat out >&2; fail "not named"; }
  for p in pass fail; do
    pid=$(cat $p.pid)
    state=$(sed 's/.*) \(.\).*/\1/' "/proc/$pid/stat" 2> /dev/null || :)
    case $state in '' | Z | X) ;; *) kill "$pid"; fail "the $p case's sleeper outlived the harness" ;; esac
  done
}

tcase t_harness_timing_cases \
  "tcase --timing: after every shared case, beside each other (-j 4), before the alone ones"
t_harness_timing_cases() {
  mkdir h
  cp "$TESTS/run.sh" "$TESTS/lib.sh" h/
  # Each timing case waits for the other to have started: one at a time,
  # they would time out.  The shared case ends first; the alone one last.
  cat > h/order.sh << EOF
. "\$TESTS/lib.sh"
tcase --alone t_last "runs after the timing ones"
t_last() { [ -e $PWD/t1.end ] && [ -e $PWD/t2.end ]; }
tcase --timing t_t1 "beside t_t2"
t_t1() { [ -e $PWD/shared.end ]; : > $PWD/t1.start; until [ -e $PWD/t2.start ]; do sleep 0.05; done; : > $PWD/t1.end; }
tcase t_shared "sleeps a little"
t_shared() { sleep 0.5; : > $PWD/shared.end; }
tcase --timing t_t2 "beside t_t1"
t_t2() { [ -e $PWD/shared.end ]; : > $PWD/t2.start; until [ -e $PWD/t1.start ]; do sleep 0.05; done; : > $PWD/t2.end; }
run_area "\$@"
EOF
  run_status st timeout 60 env SPLICE_TOOLS_HARNESS_LOCK="$PWD/lock" \
    sh h/run.sh --bindir "$BINDIR" --timeout 5 -j 4 order > out 2>&1
  status_in 0 st "run.sh order"
  # Numbered shared, timing, alone.
  mentions out "^ok 1 t_shared - order: "
  mentions out "^ok 2 t_t1 - order: "
  mentions out "^ok 3 t_t2 - order: "
  mentions out "^ok 4 t_last - order: "
}

tcase --long t_harness_stuck_case \
  "a case that never comes back (its timeout(1) stopped, as one asleep in the kernel): failed, its processes named, the run goes on"
t_harness_stuck_case() {
  mkdir h
  cp "$TESTS/run.sh" "$TESTS/lib.sh" h/
  cat > h/stuck.sh << EOF
. "\$TESTS/lib.sh"
tcase t_stuck "stops its timeout"
t_stuck() { kill -STOP \$PPID; }
tcase t_after "passes"
t_after() { :; }
run_area "\$@"
EOF
  # --grace 1: stuck 2 s past its time, not the default 10.
  run_status st timeout 120 sh h/run.sh --bindir "$BINDIR" --timeout 1 --grace 1 -j 2 stuck \
    > out 2>&1
  [ "$(cat st)" -ne 124 ] || { cat out >&2; fail "the harness waited for ever for a stuck case"; }
  status_in 1 st "run.sh stuck"
  mentions out "^not ok 1 t_stuck - stuck: stops its timeout (stuck)$"
  mentions out "^#   STUCK: still running 2 s after its 1 s timeout$"
  mentions out "^#   STUCK: pid [0-9]* state T in .*timeout"
  mentions out "^ok 2 t_after - stuck: passes"
  # The command that reruns the failed ones, by id.
  mentions out "^# rerun the failed: sh h/run.sh --bindir $BINDIR --timeout 1 t_stuck$"
  mentions out "^1 passed, 1 failed$"
}

# timeout_run WORD: the hang area (a case waiting in a pipe's read for
# ever, one that passes) under h/run.sh --timeout 2, its stdout in
# out.WORD, stderr in err.WORD, its status in st.WORD; with WORD busybox,
# under busybox's sh with its applets first in PATH (its timeout(1) ends
# with 143, not 124), as the --kernel guest runs it.
timeout_run() {
  if [ "$1" = busybox ]; then
    mkdir -p bb
    # Its links, made by busybox itself (an ln an applet cost 300 forks).
    [ -e bb/sh ] || busybox --install -s bb
    set -- busybox env PATH="$PWD/bb:$PATH" busybox sh
  else
    set -- coreutils sh
  fi
  _word=$1
  shift
  run_status "st.$_word" timeout 60 "$@" h/run.sh --bindir "$BINDIR" --timeout 2 -j 2 hang \
    > "out.$_word" 2> "err.$_word"
}

tcase --long t_harness_timeout_case \
  "a case that waits for ever: \"timed out after N s\" and what it waited in, with coreutils' and busybox's timeout; stdout TAP alone, the plan first"
t_harness_timeout_case() {
  mkdir h
  cp "$TESTS/run.sh" "$TESTS/lib.sh" h/
  cat > h/hang.sh << EOF
. "\$TESTS/lib.sh"
tcase t_hang "waits in a pipe's read"
t_hang() { sleep 300 | cat; }
tcase t_after "passes"
t_after() { :; }
run_area "\$@"
EOF
  # The kernel area's own: a case of an area named kernel, its timeout 1 s.
  sed 's/t_hang/k_hang/; s/t_after/k_after/; s/sleep 300 | cat/sleep 300 | cat; echo \$? > $PWD\/late/' h/hang.sh \
    > h/kernel.sh
  ways=coreutils
  command -v busybox > /dev/null && ways="$ways busybox"
  # All at once: each mostly waits out its timeout.
  for way in $ways; do
    timeout_run "$way" &
  done
  run_status st sh h/run.sh --bindir "$BINDIR" --kernel-timeout 1 -j 2 k_hang > out 2>&1 &
  wait
  for way in $ways; do
    out=out.$way
    status 1 "$(cat "st.$way")" "run.sh, a case timed out ($way)"
    mentions "$out" "^not ok 1 t_hang - hang: waits in a pipe's read (timed out after 2 s)$"
    mentions "$out" "^#   TIMEOUT: still running after its 2 s$"
    mentions "$out" "^#   TIMEOUT: pid [0-9]* state S in [a-z_]*pipe_read, system call [0-9]*: cat"
    mentions "$out" "^ok 2 t_after - hang: passes"
    mentions "$out" "^1 passed, 1 failed$"
    grep -q STUCK "$out" && { cat "$out" >&2; fail "$way: the case was not ended by SIGTERM"; }
    # TAP alone: its lines, comments, the plan, and the closing count.
    grep -v -E '^(ok |not ok |#|1\.\.[0-9]+$|[0-9]+ passed, [0-9]+ failed)' "$out" > stray || :
    [ ! -s stray ] || { cat "$out" >&2; fail "$way: not TAP on stdout: $(head -n 1 stray)"; }
    [ "$(grep -v '^#' "$out" | head -n 1)" = 1..2 ] || { cat "$out" >&2; fail "$way: the plan is not first"; }
    [ ! -s "err.$way" ] || { cat "err.$way" >&2; fail "$way: the harness said something on stderr"; }
  done
  mentions out "^# a case that runs 300 s (1 s in the kernel area) is ended, timed out$"
  mentions out "^not ok 1 k_hang - kernel: waits in a pipe's read (timed out after 1 s)$"
  [ ! -e late ] || fail "the case's shell went on after its timeout"
}

tcase t_harness_reader_gone \
  "the harness's reader gone (splice-selftest | head): the runner, its ticker and its cases end, nothing left running"
t_harness_reader_gone() {
  mkdir h
  cp "$TESTS/run.sh" "$TESTS/lib.sh" h/
  cat > h/long.sh << EOF
. "\$TESTS/lib.sh"
tcase t_first "passes once the other runs"
t_first() { while [ ! -s "$PWD/case.pid" ]; do sleep 0.05; done; }
tcase t_wait "waits"
t_wait() { echo \$\$ > "$PWD/case.pid"; sleep 300; }
run_area "\$@"
EOF
  # In a session of its own, so that whatever it leaves can be found.  head
  # takes the plan and the comments; the first result finds no reader.
  setsid sh -c 'sh h/run.sh --bindir "$1" -j 2 long | head -n 5 > first' sh "$BINDIR" \
    < /dev/null 2> err &
  sid=$!
  bg_started
  reap_within "$sid" 60 "the harness, its reader gone"
  no_leftovers "$sid" "the harness, its reader gone"
  [ -s case.pid ] || fail "the waiting case never ran"
  [ "$(head -n 1 first)" = "1..2" ] || fail "the first line: $(head -n 1 first)"
}

tcase --long t_harness_ktap \
  "--ktap: KTAP version 1 a strict checker takes; an area a subtest, a case named by its id alone, the same whether it passes, fails, skips or times out"
t_harness_ktap() {
  mkdir h
  cp "$TESTS/run.sh" "$TESTS/lib.sh" h/
  # Two areas; t_flip fails where FLIP is set, passes elsewhere.
  cat > h/one.sh << EOF
. "\$TESTS/lib.sh"
tcase t_pass "passes"
t_pass() { echo "NOTE: a note"; }
tcase t_flip "fails once told to"
t_flip() { [ -z "\${FLIP:-}" ] || fail "told to"; }
tcase t_skip "skips"
t_skip() { skip "not here"; }
tcase t_hang "waits in a pipe's read"
t_hang() { sleep 300 | cat; }
run_area "\$@"
EOF
  cat > h/two.sh << EOF
. "\$TESTS/lib.sh"
tcase --alone t_alone "passes alone"
t_alone() { :; }
tcase t_shared "passes"
t_shared() { :; }
run_area "\$@"
EOF
  # Both at once: each mostly waits out a timeout.
  run_status st.pass sh h/run.sh --bindir "$BINDIR" --ktap --timeout 1 --grace 1 -j 2 \
    one two > out.pass 2> err.pass &
  run_status st.fail env FLIP=1 sh h/run.sh --bindir "$BINDIR" --ktap --timeout 1 --grace 1 -j 2 \
    one two > out.fail 2> err.fail &
  run_status st.tap env FLIP=1 sh h/run.sh --bindir "$BINDIR" --tap --timeout 1 --grace 1 -j 2 \
    one two > out.tap 2> err.tap &
  wait
  # --tap, meson test's: the same results, flat, each line after the
  # version and the plan a result or a comment.
  status_in 0 st.tap "run.sh --tap, a case failed"
  [ "$(head -n 2 out.tap | tr '\n' ' ')" = "TAP version 13 1..6 " ] ||
    { cat out.tap >&2; fail "--tap: not the version line and the plan first"; }
  sed 1,2d out.tap | grep -v -E '^(ok [0-9]+ |not ok [0-9]+ |#)' > stray || :
  [ ! -s stray ] || fail "--tap: not TAP: $(head -n 1 stray)"
  mentions out.tap "^# one: passes ([0-9]* s)$"
  mentions out.tap "^# a note$"
  mentions out.tap "^ok [0-9] t_skip # SKIP not here$"
  mentions out.tap "^not ok [0-9] t_hang # TIMEOUT 1 seconds$"
  mentions out.tap "^not ok [0-9] t_flip$"
  mentions err.tap "^not ok [0-9] t_flip$"
  sed -n 's/^\(not \)\{0,1\}ok [0-9]* \([a-z_]*\).*/\2/p' out.tap | sort > ids.tap
  for run in pass fail; do
    status_in 1 "st.$run" "run.sh --ktap, a case timed out ($run)"
    [ ! -s "err.$run" ] || { cat "err.$run" >&2; fail "--ktap said something on stderr"; }
    awk -f "$TESTS/ktap-check.awk" "out.$run" > "names.$run" 2> "why.$run" ||
      { cat "out.$run" "why.$run" >&2; fail "--ktap ($run): not KTAP the checker takes"; }
    [ "$(head -n 2 "out.$run" | tr '\n' ' ')" = "KTAP version 1 1..2 " ] ||
      fail "--ktap ($run): not the version line and the plan of areas first"
    mentions "out.$run" "^    # Subtest: one$"
    mentions "out.$run" "^    1\\.\\.4$"
    mentions "out.$run" "^    # passes ([0-9]* s)$"
    mentions "out.$run" "^    # a note$"
    mentions "out.$run" "^    ok 1 t_pass$"
    mentions "out.$run" "^    ok 3 t_skip # SKIP not here$"
    mentions "out.$run" "^    not ok 4 t_hang # TIMEOUT 1 seconds$"
    mentions "out.$run" "^not ok 1 one$"
    # An area's alone case after its shared one, in its own numbering.
    mentions "out.$run" "^    ok 1 t_shared$"
    mentions "out.$run" "^    ok 2 t_alone$"
    mentions "out.$run" "^ok 2 two$"
    mentions "out.$run" "^# Totals: pass:[0-9]* fail:[12] xfail:0 xpass:0 skip:1 error:0$"
    sed 's/^[a-z ]* //' "names.$run" | sed '$d' > "ids.$run"
  done
  mentions out.pass "^    ok 2 t_flip$"
  mentions out.fail "^    not ok 2 t_flip$"
  # The names the fleet keys on: the same whatever the outcome.
  same ids.pass ids.fail
  sed 's,.*/,,' ids.pass | sort > want
  same want ids.tap
  printf '%s\n' one/t_pass one/t_flip one/t_skip one/t_hang two/t_shared two/t_alone > want
  same want ids.pass
  # What a fleet's runner is handed (LAVA's result.txt), by id.
  sh "$TESTS/fleet/ktap-results.sh" out.fail > results ||
    fail "tests/fleet/ktap-results.sh refused the KTAP"
  printf '%s\n' "t_pass pass" "t_flip fail" "t_skip skip" "t_hang fail" "t_shared pass" \
    "t_alone pass" > want
  same want results
  # A kselftest install gets the collection, its settings and its line, once.
  mkdir ksft
  sh "$TESTS/fleet/kselftest-install.sh" --selftest /opt/x/splice-selftest ksft &&
    sh "$TESTS/fleet/kselftest-install.sh" --selftest /opt/x/splice-selftest ksft ||
    fail "tests/fleet/kselftest-install.sh"
  [ "$(cat ksft/kselftest-list.txt)" = splice-tools:splice-selftest.sh ] ||
    fail "kselftest-list.txt: $(cat ksft/kselftest-list.txt)"
  mentions ksft/splice-tools/settings "^timeout=[0-9][0-9]*$"
  [ -x ksft/splice-tools/splice-selftest.sh ] || fail "splice-selftest.sh not executable"
  mentions ksft/splice-tools/splice-selftest.sh '^exec "/opt/x/splice-selftest" --ktap --strict kernel$'
  # The checker is strict: each of these is refused.
  for broken in '2d' 's/^ok 2 two$/ok 3 two/' 's/^    ok 1 t_pass$/  ok 1 t_pass/' \
    's/# SKIP not here/# MAYBE not here/' '/^    ok 1 t_shared$/d' '$a stray' \
    's/^    ok 1 t_pass$/    ok 1/'; do
    sed "$broken" out.pass > broken
    awk -f "$TESTS/ktap-check.awk" broken > /dev/null 2>&1 &&
      { cat broken >&2; fail "the KTAP checker took: sed '$broken'"; }
  done
  :
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
  # setsid(1) in a background job execs in place: $! leads the harness's
  # process group; each case leads one of its own.
  setsid sh h/run.sh --bindir "$BINDIR" hang > out 2>&1 &
  group=$!
  for _i in $(seq 100); do [ -s hang.pid ] && break; sleep 0.05; done
  [ -s hang.pid ] || fail "the case never started"
  pid=$(cat hang.pid)
  [ "$(stat_field "$pid" 3)" != "$group" ] || fail "the case runs in the harness's process group"
  kill -TERM "-$group"
  for _i in $(seq 40); do
    state=$(sed 's/.*) \(.\).*/\1/' "/proc/$pid/stat" 2> /dev/null || :)
    case $state in '' | Z | X) return 0 ;; esac
    sleep 0.05
  done
  kill "$pid"
  fail "the case's sleeper outlived the interrupted harness"
}

# completing NAME WORD...: what bash completion offers for the last WORD of
# the command line NAME WORD... (a word "=" after an option, as bash splits
# "--opt=value"), one a line in "offered"; COMPLETIONS is the installed
# completion directory, FRAMEWORK bash-completion's main script.
completing() {
  _name=$1
  shift
  # What bash-completion's loader does for the first completion of NAME,
  # then the completion of the line as bash would run it.
  PATH=$PREFIX/bin:$PATH bash -c '
    . "$1" || exit 1
    . "$2" || exit 1
    spec=$(complete -p "$3") || exit 1
    func=${spec#*-F }
    func=${func%% *}
    shift 2
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMP_LINE=$(printf "%s " "$@" | sed "s/ = /=/g; s/ $//")
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    prev=
    [ $# -lt 2 ] || prev=${COMP_WORDS[COMP_CWORD - 1]}
    "$func" "$1" "${COMP_WORDS[COMP_CWORD]}" "$prev"
    printf "%s\n" "${COMPREPLY[@]}"' sh "$FRAMEWORK" "$COMPLETIONS/$_name" "$_name" "$@" \
    > offered 2> err || { cat err >&2; fail "$_name: no completion function bound"; }
}

# completion_env: installs the tree and finds the completion files, or skips.
completion_env() {
  install_tree
  need bash
  FRAMEWORK=/usr/share/bash-completion/bash_completion
  [ -f "$FRAMEWORK" ] || skip "bash-completion is not installed"
  COMPLETIONS=$(dirname "$(find root -path '*/bash-completion/completions/splice-cat')")
  [ -d "$COMPLETIONS" ] || fail "no completion installed where bash-completion looks"
}

tcase t_completion "bash completion: each installed tool completes every long option of its --help"
t_completion() {
  completion_env
  n=0
  for tool in "$PREFIX"/bin/*; do
    name=${tool##*/}
    [ -r "$COMPLETIONS/$name" ] || fail "no completion file for $name"
    completing "$name" --
    "$tool" --help | grep -o -- '--[a-z][a-z-]*' | sort -u > want
    sed 's/=$//' offered | sort -u > got
    comm -23 want got > missing
    [ ! -s missing ] || fail "$name: completion does not offer $(tr '\n' ' ' < missing)"
    n=$((n + 1))
  done
  [ "$n" -ge 8 ] || fail "only $n commands installed"
}

# offers WHAT: the words in "offered" are those of "want", in any order.
offers() {
  sort -u offered > got
  sort -u want > want.sorted
  cmp -s want.sorted got || { diff want.sorted got >&2 || :; fail "$1: offers differ"; }
}

# listed_values TOOL ARGS...: the values that TOOL's usage error for ARGS
# lists "(one of a, b, c)" or "(a, b, c)", one a line in "want"; a value
# that takes an argument (fill:BYTE) is offered up to its colon, one whose
# argument is optional (random[:SEED]) bare and with the colon.
listed_values() {
  "$@" < /dev/null > /dev/null 2> err && fail "$*: no usage error"
  sed -n 's/.*(\(one of \)\{0,1\}\([^()]*\))$/\2/p' err | tr -d ' ' | tr ',' '\n' |
    sed 's/^\([a-z-]*\)\[:[A-Z]*\]$/\1\
\1:/; s/^\([a-z-]*\):[A-Z]*$/\1:/' > want
  [ -s want ] || { cat err >&2; fail "$*: no list of values in the message"; }
}

tcase t_completion_values "bash completion of values: patterns, --refill ways, --output-error modes, bench cases, splice-top's pids and groups"
t_completion_values() {
  completion_env
  listed_values "$PREFIX/bin/vmsplice" -p bogus
  for line in "vmsplice -p" "vmsplice --pattern" "vmsplice --pattern =" "vmsplice-touser --verify"; do
    # shellcheck disable=SC2086 # the command's words
    completing $line ""
    offers "$line"
  done
  grep '^r' want > want.r
  mv want.r want
  completing vmsplice -s 1M -p r
  offers "vmsplice -p r"
  listed_values "$PREFIX/bin/vmsplice" --refill bogus
  completing vmsplice --refill ""
  offers "vmsplice --refill"
  listed_values "$PREFIX/bin/splice-tee" --output-error=bogus
  completing splice-tee --output-error = ""
  offers "splice-tee --output-error="
  echo warn-nopipe > want
  completing splice-tee -a --output-error = warn-
  offers "splice-tee --output-error=warn-"
  "$PREFIX/bin/splice-bench" --list | awk '{ print $1 }' > want
  [ "$(wc -l < want)" -ge 10 ] || fail "splice-bench --list: $(wc -l < want) cases"
  for line in "splice-bench -c" "splice-bench --case" "splice-bench -c pipe-rw-64k -c"; do
    # shellcheck disable=SC2086
    completing $line ""
    offers "$line"
  done
  # Options still complete after values, and files after --compare.
  completing vmsplice --refill fresh --pat
  echo --pattern > want
  offers "vmsplice --refill fresh --pat"
  : > some-file
  completing vmsplice-touser --compare some-f
  echo some-file > want
  offers "vmsplice-touser --compare some-f"
  # splice-selftest: its areas and its cases' ids.
  completing splice-selftest "k_splice0"
  grep -qx k_splice01 offered || fail "splice-selftest k_splice0: k_splice01 not offered"
  completing splice-selftest "ker"
  grep -qx kernel offered || fail "splice-selftest ker: the area kernel not offered"
  # splice-top: a pid as its operand, a process group after -g.
  completing splice-top "$$"
  grep -qx "$$" offered || fail "splice-top $$: not offered as a pid"
  completing splice-top -g ""
  grep -qx "$(stat_field $$ 3)" offered || fail "splice-top -g: this shell's group not offered"
}

run_area "$@"
