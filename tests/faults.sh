#!/bin/sh
# Faults and bad input: whatever goes wrong, every tool writes the same bytes
# or says clearly that it could not, with a failing exit status; never a
# silent short output.  strace injects syscall errors where it is installed.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

tcase t_eintr_splice "EINTR injected into the 3rd splice: retried, byte-exact"
t_eintr_splice() {
  need strace
  random_file f 5000000
  run_status st inject splice:EINTR:3 splice-cat --chunk 64K f | cat > out
  status 0 "$(cat st)" "splice-cat under EINTR"
  same f out
  cat f | inject splice:EINTR:3 splice-cat --chunk 64K > out2 || fail "pipe to file under EINTR"
  same f out2
}

tcase t_eagain_splice "EAGAIN injected into the 3rd splice: waited out with poll, byte-exact"
t_eagain_splice() {
  need strace
  random_file f 5000000
  run_status st inject splice:EAGAIN:3 splice-cat --chunk 64K f | cat > out
  status 0 "$(cat st)" "splice-cat under EAGAIN"
  same f out
}

tcase t_einval_first_splice "EINVAL injected into the 1st splice: read/write fallback, byte-exact"
t_einval_first_splice() {
  needs_fallback
  need strace
  random_file f 5000000
  run_status st inject splice:EINVAL:1 splice-cat f | cat > out
  status 0 "$(cat st)" "splice-cat under EINVAL"
  same f out
}

tcase t_einval_mid_splice "EINVAL after bytes moved: an error, not a fallback, exit 1, not silence"
t_einval_mid_splice() {
  need strace
  random_file f 5000000
  # file -> pipe: a pipe fails only by losing its reader, so the file is named.
  run_status st inject splice:EINVAL:3 splice-cat --chunk 64K f 2> err |
    cat > out
  status 1 "$(cat st)" "splice-cat with EINVAL mid-stream"
  mentions err "splice-cat: f: Invalid argument"
  [ "$(wc -c < out)" -lt 5000000 ] || fail "all bytes arrived, yet an error was injected"
  # pipe -> pipe: either could have failed; both are named.
  { cat f | run_status st inject splice:EINVAL:3 splice-cat --chunk 64K 2> err2; } | cat > out2
  status 1 "$(cat st)" "pipe to pipe with EINVAL mid-stream"
  mentions err2 "standard input -> standard output: splice: Invalid argument"
}

tcase t_eio_input "EIO from the input mid-stream: reported against the input, exit 1"
t_eio_input() {
  need strace
  random_file f 5000000
  random_file g 1000
  run_status st inject splice:EIO:3 splice-cat --chunk 64K f g 2> err |
    cat > out
  status 1 "$(cat st)" "splice-cat with EIO from f"
  mentions err "splice-cat: f: Input/output error"
  # The next operand is still copied, as cat does after a read error.
  tail -c 1000 out > last
  same g last
}

tcase t_enospc_output "ENOSPC from the output (file) mid-stream: reported against the output"
t_enospc_output() {
  need strace
  random_file f 5000000
  cat f | inject splice:ENOSPC:3 splice-cat --chunk 64K > out 2> err && fail "exit 0 after ENOSPC"
  mentions err "splice-cat: write error: No space left on device"
}

tcase t_tmpfs_full "a 64 KiB tmpfs filling up mid-copy: ENOSPC, exit 1"
t_tmpfs_full() {
  mkdir mnt
  mount -t tmpfs -o size=64k tmpfs mnt 2> /dev/null || skip "cannot mount a tmpfs here"
  random_file f 1000000
  run_status st splice-cat f > mnt/out 2> err
  run_status st2 sh -c 'cat f | splice-cat > mnt/out2' 2> err2
  umount mnt
  status 1 "$(cat st)" "file -> full tmpfs"
  mentions err "No space left on device"
  status 1 "$(cat st2)" "pipe -> full tmpfs"
  mentions err2 "No space left on device"
}

