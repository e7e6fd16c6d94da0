#!/bin/sh
# Bad input for every tool: a size option that is not a size is a usage
# error, exit 2, naming the option; and poll(2), splice(2), write(2) (and
# tee(2), vmsplice(2) where the tool makes them) failing with EINTR or EIO
# at the 1st, 2nd and 3rd call, in every tool.  A tool's other faults (full
# outputs, unreadable inputs, more injected errors) live in its area.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

tcase t_bad_sizes "sizes 0, 1, -1, 1e3, 2^64, 1Q: valid ones work, bad ones exit 2 naming the option"
t_bad_sizes() {
  random_file f 5000
  splice-cat --chunk 1 f > out || fail "--chunk 1"
  same f out
  for bad in 0 -1 1e3 18446744073709551616 1Q '' ' 1' 1KiBB 0x10; do
    run_status st splice-cat --chunk "$bad" f > out 2> err
    status_in 2 st "--chunk '$bad'"
    mentions err "chunk"
    [ ! -s out ] || fail "--chunk '$bad' copied bytes"
  done
  for tool in $TOOLS; do
    for bad in 0 -1 1Q 18446744073709551616 4G; do
      run_status st "$tool" --pipe-size "$bad" < /dev/null > out 2> err
      status_in 2 st "$tool --pipe-size '$bad'"
      mentions err "pipe-size"
    done
  done
  # Every other size option.
  for cmd in "vmsplice -s" "vmsplice-touser -s" "splice-fromnet --chunk" "splice-bench -s"; do
    for bad in -1 1e3 18446744073709551616 1Q; do
      # shellcheck disable=SC2086
      run_status st $cmd "$bad" < /dev/null > out 2> err
      status_in 2 st "$cmd '$bad'"
      mentions err "Try '"
    done
  done
}

# ==== poll, splice, write failing EINTR or EIO, every tool ===================
#
# Each case defines `faulted INJECT-ARGS...`: its tool run once under
# `inject INJECT-ARGS` (strace), its exit status in st, its stderr in err;
# and `faulted_exact`: true when what the run delivered is the whole input.

# fault_matrix WHAT SYSCALL...: a run without faults first, traced: it
# must be exact, and it tells which SYSCALLs the tool makes (one it never
# makes is noted and left out).  Then each SYSCALL fails EINTR and EIO at
# its 1st, 2nd and 3rd call: no hang; EINTR is asked again (exit 0, exact);
# EIO ends the tool, exit 1, the error named, or is got round (exact).
fault_matrix() {
  _fm_what=$1
  shift
  faulted -o calls -t "$(echo "$@" | tr ' ' ,)"
  status_in 0 st "$_fm_what, traced, no fault"
  faulted_exact || fail "$_fm_what, traced, no fault: not the whole input"
  for _fm_sys in "$@"; do
    if ! grep -q -E "^[0-9]+ +$_fm_sys\(" calls; then
      echo "NOTE: $_fm_what makes no $_fm_sys call"
      continue
    fi
    for _fm_err in EINTR EIO; do
      for _fm_when in 1 2 3; do
        _fm_run="$_fm_what, $_fm_sys $_fm_err at call $_fm_when"
        faulted "$_fm_sys:$_fm_err:$_fm_when"
        case $(cat st) in
        0) faulted_exact || fail "$_fm_run: exit 0, not the whole input" ;;
        1)
          [ "$_fm_err" = EIO ] || { cat err >&2; fail "$_fm_run: EINTR is asked again, not an error"; }
          mentions err ": Input/output error$"
          ;;
        124 | 137) fail "$_fm_run: hung (killed by timeout)" ;;
        *) cat err >&2; fail "$_fm_run: exit $(cat st)" ;;
        esac
      done
    done
  done
}

# unix_listener OUT: splice-fromnet -U s in the background, stdout OUT;
# returns once s is a socket.  Sets RPID.
unix_listener() {
  rm -f s
  timeout 20 splice-fromnet -U s > "$1" 2> ferr &
  RPID=$!
  wait_until "splice-fromnet -U s: no socket" test -S s
}

tcase t_faults_cat "splice-cat: poll, splice, write fail EINTR or EIO at the 1st, 2nd, 3rd call: no hang; exact, or exit 1 named"
t_faults_cat() {
  need strace
  seq_ref ref 1048576
  faulted() {
    { cat ref | run_status st inject "$@" timeout 20 splice-cat --chunk 64K 2> err; } | cat > out
  }
  faulted_exact() { cmp -s ref out; }
  fault_matrix splice-cat poll splice write
}

tcase t_faults_tee "splice-tee: poll, splice, tee, write fail EINTR or EIO at the 1st, 2nd, 3rd call: no hang; exact, or exit 1 named"
t_faults_tee() {
  need strace
  seq_ref ref 1048576
  faulted() {
    rm -f copy
    { cat ref | run_status st inject "$@" timeout 20 splice-tee --pipe-size 64K copy 2> err; } |
      cat > out
  }
  faulted_exact() { cmp -s ref out && cmp -s ref copy; }
  fault_matrix splice-tee poll splice tee write
}

