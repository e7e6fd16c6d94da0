#!/bin/sh
# splice-cat: cat(1) on splice(2).  Every case checks bytes and exit status;
# where coreutils cat can run the same command, it is the reference.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

SIZES="0 1 4095 4096 4097 10485760"

make_inputs() {
  for n in $SIZES; do
    random_file "in.$n" "$n"
  done
}

tcase t_to_pipe "file -> stdout a pipe, 0 B to 10 MiB, byte-exact"
t_to_pipe() {
  make_inputs
  for n in $SIZES; do
    run_status st splice-cat "in.$n" | cat > "out.$n"
    status 0 "$(cat st)" "splice-cat in.$n | cat"
    same "in.$n" "out.$n"
  done
}

tcase t_to_file "file -> stdout a regular file (copy_file_range), byte-exact"
t_to_file() {
  make_inputs
  for n in $SIZES; do
    splice-cat "in.$n" > "out.$n" || fail "splice-cat in.$n > out.$n"
    same "in.$n" "out.$n"
  done
}

tcase t_to_append "file -> O_APPEND stdout (>>): same bytes as cat, after what was there"
t_to_append() {
  needs_fallback
  make_inputs
  for n in $SIZES; do
    echo prefix > "out.$n"
    echo prefix > "ref.$n"
    splice-cat "in.$n" >> "out.$n" || fail "splice-cat in.$n >> out.$n"
    cat "in.$n" >> "ref.$n"
    same "ref.$n" "out.$n"
  done
}

tcase t_to_devnull "file -> /dev/null: exit 0, -v counts every byte"
t_to_devnull() {
  make_inputs
  for n in $SIZES; do
    splice-cat -v "in.$n" > /dev/null 2> err || { cat err >&2; fail "splice-cat in.$n > /dev/null"; }
    [ "$n" -eq 0 ] || mentions err ": $n bytes"
  done
}

tcase t_pipe_to_file "stdin a pipe -> regular file and -> pipe, byte-exact"
t_pipe_to_file() {
  make_inputs
  for n in $SIZES; do
    cat "in.$n" | splice-cat > "out.$n" || fail "cat | splice-cat > file"
    same "in.$n" "out.$n"
    cat "in.$n" | splice-cat | splice-cat | cat > "out2.$n"
    same "in.$n" "out2.$n"
  done
}

tcase t_file_to_file_pipe "file -> file through the internal pipe when copy_file_range is refused"
t_file_to_file_pipe() {
  need strace
  random_file in 3000000
  inject -o trace copy_file_range:EXDEV splice-cat -v in > out 2> err ||
    { cat err >&2; fail "splice-cat exit"; }
  same in out
  mentions err "splice via pipe: 3000000 bytes"
  grep -q 'splice(' trace || fail "no splice call in the trace"
}

tcase t_sparse_5g "5 GiB sparse file | wc -c: every byte, 64-bit totals"
t_sparse_5g() {
  truncate -s 5G sparse
  n=$(run_status st splice-cat sparse | wc -c)
  status 0 "$(cat st)" "splice-cat sparse"
  [ "$n" -eq 5368709120 ] || fail "wc -c says $n, expected 5368709120"
}

tcase t_stdin_operands "'splice-cat - f -': stdin read once, never reopened (same as cat)"
t_stdin_operands() {
  random_file f 5000
  random_file s 7000
  splice-cat - f - < s > out || fail "stdin a file"
  cat - f - < s > ref
  same ref out
  cat s | splice-cat - f - > out2 || fail "stdin a pipe"
  same ref out2
  # Between two "-", stdin is where the first left it: cat reads nothing more.
  { head -c 100 s; sleep 1; tail -c +101 s; } | splice-cat - f > out3
  cat s f > ref3
  same ref3 out3
}

tcase t_missing_operand "a missing operand between two good ones: reported, the rest copied, exit 1"
t_missing_operand() {
  random_file a 4097
  random_file b 10000
  run_status st splice-cat a missing b > out 2> err
  status 1 "$(cat st)" "splice-cat a missing b"
  mentions err "splice-cat: missing: No such file or directory"
  cat a b > ref
  same ref out
  run_status refst cat a missing b > /dev/null 2>&1
  status "$(cat refst)" "$(cat st)" "status differs from cat's"
}