tcase t_sigterm "SIGTERM or SIGINT mid-transfer: the tool dies by that signal, not exit 0"
t_sigterm() {
  mkfifo fifo
  for sig in TERM INT; do
    { sleep 30 > fifo & } 2> /dev/null
    writer=$!
    # In the foreground, so SIGINT is not ignored as in a background job.
    run_status st timeout --preserve-status -s "$sig" 0.5 splice-cat fifo > out
    kill "$writer" 2> /dev/null || :
    expected=143
    [ "$sig" = TERM ] || expected=130
    status "$expected" "$(cat st)" "splice-cat after SIG$sig"
  done
}

tcase t_fifo_no_writer "a FIFO with no writer yet: waits, then copies every byte"
t_fifo_no_writer() {
  random_file f 300000
  mkfifo fifo
  splice-cat fifo > out &
  pid=$!
  # It waits in open(2) for a writer.
  wait_until "splice-cat never waited for a writer" sleeping "$pid"
  cat f > fifo
  wait "$pid" || fail "splice-cat fifo"
  same f out
}

tcase t_unreadable "an unreadable file: permission error, the others copied, exit 1"
t_unreadable() {
  random_file a 1000
  random_file b 2000
  random_file secret 100
  chmod 000 secret
  if [ "$(id -u)" -eq 0 ]; then
    need setpriv
    chmod 755 .
    chmod 644 a b
    run_status st setpriv --reuid=nobody --regid=nogroup --clear-groups \
      "$(command -v splice-cat)" a secret b > out 2> err
  else
    run_status st splice-cat a secret b > out 2> err
  fi
  status 1 "$(cat st)" "splice-cat a secret b"
  mentions err "secret: Permission denied"
  cat a b > ref
  same ref out
}

tcase t_pty_eof "input from a pty ending at one ^D: the line, then EOF (script(1))"
t_pty_eof() {
  need script
  printf 'hello pty\n\004' > keys
  # script(1) runs splice-cat on a pty; the keys are typed into it.
  # script(1) ends when its stdin does: the keys' sender waits for the line.
  { cat keys; wait_until "the line never came" nonempty out; } |
    timeout 20 script -qec "splice-cat > out" /dev/null > /dev/null ||
    fail "splice-cat on a pty did not end at ^D"
  printf 'hello pty\n' > ref
  same ref out
}

tcase t_big_count "over 4 GiB: -v counts every byte in 64 bits"
t_big_count() {
  truncate -s 4294967297 big
  splice-cat --verbose big 2> err | splice-cat --verbose > /dev/null 2> err2
  mentions err ": 4294967297 bytes"
  mentions err2 ": 4294967297 bytes"
}

tcase t_bad_sizes "sizes 0, 1, -1, 1e3, 2^64, 1Q: valid ones work, bad ones exit 2 naming the option"
t_bad_sizes() {
  random_file f 5000
  splice-cat --chunk 1 f > out || fail "--chunk 1"
  same f out
  for bad in 0 -1 1e3 18446744073709551616 1Q '' ' 1' 1KiBB 0x10; do
    run_status st splice-cat --chunk "$bad" f > out 2> err
    status 2 "$(cat st)" "--chunk '$bad'"
    mentions err "chunk"
    [ ! -s out ] || fail "--chunk '$bad' copied bytes"
  done
  for tool in $TOOLS; do
    for bad in 0 -1 1Q 18446744073709551616 4G; do
      run_status st "$tool" --pipe-size "$bad" < /dev/null > out 2> err
      status 2 "$(cat st)" "$tool --pipe-size '$bad'"
      mentions err "pipe-size"
    done
  done
  # Every other size option.
  for cmd in "vmsplice -s" "vmsplice-touser -s" "splice-fromnet --chunk" "splice-bench -s"; do
    for bad in -1 1e3 18446744073709551616 1Q; do
      # shellcheck disable=SC2086
      run_status st $cmd "$bad" < /dev/null > out 2> err
      status 2 "$(cat st)" "$cmd '$bad'"
      mentions err "Try '"
    done
  done
}

