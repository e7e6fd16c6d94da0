#!/bin/sh
# Bad input for every tool: a size option that is not a size is a usage
# error, exit 2, naming the option.  A tool's own faults (syscall errors
# strace injects, full outputs, unreadable inputs) live in its area.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

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

run_area "$@"