tcase t_directory_operand "a directory operand: reported, the next file still copied, exit 1"
t_directory_operand() {
  mkdir d
  random_file b 10000
  run_status st splice-cat d b > out 2> err
  status 1 "$(cat st)" "splice-cat d b"
  mentions err "splice-cat: d"
  same b out
}

tcase t_input_is_output "input file is output file: refused, file untouched, exit 1 (as cat)"
t_input_is_output() {
  random_file f 10000
  cp f orig
  run_status st splice-cat f >> f 2> err
  status 1 "$(cat st)" "splice-cat f >> f"
  mentions err "f: input file is output file"
  same orig f
  run_status refst cat f >> f 2> /dev/null
  status "$(cat refst)" "$(cat st)" "status differs from cat's"
  # An empty file on itself is harmless, as in cat.
  : > e
  splice-cat e >> e || fail "empty file onto itself"
}

tcase t_proc_devnull_input "/proc files and /dev/null as input: same bytes as cat"
t_proc_devnull_input() {
  needs_fallback
  splice-cat /proc/version > out || fail "/proc/version"
  cat /proc/version > ref
  same ref out
  splice-cat /proc/sys/kernel/ostype /dev/null /proc/sys/kernel/ostype > out || fail "ostype"
  cat /proc/sys/kernel/ostype /dev/null /proc/sys/kernel/ostype > ref
  same ref out
  # /proc/self/status describes the reader: compare its field names.
  splice-cat /proc/self/status | cut -f1 > out
  cat /proc/self/status | cut -f1 > ref
  same ref out
  [ "$(wc -l < out)" -gt 10 ] || fail "/proc/self/status came out short"
  splice-cat /dev/null > out || fail "/dev/null"
  [ ! -s out ] || fail "/dev/null gave bytes"
  splice-cat /dev/null | cat > out || fail "/dev/null | cat"
  [ ! -s out ] || fail "/dev/null gave bytes"
}

tcase t_dev_full "/dev/full as output: ENOSPC reported against the output, exit 1"
t_dev_full() {
  random_file f 100000
  run_status st splice-cat f > /dev/full 2> err
  status 1 "$(cat st)" "splice-cat f > /dev/full"
  if [ -n "${STRICT:-}" ]; then
    mentions err "splice"
  else
    mentions err "standard output: No space left on device"
  fi
  run_status st2 sh -c 'cat f | splice-cat > /dev/full' 2> err2
  status 1 "$(cat st2)" "cat f | splice-cat > /dev/full"
}

tcase t_nonblocking "stdin and stdout set O_NONBLOCK: EAGAIN waited out, byte-exact"
t_nonblocking() {
  nb=$(helper set-nonblock)
  random_file f 10485760
  # A slow reader keeps the non-blocking stdout pipe full.
  { sh -c 'cat f; sleep 0.3; cat f' | run_status st "$nb" 0 1 -- splice-cat; } |
    { sleep 0.3; cat; } > out
  status 0 "$(cat st)" "non-blocking splice-cat"
  cat f f > ref
  same ref out
  run_status st "$nb" 1 -- splice-cat f f | { sleep 0.3; cat; } > out2
  status 0 "$(cat st)" "file to non-blocking pipe"
  same ref out2
}

tcase t_inject_enosys "strace: splice fails with ENOSYS: same bytes by read/write"
t_inject_enosys() {
  needs_fallback
  need strace
  random_file f 1000000
  run_status st inject splice:ENOSYS splice-cat -v f 2> err | cat > out
  status 0 "$(cat st)" "splice-cat under ENOSYS"
  same f out
  mentions err "read/write: 1000000 bytes"
  cat f | inject splice:ENOSYS splice-cat > out2 || fail "pipe to file under ENOSYS"
  same f out2
}