tcase t_faults_vmsplice "vmsplice: poll, vmsplice, splice, write fail EINTR or EIO at the 1st, 2nd, 3rd call: no hang; exact, or exit 1 named"
t_faults_vmsplice() {
  need strace
  faulted() {
    { run_status st inject "$@" timeout 20 vmsplice -p seq -s 1M --pipe-size 64K 2> err; } |
      { vmsplice-touser --verify seq -c > n 2> verr; echo $? > vst; }
  }
  faulted_exact() { [ "$(cat vst)" -eq 0 ] && [ "$(cat n)" = 1048576 ]; }
  fault_matrix vmsplice poll vmsplice splice write
}

tcase t_faults_touser "vmsplice-touser: poll, vmsplice, splice, write fail EINTR or EIO at the 1st, 2nd, 3rd call: no hang; exact, or exit 1 named"
t_faults_touser() {
  need strace
  faulted() {
    vmsplice -p seq -s 1M --pipe-size 64K 2> /dev/null |
      { run_status st inject "$@" timeout 20 vmsplice-touser --verify seq -c > n 2> err; }
  }
  faulted_exact() { [ "$(cat n)" = 1048576 ]; }
  fault_matrix vmsplice-touser poll vmsplice splice write
}

tcase t_faults_tonet "splice-tonet: poll, splice, write fail EINTR or EIO at the 1st, 2nd, 3rd call: no hang; exact, or exit 1 named"
t_faults_tonet() {
  need strace
  seq_ref ref 1048576
  faulted() {
    unix_listener out
    { cat ref | run_status st inject "$@" timeout 20 splice-tonet -U s > reply 2> err; }
    reap "$RPID" "splice-fromnet -U s, the receiver"
  }
  faulted_exact() { cmp -s ref out; }
  fault_matrix splice-tonet poll splice write
}

tcase t_faults_fromnet "splice-fromnet: poll, splice, write fail EINTR or EIO at the 1st, 2nd, 3rd call: no hang; exact, or exit 1 named"
t_faults_fromnet() {
  need strace
  seq_ref ref 1048576
  faulted() {
    rm -f s
    inject "$@" timeout 20 splice-fromnet -U s > out 2> err &
    _fpid=$!
    wait_until "splice-fromnet -U s: no socket and no end" \
      sh -c 'test -S s || ! kill -0 "$1" 2> /dev/null' sh "$_fpid"
    if [ -S s ]; then
      timeout 20 splice-tonet -U s < ref > /dev/null 2> serr || :
    fi
    run_status st wait "$_fpid"
  }
  faulted_exact() { cmp -s ref out; }
  fault_matrix splice-fromnet poll splice write
}

tcase t_faults_bench "splice-bench: poll, splice, vmsplice, tee, write fail EINTR or EIO at the 1st, 2nd, 3rd call: no hang; exact, or exit 1 named"
t_faults_bench() {
  need strace
  faulted() {
    run_status st inject "$@" timeout 20 splice-bench -t 0.01 -s 64K -c tcp-vmsplice-pipe -c tee-tee \
      > out 2> err
  }
  # Both cases' rows, each verified.
  faulted_exact() { [ "$(grep -c -E '^(tcp-vmsplice-pipe|tee-tee) .* yes ' out)" -eq 2 ]; }
  fault_matrix splice-bench poll splice vmsplice tee write
}

tcase t_dd_sizes "sizes as dd writes them: 256x4K, 1b (512), 2w, products of units; 0x10 and a lone x refused"
t_dd_sizes() {
  [ "$(vmsplice -s 256x4K | wc -c)" = 1048576 ] || fail "vmsplice -s 256x4K"
  [ "$(vmsplice -s 3b | wc -c)" = 1536 ] || fail "vmsplice -s 3b"
  [ "$(vmsplice -s 2x3x1b | wc -c)" = 3072 ] || fail "vmsplice -s 2x3x1b"
  [ "$(vmsplice -s 5w | wc -c)" = 10 ] || fail "vmsplice -s 5w"
  random_file f 10000
  [ "$(splice-cat --count 2x1K f | wc -c)" = 2048 ] || fail "splice-cat --count 2x1K"
  [ "$(splice-cat --skip 19b f | wc -c)" = $((10000 - 9728)) ] || fail "splice-cat --skip 19b"
  # dd reads them alike.
  [ "$(dd if=f bs=2x1K count=1 2> /dev/null | wc -c)" = 2048 ] || fail "dd bs=2x1K"
  for bad in 0x10 x4K 4Kx 1x 1Ex1E 1bB 2xx2; do
    run_status st vmsplice -s "$bad" > out 2> err
    status_in 2 st "vmsplice -s $bad"
    mentions err "^vmsplice: --size: invalid size\|^vmsplice: --size: size too large"
    [ ! -s out ] || fail "vmsplice -s $bad wrote"
  done
}

run_area "$@"