# ---- the other tools: tee(2), vmsplice(2), and the network paths ----------

# seq_count FILE: what `vmsplice-touser --verify seq -c` printed must be 8 MiB.
seq_count() {
  [ "$(cat "$1")" = 8388608 ] || fail "verified $(cat "$1") bytes, expected 8388608"
}

tcase t_vmsplice_eintr_eagain "vmsplice and vmsplice-touser: EINTR and EAGAIN in the 3rd vmsplice: exact"
t_vmsplice_eintr_eagain() {
  need strace
  for err in EINTR EAGAIN; do
    run_status st inject "vmsplice:$err:3" vmsplice -p seq -s 8M |
      vmsplice-touser --verify seq -c > n || fail "verify after $err in vmsplice"
    status 0 "$(cat st)" "vmsplice with $err"
    seq_count n
    vmsplice -p seq -s 8M | inject "vmsplice:$err:3" vmsplice-touser --chunk 64K --verify seq -c > n ||
      fail "vmsplice-touser with $err"
    seq_count n
  done
}

tcase t_vmsplice_refused "vmsplice: ENOSYS or EINVAL from vmsplice(2): a clear error, exit 1"
t_vmsplice_refused() {
  need strace
  for err in ENOSYS EINVAL; do
    for when in 1 3; do
      run_status st inject "vmsplice:$err:$when" vmsplice -p seq -s 8M 2> err | cat > out
      status 1 "$(cat st)" "vmsplice with $err in call $when"
      mentions err "vmsplice: standard output: vmsplice: "
      [ "$(wc -c < out)" -lt 8388608 ] || fail "every byte arrived, yet vmsplice failed"
    done
  done
}

tcase t_touser_refused "vmsplice-touser: ENOSYS from vmsplice(2): a clear error, exit 1, not a short pass"
t_touser_refused() {
  need strace
  vmsplice -p seq -s 8M |
    run_status st inject vmsplice:ENOSYS:3 vmsplice-touser --chunk 64K --verify seq -c > n 2> err
  status 1 "$(cat st)" "vmsplice-touser with ENOSYS"
  mentions err "vmsplice-touser: standard input: Function not implemented"
}

tcase t_tee_eintr_eagain "splice-tee: EINTR and EAGAIN in the 3rd tee and splice: every output exact"
t_tee_eintr_eagain() {
  need strace
  random_file in 6000000
  for sys in tee splice; do
    for err in EINTR EAGAIN; do
      { cat in | run_status st inject "$sys:$err:3" splice-tee f1 f2; } |
        cat > out
      status 0 "$(cat st)" "splice-tee with $err in $sys"
      same in out
      same in f1
      same in f2
    done
  done
}

tcase t_tee_einval_mid "splice-tee: EINVAL from tee(2) after bytes moved: an error, exit 1"
t_tee_einval_mid() {
  need strace
  random_file in 6000000
  { cat in | run_status st inject tee:EINVAL:3 splice-tee f1 2> err; } |
    cat > out
  status 1 "$(cat st)" "splice-tee with EINVAL mid-stream"
  mentions err "splice-tee: tee: Invalid argument"
}

tcase t_net_eintr "splice-tonet and splice-fromnet: EINTR in the 3rd splice: exact"
t_net_eintr() {
  need strace
  random_file in 6000000
  inject splice:EINTR:3 splice-fromnet -b 127.0.0.1 0 2> ferr | cat > out &
  rpid=$!
  port=$(listen_port ferr "$rpid")
  cat in | inject splice:EINTR:3 splice-tonet 127.0.0.1 "$port" || fail "splice-tonet"
  wait "$rpid" || fail "splice-fromnet"
  same in out
}

run_area "$@"