tcase t_inject_emfile "strace: pipe2 fails with EMFILE: output still right"
t_inject_emfile() {
  needs_fallback
  need strace
  random_file f 1000000
  inject copy_file_range:EXDEV pipe2:EMFILE splice-cat f > out || fail "splice-cat under EMFILE"
  same f out
}

tcase t_strict_append "--strict with an O_APPEND output: exit 1, message names splice"
t_strict_append() {
  random_file f 10000
  : > out
  run_status st splice-cat --strict f >> out 2> err
  status 1 "$(cat st)" "splice-cat --strict f >> out"
  mentions err "splice"
  mentions err "strict"
}

tcase t_strict_zero_copy "--strict: every zero-copy pair works without a fallback"
t_strict_zero_copy() {
  random_file f 3000000
  splice-cat --strict f | splice-cat --strict | splice-cat --strict > out || fail "strict chain"
  same f out
  splice-cat --strict f f > out2 || fail "strict file to file"
  cat f f > ref
  same ref out2
}

tcase t_options "-u, -m, --chunk, -v, --progress: same bytes"
t_options() {
  random_file f 1048583
  splice-cat -u -m f > o1 && same f o1
  splice-cat --chunk 4097 f | splice-cat -s 1K > o2 && same f o2
  splice-cat -v f 2> err | cat > o3
  same f o3
  mentions err "splice: 1048583 bytes"
  splice-cat --progress f > o4 2> err
  same f o4
  mentions err "1048583 bytes"
  # On a long transfer, a status line about once a second.
  for _ in 1 2 3 4 5 6; do cat f; sleep 0.5; done | splice-cat --progress > o6 2> err
  [ "$(tr '\r' '\n' < err | grep -c 'bytes .* copied')" -ge 3 ] || fail "too few status lines"
  splice-cat --pipe-size 4096 -v f 2> err | cat > o5
  same f o5
  mentions err "pipe capacity: 4096 bytes (1 pages)"
  # Below a page: the kernel's smallest pipe, not the default one.
  splice-cat --pipe-size 100 -v f 2> err | cat > o7
  same f o7
  mentions err "pipe capacity: 4096 bytes (1 pages)"
}

tcase t_usage_errors "bad options and sizes: exit 2, the option named, a hint"
t_usage_errors() {
  for bad in "-s -1" "-s 1Q" "-s 18446744073709551616" "-s 1e3" "-s abc" "-s 0" \
    "--pipe-size 0" "--pipe-size 1G0" "-x" "--bogus" "--chunk"; do
    # shellcheck disable=SC2086
    run_status st splice-cat $bad < /dev/null > out 2> err
    status 2 "$(cat st)" "splice-cat $bad"
    mentions err "Try 'splice-cat --help'"
    [ ! -s out ] || fail "splice-cat $bad wrote to stdout"
  done
  run_status st splice-cat -s 1Q < /dev/null 2> err
  mentions err "chunk"
}

tcase t_help_version "--help on stdout exit 0; --version names the suite"
t_help_version() {
  splice-cat --help > out || fail "--help exit"
  mentions out "Usage: splice-cat"
  for opt in --move --chunk --strict --progress --pipe-size --verbose; do
    mentions out "$opt"
  done
  splice-cat -V > out || fail "-V exit"
  grep -qx 'splice-cat (splice-tools) [0-9]*\.[0-9]*\.[0-9]*' out || fail "version line: $(cat out)"
}

tcase t_closed_stdout "stdout closed: a clear error, exit 1"
t_closed_stdout() {
  random_file f 100
  run_status st splice-cat f >&- 2> err
  status 1 "$(cat st)" "splice-cat f >&-"
  mentions err "standard output"
}

tcase t_reader_exits "a reader that exits early ends splice-cat by SIGPIPE, as cat"
t_reader_exits() {
  random_file f 10485760
  run_status st splice-cat f f f | head -c 1 > /dev/null
  run_status refst cat f f f | head -c 1 > /dev/null
  status 141 "$(cat st)" "splice-cat | head -c 1"
  status "$(cat refst)" "$(cat st)" "status differs from cat's"
}

run_area "$@"
