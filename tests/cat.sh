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
    status_in 0 st "splice-cat in.$n | cat"
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

tcase t_to_devnull "file -> /dev/null: exit 0, --verbose counts every byte"
t_to_devnull() {
  make_inputs
  for n in $SIZES; do
    splice-cat --verbose "in.$n" > /dev/null 2> err || { cat err >&2; fail "splice-cat in.$n > /dev/null"; }
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

# clone_calls TRACE: the FICLONE ioctls in strace's record.
clone_calls() {
  grep -c 'FICLONE' "$1" || :
}

tcase t_clone "a whole file into an empty file: FICLONE first, then copy_file_range all at once"
t_clone() {
  need strace
  random_file in 3000000
  traced -o trace -e trace=ioctl,copy_file_range splice-cat --verbose in > out 2> err ||
    { cat err >&2; fail "splice-cat in > out"; }
  same in out
  [ "$(clone_calls trace)" -eq 1 ] || { cat trace >&2; fail "FICLONE not tried once"; }
  if grep -q 'FICLONE, 3) = 0' trace; then
    mentions err "3000000 bytes by FICLONE"
  else
    # This file system cannot clone: the rest in one request.
    grep -q 'copy_file_range(3, NULL, 1, NULL, 3000000, 0) = 3000000' trace ||
      { cat trace >&2; fail "not one copy_file_range for the whole file"; }
  fi
  # Where the file system refuses, whatever it says: the copy is byte-exact.
  for err in EOPNOTSUPP EXDEV EINVAL; do
    inject -o trace2 -t ioctl,copy_file_range ioctl:$err splice-cat --verbose in > out2 \
      2> err2 || { cat err2 >&2; fail "splice-cat under FICLONE $err"; }
    same in out2
    [ "$(clone_calls trace2)" -eq 1 ] || fail "FICLONE not tried under $err"
    mentions err2 "3000000 bytes by copy_file_range(2)"
  done
  # Not tried: an output with bytes in it, an output not at offset 0, --count,
  # --chunk, the second operand; the copies are still right.
  echo old > out3
  traced -o trace3 -e trace=ioctl splice-cat in 1<> out3 || fail "splice-cat in 1<> out3"
  { echo x; traced -o trace4 -e trace=ioctl splice-cat in; } > out4 || fail "after echo"
  traced -o trace5 -e trace=ioctl splice-cat --count 3000000 in > out5 || fail "--count"
  traced -o trace6 -e trace=ioctl splice-cat --chunk 64K in > out6 || fail "--chunk"
  for n in 3 4 5 6; do
    [ "$(clone_calls trace$n)" -eq 0 ] || fail "FICLONE tried in case $n"
  done
  same in out3
  { echo x; cat in; } > ref4
  same ref4 out4
  same in out5
  same in out6
  traced -o trace7 -e trace=ioctl splice-cat in in > out7 || fail "splice-cat in in"
  [ "$(clone_calls trace7)" -eq 1 ] || fail "FICLONE for the second operand"
  cat in in > ref7
  same ref7 out7
}

tcase t_cat_pipe_requests "reading a pipe: half of it per splice(2) call, 64 KiB at least; --chunk wins"
t_cat_pipe_requests() {
  need strace
  ere='splice\(0, NULL, 1, NULL, '
  reader_asks 1M 524288 splice "$ere" splice-cat
  reader_asks 256K 131072 splice "$ere" splice-cat
  reader_asks 64K 65536 splice "$ere" splice-cat
  reader_asks 1M 100000 splice "$ere" splice-cat --chunk 100000
  # A writer that grows the pipe after the reader's first request (strace
  # writes a call down as it starts): the requests follow.
  rm -f trace
  { wait_until "splice-cat never asked" grep -q '^splice(0, ' trace; vmsplice -s 64M; } |
    traced -o trace -e trace=splice splice-cat > /dev/null ||
    fail "a late vmsplice | splice-cat"
  got=$(requests trace "$ere")
  [ "$got" = "65536 524288 " ] || { cat trace >&2; fail "a pipe grown late: asked $got"; }
}

tcase t_file_to_file_pipe "file -> file through the internal pipe when copy_file_range is refused"
t_file_to_file_pipe() {
  need strace
  random_file in 3000000
  inject -o trace copy_file_range:EXDEV splice-cat --verbose in > out 2> err ||
    { cat err >&2; fail "splice-cat exit"; }
  same in out
  mentions err "3000000 bytes by splice(2) through a pipe"
  grep -q 'splice(' trace || fail "no splice call in the trace"
}

tcase t_sparse_4g "4 GiB + 1 MiB sparse file | wc -c: every byte, 64-bit totals"
t_sparse_4g() {
  memory_dir
  truncate -s 4097M "$MEM/sparse"
  n=$(run_status st splice-cat "$MEM/sparse" | wc -c)
  status_in 0 st "splice-cat sparse"
  [ "$n" -eq 4296015872 ] || fail "wc -c says $n, expected 4296015872"
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
  status_in 1 st "splice-cat a missing b"
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
  status_in 1 st "splice-cat d b"
  mentions err "splice-cat: d"
  same b out
}

tcase t_input_is_output "input file is output file: refused, file untouched, exit 1 (as cat)"
t_input_is_output() {
  random_file f 10000
  cp f orig
  run_status st splice-cat f >> f 2> err
  status_in 1 st "splice-cat f >> f"
  mentions err "f: input file is output file"
  same orig f
  run_status refst cat f >> f 2> /dev/null
  status "$(cat refst)" "$(cat st)" "status differs from cat's"
  # An empty file on itself is harmless, as in cat.
  : > e
  splice-cat e >> e || fail "empty file onto itself"
  # Refused only when the output stands past where the input reads (GNU
  # cat 9.6+): copied onto itself in place, the copy ends.
  echo x > x
  echo y > y
  cat x y > xy
  cp x xy1
  splice-cat - y < xy1 1<> xy1 || fail "splice-cat - y < xy1 1<> xy1"
  same xy xy1
  cp x xy2
  splice-cat xy2 y 1<> xy2 || fail "splice-cat xy2 y 1<> xy2"
  same xy xy2
  cp x x3
  run_status st splice-cat x x3 1<> x3 2> err
  status_in 1 st "splice-cat x x3 1<> x3"
  mentions err "x3: input file is output file"
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

tcase t_cat_dev_full "/dev/full as output: ENOSPC reported against the output, exit 1"
t_cat_dev_full() {
  random_file f 100000
  run_status st splice-cat f > /dev/full 2> err
  status_in 1 st "splice-cat f > /dev/full"
  if [ -n "${STRICT:-}" ]; then
    mentions err "splice"
  else
    # GNU cat's words, which coreutils' tests check.
    echo "splice-cat: write error: No space left on device" > exp
    same exp err
  fi
  run_status st2 sh -c 'cat f | splice-cat > /dev/full' 2> err2
  status_in 1 st2 "cat f | splice-cat > /dev/full"
}

tcase t_gnu_messages "errors worded as GNU cat's: 'write error' for the output, the file's name for input"
t_gnu_messages() {
  need_gnu_cat
  echo 1 > one
  for cmd in "cat one" "cat -n one" "cat one /proc/self/mem one" "cat /proc/self/mem"; do
    # shellcheck disable=SC2086
    run_status ref.st $cmd > /dev/full 2> ref.err
    # shellcheck disable=SC2086
    run_status st splice-$cmd > /dev/full 2> err
    sed 's/^cat: /splice-cat: /' ref.err > exp
    same exp err
    status "$(cat ref.st)" "$(cat st)" "splice-$cmd > /dev/full"
  done
  printf 'a\r' > cr
  run_status st splice-cat -E cr > /dev/full 2> err
  echo "splice-cat: write error: No space left on device" > exp
  same exp err
}

tcase t_cat_nonblocking "stdin and stdout set O_NONBLOCK: EAGAIN waited out, byte-exact"
t_cat_nonblocking() {
  nb=$(helper with-flags)
  random_file f 10485760
  # A slow reader keeps the non-blocking stdout pipe full.
  { sh -c 'cat f; sleep 0.3; cat f' | run_status st "$nb" 0:nonblock 1:nonblock -- splice-cat; } |
    { sleep 0.3; cat; } > out
  status_in 0 st "non-blocking splice-cat"
  cat f f > ref
  same ref out
  run_status st "$nb" 1:nonblock -- splice-cat f f | { sleep 0.3; cat; } > out2
  status_in 0 st "file to non-blocking pipe"
  same ref out2
}

tcase t_inject_enosys "strace: splice fails with ENOSYS: same bytes by read/write"
t_inject_enosys() {
  needs_fallback
  need strace
  random_file f 1000000
  run_status st inject splice:ENOSYS splice-cat --verbose f 2> err | cat > out
  status_in 0 st "splice-cat under ENOSYS"
  same f out
  mentions err "1000000 bytes by read(2)/write(2)"
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

tcase t_cat_strict_append "--strict with an O_APPEND output: exit 1, message names splice"
t_cat_strict_append() {
  random_file f 10000
  : > out
  run_status st splice-cat --strict f >> out 2> err
  status_in 1 st "splice-cat --strict f >> out"
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

tcase t_cat_options "-u, -m, --chunk, --verbose, --progress: same bytes"
t_cat_options() {
  random_file f 1048583
  splice-cat -u -m f > o1 && same f o1
  splice-cat --chunk 4097 f | splice-cat --chunk 1K > o2 && same f o2
  splice-cat --verbose f 2> err | cat > o3
  same f o3
  mentions err "1048583 bytes by splice(2)"
  splice-cat --progress f > o4 2> err
  same f o4
  mentions err "1048583 bytes"
  # On a long transfer, a status line about once a second.
  for _ in 1 2 3 4 5 6; do cat f; sleep 0.5; done | splice-cat --progress > o6 2> err
  [ "$(tr '\r' '\n' < err | grep -c 'bytes .* copied')" -ge 3 ] || fail "too few status lines"
  splice-cat --pipe-size 4096 --verbose f 2> err | cat > o5
  same f o5
  mentions err "pipe capacity: 4096 bytes (1 page)"
  # Below a page: the kernel's smallest pipe, not the default one.
  splice-cat --pipe-size 100 --verbose f 2> err | cat > o7
  same f o7
  mentions err "pipe capacity: 4096 bytes (1 page)"
}

tcase t_cat_usage_errors "bad options and sizes: exit 2, the option named, a hint"
t_cat_usage_errors() {
  for bad in "--chunk -1" "--chunk 1Q" "--chunk 18446744073709551616" "--chunk 1e3" \
    "--chunk abc" "--chunk 0" "--pipe-size 0" "--pipe-size 1G0" "-x" "--bogus" "--chunk"; do
    # shellcheck disable=SC2086
    run_status st splice-cat $bad < /dev/null > out 2> err
    status_in 2 st "splice-cat $bad"
    mentions err "Try 'splice-cat --help'"
    [ ! -s out ] || fail "splice-cat $bad wrote to stdout"
  done
  run_status st splice-cat --chunk 1Q < /dev/null 2> err
  mentions err "chunk"
}

tcase t_cat_help_version "--help on stdout exit 0; --version names the suite"
t_cat_help_version() {
  help_lists splice-cat --move --chunk --strict --progress --pipe-size --verbose
}

tcase t_reader_exits "a reader that exits early ends splice-cat by SIGPIPE, as cat"
t_reader_exits() {
  random_file f 10485760
  run_status st splice-cat f f f | head -c 1 > /dev/null
  run_status refst cat f f f | head -c 1 > /dev/null
  status_in 141 st "splice-cat | head -c 1"
  status "$(cat refst)" "$(cat st)" "status differs from cat's"
}

# ---- GNU cat's formatting options, against the system cat --------------------

# The reference for the formatting options is GNU cat (coreutils 9.1 or
# later shows CR LF as ^M$ under -E); another cat prints other bytes.
need_gnu_cat() {
  needs_fallback
  cat --version 2> /dev/null | grep -q 'GNU coreutils' || skip "the system cat is not GNU cat"
  [ "$(printf 'a\r\n' | cat -E)" = 'a^M$' ] || skip "the system cat predates ^M$ under -E"
}

# every_byte FILE: the 256 byte values in order, then each on a line of its own.
every_byte() {
  i=0
  while [ $i -lt 256 ]; do
    printf "\\$(printf %03o $i)"
    i=$((i + 1))
  done > "$1.raw"
  [ "$(wc -c < "$1.raw")" -eq 256 ] || fail "could not make every byte value"
  cp "$1.raw" "$1"
  od -An -v -tx1 "$1.raw" | tr ' ' '\n' | grep . | while read -r hex; do
    printf "\\$(printf %03o "0x$hex")\n"
  done >> "$1"
  rm "$1.raw"
}

# like_cat OPTIONS OPERAND...: splice-cat prints what the system cat prints,
# and exits as it does.  OPTIONS is one word ("-vET").  Both read standard
# input from the file $LIKE_CAT_IN (default /dev/null).
like_cat() {
  _opts=$1
  shift
  run_status ref.st cat "$_opts" "$@" < "${LIKE_CAT_IN:-/dev/null}" > ref.out 2> /dev/null
  run_status out.st splice-cat "$_opts" "$@" < "${LIKE_CAT_IN:-/dev/null}" > out.out 2> out.err
  cmp ref.out out.out > /dev/null ||
    { cmp ref.out out.out >&2 || :; fail "splice-cat $_opts $*: output differs from cat's"; }
  # By read, not cat: the formatting cases call this hundreds of times.
  read -r _ref_st < ref.st
  read -r _out_st < out.st
  status "$_ref_st" "$_out_st" "splice-cat $_opts $*"
}

# The option sets every formatting case runs: each option alone, the
# combined letters, and combinations whose interplay matters.
FMT_OPTS="-A -b -e -E -n -s -t -T -v -u -vET -bn -nb -sn -sb -snE -sbE -bE -nT -vn -At -tE"

tcase t_fmt_every_byte "-A -e -t -v -E -T ...: every byte value 0-255 printed as the system cat does"
t_fmt_every_byte() {
  need_gnu_cat
  every_byte bytes
  for o in $FMT_OPTS --show-all --show-nonprinting --show-ends --show-tabs; do
    like_cat "$o" bytes
  done
  # Each byte at the end of an operand, where no newline follows it.
  mkdir ends
  od -An -v -tx1 bytes | tr ' ' '\n' | grep . | sort -u | while read -r hex; do
    printf "x\\$(printf %03o "0x$hex")" > "ends/$hex"
  done
  [ "$(ls ends | wc -l)" -eq 256 ] || fail "could not make 256 operands"
  for o in -A -v -E -T -n -s; do
    like_cat "$o" ends/*
  done
}

tcase t_fmt_operands "-n -b -s -E across operands: numbers go on, CR LF split, no final newline, empty files"
t_fmt_operands() {
  need_gnu_cat
  printf 'one\ntwo' > nonl
  printf '\nthree\r' > cr
  printf '\nfour\r\n\r\n\n\n\n' > crlf
  : > empty
  printf '\n\n\n' > blanks
  printf '\tfive\n\n\nsix\r\r\n' > mixed
  for o in $FMT_OPTS; do
    like_cat "$o" nonl cr crlf
    like_cat "$o" empty
    like_cat "$o" empty empty
    like_cat "$o" nonl empty nonl
    like_cat "$o" cr empty crlf cr
    like_cat "$o" blanks blanks empty blanks mixed blanks
    LIKE_CAT_IN=crlf
    like_cat "$o" mixed - nonl - cr
    LIKE_CAT_IN=
  done
  # The same through a pipe, read in pieces as they come.
  { cat nonl; sleep 0.2; cat cr; sleep 0.2; cat crlf mixed; } | splice-cat -nE > out
  cat nonl cr crlf mixed | cat -nE > ref
  same ref out
}

tcase t_fmt_squeeze "-s: runs of empty lines that span operands squeeze to one, as cat's"
t_fmt_squeeze() {
  need_gnu_cat
  i=0
  while [ $i -lt 5000 ]; do echo; i=$((i + 1)); done > many
  printf 'a\n\n\n' > a
  printf '\n\nb\n' > b
  printf 'c' > c
  for o in -s -sn -sb -sE -snE -sA; do
    like_cat "$o" many
    like_cat "$o" a many b many
    like_cat "$o" many a b c many many c
    LIKE_CAT_IN=many
    like_cat "$o" a - b
    LIKE_CAT_IN=
  done
  [ "$(splice-cat -s many many many | wc -c)" -eq 1 ] || fail "15000 empty lines did not squeeze to one"
}

tcase t_fmt_random "formatting options on random bytes, 1 B to 300 KiB, in every combination used"
t_fmt_random() {
  need_gnu_cat
  for n in 1 4095 65537 300000; do
    # Mostly newlines, CRs and tabs, so that every rule is met often.
    head -c "$n" /dev/urandom | tr '\000-\077' '\n\n\n\n\r\r\t\t\n' > "r.$n"
    random_file "b.$n" "$n"
  done
  for o in $FMT_OPTS; do
    like_cat "$o" r.1 r.4095 b.1 r.65537 b.4095 r.300000
    like_cat "$o" b.300000 r.300000 b.65537
  done
}

tcase t_fmt_numbers_widen "-n past 999999 lines: the number widens as cat's does"
t_fmt_numbers_widen() {
  need_gnu_cat
  yes '' | head -n 1000 > k
  # 1001000 lines: the last ones need 7 digits.
  yes '' | head -n 1001000 > m
  [ "$(wc -l < m)" -eq 1001000 ] || fail "could not make m"
  like_cat -n m
  like_cat -b k m
}

tcase t_fmt_cat_letters "-v and -s are cat's, not --verbose and --chunk; --verbose reports the read/write bytes"
t_fmt_cat_letters() {
  need_gnu_cat
  printf 'a\001\n\n\n\nb\n' > f
  # The issue's example: cat -v -s file.
  run_status st splice-cat -v -s f > out 2> err
  status_in 0 st "splice-cat -v -s f"
  [ ! -s err ] || { cat err >&2; fail "-v printed something on stderr"; }
  cat -v -s f > ref
  same ref out
  splice-cat --show-nonprinting --squeeze-blank f > out2
  same ref out2
  splice-cat --verbose -n f > out3 2> err3
  cat -n f > ref3
  same ref3 out3
  mentions err3 "8 bytes by read(2)/write(2)"
  # Without a formatting option, the zero-copy path, byte for byte.
  splice-cat --verbose f 2> err4 | cat > out4
  same f out4
  mentions err4 "8 bytes by splice(2)"
}

tcase t_fmt_strict "--strict with a formatting option: usage error, exit 2, nothing written"
t_fmt_strict() {
  printf 'a\n' > f
  for o in -A -b -e -E -n -s -t -T -v --number --show-all; do
    run_status st splice-cat --strict "$o" f > out 2> err
    status_in 2 st "splice-cat --strict $o f"
    mentions err "strict"
    mentions err "Try 'splice-cat --help'"
    [ ! -s out ] || fail "--strict $o wrote to stdout"
  done
  # -u formats nothing: --strict takes it.
  splice-cat --strict -u f | cat > out
  same f out
}

tcase t_fmt_errors "formatting: an unreadable operand is reported and the rest formatted; /dev/full is an error"
t_fmt_errors() {
  need_gnu_cat
  mkdir d
  printf 'a\nb\n' > f
  like_cat -n f d missing f
  mentions out.err "splice-cat: d: Is a directory"
  mentions out.err "splice-cat: missing: No such file or directory"
  run_status st splice-cat -n f > /dev/full 2> err
  status_in 1 st "splice-cat -n f > /dev/full"
  mentions err "splice-cat: write error: No space left on device"
  # A CR held for a LF that never comes is written at the end, and checked.
  printf '\r' > cr
  run_status st splice-cat -E cr > /dev/full 2> err
  status_in 1 st "splice-cat -E cr > /dev/full"
  mentions err "splice-cat: write error: No space left on device"
}

tcase t_fmt_interactive "-n on a slow pipe: each line is out before the next one comes"
t_fmt_interactive() {
  needs_fallback
  rm -f go
  { echo one; wait_until "no go" exists go; echo two; } | splice-cat -n > out &
  # The first line is out while the second is still to come.
  printf '     1\tone\n' > ref
  wait_until "the first line was held back" has_bytes out "$(wc -c < ref)"
  same ref out
  : > go
  wait
  printf '     1\tone\n     2\ttwo\n' > ref
  same ref out
}

tcase t_help_columns "--help: every line fits 80 columns; -v is --show-nonprinting, --verbose is long only"
t_help_columns() {
  splice-cat --help > help
  awk 'length > 80 { print; bad = 1 } END { exit bad }' help || fail "a --help line is over 80 columns"
  grep -q -- '^  -v, --show-nonprinting' help || fail "-v is not --show-nonprinting in --help"
  grep -q -- '^      --verbose' help || fail "--verbose is not a long-only option in --help"
  grep -q -- '^  -s, --squeeze-blank' help || fail "-s is not --squeeze-blank in --help"
}

# ---- --skip and --count ------------------------------------------------------

# dd_range FILE SKIP COUNT: the bytes dd copies, the reference for a range.
dd_range() {
  dd if="$1" iflag=skip_bytes,count_bytes skip="$2" count="$3" status=none
}

tcase t_range_dd "--skip/--count over all operands as one stream: the bytes dd skip= count= gives"
t_range_dd() {
  need dd
  random_file a 100000
  random_file b 7777
  cat a b > ab
  for skip in 0 1 4096 99999 100000 100001 107776 107777 200000; do
    for count in 0 1 10 7777 50000 200000; do
      dd_range ab "$skip" "$count" > ref
      splice-cat --skip "$skip" --count "$count" a b > out || fail "file -> file, $skip $count"
      same ref out
      { cat a | splice-cat --skip "$skip" --count "$count" - b || echo $? > st; } | cat > out2
      [ ! -f st ] || fail "pipe -> pipe, $skip $count: exit $(cat st)"
      same ref out2
    done
  done
  # Without --count, to the end; without --skip, from the start.
  dd_range ab 12345 1000000 > ref
  splice-cat --skip 12345 a b | cat > out3
  same ref out3
  dd_range ab 0 54321 > ref
  splice-cat --count 54321 a b > out4
  same ref out4
}

tcase t_range_format "--skip/--count with -n: the input range is counted before formatting"
t_range_format() {
  needs_fallback
  need dd
  seq 100000 > a
  seq 7 > b
  cat a b > ab
  for range in "0 10" "3 1" "588888 20" "588890 200" "2 0"; do
    set -- $range
    dd_range ab "$1" "$2" | cat -nE > ref
    splice-cat -nE --skip "$1" --count "$2" a b > out || fail "-nE --skip $1 --count $2"
    same ref out
  done
}

tcase t_range_seeks "--skip on a file seeks: no skipped byte is read, not even of a 5 GiB file"
t_range_seeks() {
  need strace
  truncate -s 5G big
  printf 'tail' >> big
  traced -o trace -e trace=openat,lseek,read,splice,copy_file_range \
    splice-cat --skip 5G --count 3 big > out || fail "splice-cat --skip 5G big"
  printf 'tai' > ref
  same ref out
  grep -q 'lseek(3, 5368709120, SEEK_SET)' trace || { cat trace >&2; fail "no lseek to 5G"; }
  # After the input is open, no call moves more than the 3 bytes counted.
  sed -n '/"big"/,$p' trace | grep -E '^(read|splice|copy_file_range)\(' |
    grep -Ev '= [0-3]$' && fail "a call moved more than the 3 bytes counted"
  # Stdin a file: the seek starts where stdin stands.
  { dd bs=4 count=1 status=none > /dev/null; splice-cat --skip 5368709119; } < big > out2
  printf 'l' > ref2
  same ref2 out2
}

tcase t_range_leaves_rest "--skip/--count on a pipe take exactly their bytes: the next reader gets the rest"
t_range_leaves_rest() {
  printf 'abcdefghijklmnopqrstuvwxyz' > f
  cat f | { splice-cat --skip 2 --count 3 > o1; cat > o2; }
  printf 'cde' > r1
  printf 'fghijklmnopqrstuvwxyz' > r2
  same r1 o1
  same r2 o2
  [ -n "${STRICT:-}" ] && return 0
  # The formatting path reads no further than --count either.
  cat f | { splice-cat -n --skip 2 --count 3 > o3; cat > o4; }
  printf '     1\tcde' > r3
  same r3 o3
  same r2 o4
}

tcase t_range_devices "--skip/--count on a block device (seek), /dev/zero and /proc (read): as dd"
t_range_devices() {
  needs_fallback
  need dd
  splice-cat --skip 10 --count 5000 /dev/zero > out || fail "/dev/zero"
  head -c 5000 /dev/zero > ref
  same ref out
  splice-cat --skip 3 /proc/version > out || fail "/proc/version"
  tail -c +4 /proc/version > ref
  same ref out
  [ "$(id -u)" -eq 0 ] || skip "a loop device needs root"
  need losetup
  random_file img 1048576
  dev=$(losetup -f --show img 2> /dev/null) || skip "no loop device here"
  # Every check after the device is gone again, so a failure leaks none.
  if command -v strace > /dev/null; then
    run_status st traced -o trace -e trace=lseek splice-cat --skip 1000 --count 100000 "$dev" > out
  else
    run_status st splice-cat --skip 1000 --count 100000 "$dev" > out
    echo "lseek(3, 1000, SEEK_SET) (strace is not installed)" > trace
  fi
  run_status st2 splice-cat --skip 1048000 "$dev" - "$dev" < img > out2
  losetup -d "$dev"
  grep -q 'lseek(3, 1000, SEEK_SET)' trace || { cat trace >&2; fail "no lseek on $dev"; }
  status_in 0 st "splice-cat --skip 1000 --count 100000 $dev"
  status_in 0 st2 "splice-cat --skip 1048000 $dev - $dev"
  dd_range img 1000 100000 > ref
  same ref out
  { tail -c 576 img; cat img img; } > ref2
  same ref2 out2
}

# size_lies: a sysfs attribute whose st_size (4096) is more than the few
# bytes it holds, unchanging while the case runs; skips where none is.
size_lies() {
  for _f in /sys/devices/system/cpu/online /sys/kernel/mm/transparent_hugepage/enabled \
    /sys/power/state /sys/kernel/mm/transparent_hugepage/defrag; do
    [ -r "$_f" ] && [ "$(stat -L -c %s "$_f" 2> /dev/null)" = 4096 ] || continue
    cat "$_f" > lies.1 2> /dev/null && cat "$_f" > lies.2 2> /dev/null || continue
    _n=$(wc -c < lies.1)
    [ "$_n" -gt 0 ] && [ "$_n" -lt 4096 ] && cmp -s lies.1 lies.2 && echo "$_f" && return 0
  done
  skip "no sysfs attribute of st_size 4096 here"
}

# every_stdin_tool FILE: FILE on stdin of every tool that reads its stdin
# (splice-cat's operands aside): the bytes cat gives, sent or counted.
every_stdin_tool() {
  cat "$1" > ref
  splice-cat < "$1" > out || fail "splice-cat < $1 > out"
  same ref out
  splice-buffer < "$1" > out || fail "splice-buffer < $1"
  same ref out
  start_receiver out ferr timeout 30 splice-fromnet -b 127.0.0.1 0
  timeout 30 splice-tonet 127.0.0.1 "$PORT" < "$1" > /dev/null || fail "splice-tonet < $1"
  reap "$RPID" "splice-fromnet, the receiver of $1"
  status 0 "$REAPED" "splice-fromnet, the receiver of $1"
  same ref out
  start_receiver -i "$1" /dev/null ferr timeout 30 splice-fromnet -b 127.0.0.1 0
  # An empty pipe to send: --strict refuses to splice from /dev/null.
  : | timeout 30 splice-tonet 127.0.0.1 "$PORT" > out || fail "splice-fromnet < $1"
  reap "$RPID" "splice-fromnet < $1"
  status 0 "$REAPED" "splice-fromnet < $1"
  same ref out
  # tee(2) and vmsplice(2) need pipes: a file is a fallback, which --strict refuses.
  [ -z "${STRICT:-}" ] || return 0
  splice-tee copy < "$1" > out || fail "splice-tee < $1"
  same ref out
  same ref copy
  vmsplice-touser -c < "$1" > count || fail "vmsplice-touser -c < $1"
  counted count "$(wc -c < ref)" "vmsplice-touser -c < $1"
}

tcase t_size_no_end "files that give a size but refuse SEEK_END or SEEK_DATA (/proc/cmdline, ...): every tool copies what cat does"
t_size_no_end() {
  found=
  for f in /proc/cmdline /proc/version /proc/self/environ; do
    [ -r "$f" ] || continue
    size=$(stat -c %s "$f")
    # The class: a size above 0, and an end that lseek(2) will not say.
    [ "$size" -gt 0 ] && ! dd if="$f" bs=1 skip="$size" count=0 status=none 2> /dev/null &&
      found="$found $f"
    # procfs files of fixed content: the bytes cat gives, into a file, from
    # an operand, from stdin, after --skip, and the operand after it too.
    case $f in /proc/self/*) continue ;; esac
    cat "$f" > ref
    splice-cat "$f" > out || fail "splice-cat $f > out"
    same ref out
    splice-cat < "$f" > out || fail "splice-cat < $f > out"
    same ref out
    echo tail > t
    cat "$f" t > ref
    splice-cat "$f" t > out || fail "splice-cat $f t > out"
    same ref out
    tail -c +4 "$f" > ref
    splice-cat --skip 3 "$f" > out || fail "splice-cat --skip 3 $f > out"
    same ref out
    # Every tool that reads a file on stdin: the same bytes.
    every_stdin_tool "$f"
  done
  # A sysfs attribute says 4096 whatever it holds.
  for f in /sys/kernel/mm/transparent_hugepage/enabled /sys/devices/system/cpu/online; do
    [ -r "$f" ] || continue
    every_stdin_tool "$f"
    break
  done
  # /proc/self/environ is the reader's own: its bytes, as cat's (it refuses
  # splice(2), so --strict refuses it, named).
  if [ -z "${STRICT:-}" ]; then
    env -i A=1 B=22 "$(command -v splice-cat)" /proc/self/environ > out ||
      fail "splice-cat /proc/self/environ"
    printf 'A=1\000B=22\000' > ref
    same ref out
  fi
  echo "NOTE: files with a size and no end here:${found:- none}"
}

tcase t_range_size_lies "--skip/--count/sparse over sysfs (st_size 4096) and /proc (0) files: as dd and cat"
t_range_size_lies() {
  need dd
  sysfs=$(size_lies)
  random_file data 10000
  for f in "$sysfs" /proc/version; do
    cat "$f" data > whole
    m=$(cat "$f" | wc -c)
    for sk in 0 1 $((m - 1)) "$m" $((m + 1)) 28 4095 4096 4097 5000; do
      dd if=whole iflag=skip_bytes skip="$sk" status=none > ref
      # Into a file (copy_file_range, sparse copies) and into a pipe (splice).
      splice-cat --skip "$sk" "$f" data > out || fail "--skip $sk $f data"
      same ref out
      splice-cat --skip "$sk" "$f" data | cat > out || fail "--skip $sk $f data | cat"
      same ref out
      head -c "$sk" whole > ref
      splice-cat --count "$sk" "$f" data > out || fail "--count $sk $f data"
      same ref out
      dd if=whole iflag=skip_bytes,count_bytes skip=3 count="$sk" status=none > ref
      splice-cat --skip 3 --count "$sk" "$f" data | cat > out || fail "--skip 3 --count $sk"
      same ref out
    done
    # Alone into a regular file: the sparse copy's end is not st_size.
    cat "$f" > ref
    splice-cat "$f" > out || fail "$f into a file"
    same ref out
  done
}

tcase t_range_operands "--count: later operands are not opened; earlier failures still count"
t_range_operands() {
  random_file a 5000
  run_status st splice-cat --count 5000 a missing > out 2> err
  status_in 0 st "splice-cat --count 5000 a missing"
  [ ! -s err ] || fail "an operand after --count was opened"
  same a out
  run_status st splice-cat --count 10 missing a > out 2> err
  status_in 1 st "splice-cat --count 10 missing a"
  mentions err "missing: No such file or directory"
  head -c 10 a > ref
  same ref out
  # --skip past a failing operand goes on into the next.
  run_status st splice-cat --skip 4990 missing a > out 2> err
  status_in 1 st "splice-cat --skip 4990 missing a"
  tail -c 10 a > ref
  same ref out
}

tcase t_range_usage "--skip/--count: bad sizes exit 2 naming the option; past the end copies nothing"
t_range_usage() {
  random_file f 100
  for opt in --skip --count; do
    for bad in -1 1Q 1e3 '' 18446744073709551616; do
      run_status st splice-cat "$opt" "$bad" f > out 2> err
      status_in 2 st "$opt '$bad'"
      mentions err "$opt"
      [ ! -s out ] || fail "$opt '$bad' copied bytes"
    done
  done
  splice-cat --skip 1K f > out || fail "--skip past the end"
  [ ! -s out ] || fail "--skip past the end copied bytes"
  splice-cat --skip 1 --count 1M f > out || fail "--count past the end"
  tail -c 99 f > ref
  same ref out
}

# ---- --fsync -----------------------------------------------------------------

tcase t_fsync "--fsync: fsync(1) after the last byte, none without it; a failing fsync is exit 1"
t_fsync() {
  need strace
  random_file a 300000
  random_file b 5000
  traced -o trace -e trace=fsync,fdatasync,write,splice,copy_file_range \
    splice-cat --fsync a b > out || fail "splice-cat --fsync a b > out"
  cat a b > ref
  same ref out
  # The last call is the fsync of stdout, after every byte moved.
  grep -v '^+++' trace | tail -n 1 | grep -q '^fsync(1) *= 0' || { cat trace >&2; fail "no fsync(1) at the end"; }
  traced -o trace2 -e trace=fsync,fdatasync splice-cat a > out2 || fail "splice-cat a > out2"
  grep -q sync trace2 && fail "fsync without --fsync"
  run_status st inject fsync:EIO splice-cat --fsync a > out3 2> err
  status_in 1 st "fsync fails with EIO"
  mentions err "splice-cat: standard output: fsync: Input/output error"
  same a out3
}

tcase t_fsync_unsyncable "--fsync to a pipe or /dev/null: bytes delivered, then exit 1 (EINVAL), as dd conv=fsync"
t_fsync_unsyncable() {
  need dd
  random_file a 300000
  run_status st splice-cat --fsync a 2> err | cat > out
  run_status refst dd if=a conv=fsync status=none 2> /dev/null | cat > /dev/null
  status_in 1 st "splice-cat --fsync a | cat"
  status "$(cat refst)" "$(cat st)" "status differs from dd conv=fsync's"
  mentions err "standard output: fsync: Invalid argument"
  same a out
  run_status st splice-cat --fsync a > /dev/null 2> err
  run_status refst dd if=a of=/dev/null conv=fsync status=none 2> /dev/null
  status "$(cat refst)" "$(cat st)" "to /dev/null: status differs from dd conv=fsync's"
  # An output that failed already is not synced: one message, not two.
  run_status st splice-cat --fsync a > /dev/full 2> err
  status_in 1 st "splice-cat --fsync a > /dev/full"
  [ "$(wc -l < err)" -eq 1 ] || { cat err >&2; fail "more than one message"; }
}

# ---- sparse files ------------------------------------------------------------

# The temp dir must keep holes for these cases to mean anything.
need_holes() {
  truncate -s 64M probe.holes
  [ "$(du -k probe.holes | cut -f1)" -lt 1024 ] || skip "this file system does not keep holes"
  rm probe.holes
}

# kib FILE: the KiB it takes on disk.
kib() {
  du -k "$1" | cut -f1
}

# at OFFSET TEXT FILE: writes TEXT at OFFSET of FILE, keeping the rest.
at() {
  printf '%s' "$2" | dd of="$3" bs=1 seek="$1" conv=notrunc status=none
}

# Not alone, though it bounds a time: the copy takes some 10 ms, and the
# bound (1 s) is what reading the 1 GiB of holes costs (3.5 s here), 100
# times what a loaded machine adds.
tcase t_sparse_1g "1 GiB file with one byte written -> file: byte-exact, small on disk, well under 1 s"
t_sparse_1g() {
  need_holes
  truncate -s 1G big
  at 536870912 x big
  start=$(date +%s%N)
  splice-cat big > copy || fail "splice-cat big > copy"
  end=$(date +%s%N)
  same_sparse big copy
  [ "$(kib copy)" -lt 1024 ] || fail "the copy takes $(kib copy) KiB on disk"
  ms=$(((end - start) / 1000000))
  [ "$ms" -lt 1000 ] || fail "the copy took $ms ms"
}

tcase t_sparse_shapes "sparse copies: holes first, last, between; several operands; --skip/--count in holes"
t_sparse_shapes() {
  need_holes
  truncate -s 10M lead
  at 9000000 data lead
  truncate -s 10M trail
  at 0 head trail
  at 4096 data trail
  random_file dense 100000
  truncate -s 20M mid
  at 0 start mid
  at 20000000 end mid
  for ops in "lead" "trail" "mid" "lead trail mid" "trail dense trail" "dense mid"; do
    # shellcheck disable=SC2086
    splice-cat $ops > out || fail "splice-cat $ops"
    # shellcheck disable=SC2086
    cat $ops > ref
    same ref out
    [ "$(kib out)" -le "$(($(kib ref) / 4))" ] || [ "$(kib ref)" -lt 1024 ] ||
      fail "splice-cat $ops: $(kib out) KiB on disk, cat's copy $(kib ref) KiB"
  done
  cat lead trail mid > all
  for range in "0 4096" "4096 9000000" "9000001 1" "8999999 15000000" "1 100000000"; do
    set -- $range
    splice-cat --skip "$1" --count "$2" lead trail mid > out || fail "--skip $1 --count $2"
    dd if=all iflag=skip_bytes,count_bytes skip="$1" count="$2" status=none > ref
    same ref out
  done
  [ "$(kib out)" -lt 1024 ] || fail "a range of holes came out dense: $(kib out) KiB"
}

tcase t_sparse_not_at_end "holes only where the output reads as zeros: before its end every zero is written"
t_sparse_not_at_end() {
  need_holes
  truncate -s 1M holes
  at 500000 x holes
  # Old bytes where the holes land must become zeros.
  random_file old 2000000
  cp old out
  cp old ref
  splice-cat holes 1<> out || fail "splice-cat holes 1<> out"
  cat holes 1<> ref
  same ref out
  # Past what another writer left on stdout: from its offset, still sparse.
  { head -c 1000 old; splice-cat holes holes; } > out2
  { head -c 1000 old; cat holes holes; } > ref2
  same ref2 out2
  [ "$(kib out2)" -lt 1024 ] || fail "past the end: $(kib out2) KiB on disk"
}

tcase t_sparse_fallback "copy_file_range or FICLONE refused or >> output: still byte-exact, sparse where it can be"
t_sparse_fallback() {
  need_holes
  need strace
  truncate -s 100M big
  at 50000000 x big
  # FICLONE keeps holes where it works; where it fails the sparse copy does.
  traced -o trace -e trace=ioctl splice-cat big > out || fail "splice-cat big > out"
  same_sparse big out
  [ "$(kib out)" -lt 1024 ] || fail "holes written after FICLONE: $(kib out) KiB"
  [ "$(clone_calls trace)" -eq 1 ] || fail "FICLONE not tried for a sparse file"
  inject ioctl:EXDEV splice-cat big > out || fail "splice-cat under FICLONE EXDEV"
  same_sparse big out
  [ "$(kib out)" -lt 1024 ] || fail "holes written under FICLONE EXDEV: $(kib out) KiB"
  inject copy_file_range:EXDEV splice-cat big > out ||
    fail "splice-cat under EXDEV"
  same_sparse big out
  [ "$(kib out)" -lt 1024 ] || fail "holes written under EXDEV: $(kib out) KiB"
  [ -n "${STRICT:-}" ] && return 0
  echo prefix > app
  splice-cat big >> app || fail "splice-cat big >> app"
  { echo prefix; cat big; } > ref
  same ref app
  # An empty file opened with >> is at its end, but O_APPEND ignores offsets.
  : > app2
  splice-cat big big >> app2 || fail "splice-cat big big >> app2"
  cat big big > ref2
  same ref2 app2
}

# needs_stdin CMD: sh -c "exec CMD", CMD closing stdin (<&-), under timeout
# 10: exit 1 at once, naming the standard input.
needs_stdin() {
  run_status st timeout 10 sh -c "exec $1" 2> err
  hung "$1"
  status_in 1 st "$1"
  mentions err "standard input"
}

tcase t_cat_closed_std_fds "splice-cat with 0, 1, 2 closed: needed ones named, exit 1; others filled, exact"
t_cat_closed_std_fds() {
  random_file f 300000
  # stdin not needed: copied.
  for r in "<&-" "2>&-" "<&- 2>&-"; do
    closed_run "$r" "splice-cat f"
    status_in 0 st "splice-cat f $r"
    same f out
  done
  # stdin needed (no operand, '-'): an error naming it.
  for cmd in "splice-cat" "splice-cat f -"; do
    closed_run "<&-" "$cmd"
    status_in 1 st "$cmd <&-"
    mentions err "standard input"
  done
  # The same with stdout a regular file (then an internal pipe may be made).
  for cmd in "splice-cat" "splice-cat -" "splice-cat f -"; do
    needs_stdin "$cmd <&- > o"
  done
  run_status st timeout 10 sh -c 'exec splice-cat f <&- > o' 2> err
  hung "splice-cat f <&- > o"
  status_in 0 st "splice-cat f <&- > o"
  same f o
  closed_run ">&-" "splice-cat f"
  status_in 1 st "splice-cat f >&-"
  mentions err "standard output"
  for cmd in "splice-cat f" "splice-cat" "splice-cat f -"; do
    closed_run "<&- >&- 2>&-" "$cmd"
    status_in 1 st "$cmd, 0 1 2 closed"
  done
  # A failing operand with 0 and 2 closed: the message goes nowhere, never
  # into the output; the files are copied.
  random_file g 1000
  cat f g > ref
  run_status st timeout 10 sh -c 'exec splice-cat f nofile g <&- 2>&- > o'
  hung "splice-cat f nofile g <&- 2>&-"
  status_in 1 st "splice-cat f nofile g <&- 2>&-"
  same ref o
}

tcase t_cat_closed_fds_not_reused "splice-cat with 0 and 2 closed: no file or pipe of its own lands on 0-2 (strace)"
t_cat_closed_fds_not_reused() {
  need_fd_trace
  random_file f 300000
  random_file g 1000
  for r in "<&-" "2>&-" "<&- 2>&-"; do
    fd_trace "$r" "splice-cat f g"
    status_in 0 st "splice-cat f g $r"
    not_on_0_2 "splice-cat f g $r"
  done
  # File to file through its internal pipe (copy_file_range refused).
  needs_fallback
  run_status st inject -o trace -t execve,openat,pipe2,copy_file_range copy_file_range:EXDEV:1+ \
    timeout 10 sh -c 'exec splice-cat f g <&- 2>&- > o'
  status_in 0 st "splice-cat f g > o, 0 and 2 closed, no copy_file_range"
  cat f g > ref
  same ref o
  not_on_0_2 "splice-cat f g > o, internal pipe"
}

tcase t_cat_pipe_resized_mid_stream "splice-cat: reader or writer grows or shrinks the pipe mid-stream: exact"
t_cat_pipe_resized_mid_stream() {
  seq_ref ref 16777216
  parts ref
  reader_resizes "splice-cat --pipe-size 64K" 1M splice-cat --pipe-size 64K ref
  reader_resizes "splice-cat" 4K splice-cat ref
  writer_resizes "splice-cat" 1M splice-cat
  writer_resizes "splice-cat" 4K splice-cat
}

tcase t_cat_out_of_descriptors "splice-cat: pipe2 EMFILE/ENFILE (internal pipe), openat ENFILE, low ulimit -n"
t_cat_out_of_descriptors() {
  need strace
  random_file f 3000000
  random_file g 1000
  cat f g > ref
  if [ -z "${STRICT:-}" ]; then
    for err in EMFILE ENFILE; do
      # File to file: no copy_file_range, no pipe: read/write, exact.
      run_status st inject copy_file_range:EXDEV:1+ pipe2:"$err":1+ timeout 10 \
        splice-cat f g > o 2> err
      cat err >&2
      status_in 0 st "splice-cat f g > o, no copy_file_range, pipe2 $err"
      same ref o
    done
  fi
  # An operand that cannot be opened (ENFILE): named, the rest copied, exit 1.
  # Only the opening of f fails (-P f): the loader's openat calls come first.
  { run_status st traced -o /dev/null -P f -e trace=openat \
    -e inject=openat:error=ENFILE:when=1+ splice-cat g f g 2> err; } | cat > out
  status_in 1 st "splice-cat g f g, openat f ENFILE"
  mentions err "f: Too many open files in system"
  cat g g > ref2
  same ref2 out
  # No descriptor to spare: one for the operand and none more; stdout a
  # file, then a pipe.  (No redirection after ulimit: sh saves descriptors
  # at 10 and up.)
  lim=$(limit_for 1)
  # The binary itself: the --strict wrapper, a script, would need a descriptor.
  run="ulimit -n $lim; exec \"$BINDIR/splice-cat\" ${STRICT:+--strict} f g"
  run_status st timeout 10 sh -c "$run" > o2 2> err
  cat err >&2
  status_in 0 st "splice-cat f g > file under ulimit -n $lim"
  same ref o2
  { run_status st timeout 10 sh -c "$run" 2> err; } | cat > o3
  cat err >&2
  status_in 0 st "splice-cat f g | under ulimit -n $lim"
  same ref o3
}

tcase t_cat_signals_mid_transfer "splice-cat: SIGTERM, SIGINT, SIGHUP mid-transfer: exit 128+N, nothing left"
t_cat_signals_mid_transfer() {
  need_default_signal
  mkfifo a b
  for sig in TERM INT HUP; do
    feed a
    drain b
    start_tool /dev/null b err splice-cat a
    signalled splice-cat "$sig" b.got
  done
}

tcase t_eintr_splice "EINTR injected into the 3rd splice: retried, byte-exact"
t_eintr_splice() {
  need strace
  random_file f 5000000
  run_status st inject splice:EINTR:3 splice-cat --chunk 64K f | cat > out
  status_in 0 st "splice-cat under EINTR"
  same f out
  cat f | inject splice:EINTR:3 splice-cat --chunk 64K > out2 || fail "pipe to file under EINTR"
  same f out2
}

tcase t_eagain_splice "EAGAIN injected into the 3rd splice: waited out with poll, byte-exact"
t_eagain_splice() {
  need strace
  random_file f 5000000
  run_status st inject splice:EAGAIN:3 splice-cat --chunk 64K f | cat > out
  status_in 0 st "splice-cat under EAGAIN"
  same f out
}

tcase t_einval_first_splice "EINVAL injected into the 1st splice: read/write fallback, byte-exact"
t_einval_first_splice() {
  needs_fallback
  need strace
  random_file f 5000000
  run_status st inject splice:EINVAL:1 splice-cat f | cat > out
  status_in 0 st "splice-cat under EINVAL"
  same f out
}

tcase t_einval_mid_splice "EINVAL after bytes moved: an error, not a fallback, exit 1, not silence"
t_einval_mid_splice() {
  need strace
  random_file f 5000000
  # file -> pipe: a pipe fails only by losing its reader, so the file is named.
  run_status st inject splice:EINVAL:3 splice-cat --chunk 64K f 2> err |
    cat > out
  status_in 1 st "splice-cat with EINVAL mid-stream"
  mentions err "splice-cat: f: Invalid argument"
  [ "$(wc -c < out)" -lt 5000000 ] || fail "all bytes arrived, yet an error was injected"
  # pipe -> pipe: either could have failed; both are named.
  { cat f | run_status st inject splice:EINVAL:3 splice-cat --chunk 64K 2> err2; } | cat > out2
  status_in 1 st "pipe to pipe with EINVAL mid-stream"
  mentions err2 "standard input -> standard output: splice: Invalid argument"
}

tcase t_eio_input "EIO from the input mid-stream: reported against the input, exit 1"
t_eio_input() {
  need strace
  random_file f 5000000
  random_file g 1000
  run_status st inject splice:EIO:3 splice-cat --chunk 64K f g 2> err |
    cat > out
  status_in 1 st "splice-cat with EIO from f"
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
  status_in 1 st "file -> full tmpfs"
  mentions err "No space left on device"
  status_in 1 st2 "pipe -> full tmpfs"
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

tcase --alone t_unreadable "an unreadable file: permission error, the others copied, exit 1"
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
  status_in 1 st "splice-cat a secret b"
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
  memory_dir
  truncate -s 4294967297 "$MEM/big"
  splice-cat --verbose "$MEM/big" 2> err | splice-cat --verbose > /dev/null 2> err2
  mentions err ": 4294967297 bytes"
  mentions err2 ": 4294967297 bytes"
}

tcase t_cat_closed_stdin_named "stdin closed, splice-cat needs it: 'standard input', exit 1; the operand before '-' copied"
t_cat_closed_stdin_named() {
  echo small > small
  # The commands as users typed them: stdout a file or /dev/null.
  for cmd in "splice-cat <&- > out" "splice-cat - <&- > /dev/null" "splice-cat small - <&- > out"; do
    rm -f out
    needs_stdin "$cmd"
  done
  # As cat: the operand before '-' is copied.
  run_status st timeout 10 sh -c 'exec splice-cat small - <&- > out' 2> err
  same small out
}

tcase t_skip_past_end "--skip past the end of the input: dd's warning, 'cannot skip to specified offset', exit 0, nothing out"
t_skip_past_end() {
  printf 0123456789 > ten
  run_status st dd if=ten of=/dev/null skip=100 bs=1 2> dd.err
  mentions dd.err "^dd: ten: cannot skip to specified offset$"
  for way in file pipe; do
    if [ $way = file ]; then
      run_status st splice-cat --skip 100 ten > out 2> err
      name=ten
    else
      cat ten | run_status st splice-cat --skip 100 > out 2> err
      name="standard input"
    fi
    status_in 0 st "splice-cat --skip 100 of 10 bytes ($way), as dd's status"
    [ "$(cat err)" = "splice-cat: $name: cannot skip to specified offset" ] ||
      { cat err >&2; fail "$way: not dd's warning"; }
    [ ! -s out ] || fail "$way: bytes out"
  done
  # Over two operands as one stream: inside it, quiet; past it, the last named.
  splice-cat --skip 15 ten ten > out 2> err || fail "--skip 15 of 20"
  [ "$(cat out)" = 56789 ] && [ ! -s err ] || fail "--skip 15 of two 10-byte files: '$(cat out)'"
  splice-cat --skip 10 ten > out 2> err || fail "--skip 10 of 10"
  [ ! -s out ] && [ ! -s err ] || fail "--skip to the very end warned"
  splice-cat --skip 25 ten ten > out 2> err || fail "--skip 25 of 20"
  mentions err "^splice-cat: ten: cannot skip to specified offset$"
}

tcase t_seek_patch "--seek N: an image patched in place, as dd seek=N conv=notrunc, from a file or a pipe, inside or past the end; a pipe or an O_APPEND output refused"
t_seek_patch() {
  random_file img 1048576
  random_file patch 5000
  for at in 0 8K 1000001 2M; do
    cp img got
    cp img want
    splice-cat --seek "$at" patch 1<> got || fail "--seek $at"
    dd if=patch of=want seek="$at" oflag=seek_bytes conv=notrunc 2> /dev/null || fail "dd seek=$at"
    same want got
    # The bytes from a pipe, and over two operands, land alike.
    cp img got
    cat patch | splice-cat --seek "$at" - patch 1<> got || fail "--seek $at from a pipe"
    cp img want
    cat patch patch | dd of=want seek="$at" oflag=seek_bytes conv=notrunc 2> /dev/null
    same want got
  done
  # Past the end: a hole up to the bytes, as dd leaves.
  [ "$(stat -c %s got)" = $((2097152 + 10000)) ] || fail "--seek 2M: size $(stat -c %s got)"
  { run_status st splice-cat --seek 8K patch 2> err; } | cat > out
  status_in 1 st "--seek into a pipe"
  mentions err "^splice-cat: standard output: cannot seek: Illegal seek$"
  [ ! -s out ] || fail "--seek into a pipe: bytes went out"
  # Nothing copied: past the end or not, the file keeps its size, as dd's.
  head -c 1000 img > small
  splice-cat --skip 5000 --seek 6000 patch 1<> small 2> /dev/null || fail "--seek, nothing to copy"
  [ "$(stat -c %s small)" = 1000 ] || fail "--seek 6000 with nothing copied: size $(stat -c %s small)"
  # (--sparse reads through user space, which --strict refuses.)
  if [ -z "${STRICT:-}" ]; then
    splice-cat --sparse --seek 6000 < /dev/null 1<> small || fail "--sparse --seek, nothing"
    [ "$(stat -c %s small)" = 1000 ] || fail "--sparse --seek 6000, nothing: size $(stat -c %s small)"
  fi
  cp img got
  run_status st splice-cat --seek 8K patch >> got 2> err
  status_in 1 st "--seek onto O_APPEND"
  mentions err "O_APPEND"
  same img got
}

tcase t_sparse_writes "--sparse: blocks of zeros from a pipe left as holes, as dd conv=sparse (a trailing run too); zeros written inside what a file held; --strict refuses"
t_sparse_writes() {
  # --sparse reads every byte through user space, as dd conv=sparse.
  needs_fallback
  { head -c 65536 /dev/urandom; head -c 16M /dev/zero; head -c 4096 /dev/urandom
    head -c 1M /dev/zero; } > ref
  cat ref | splice-cat --sparse --verbose > got 2> err || fail "--sparse from a pipe"
  same ref got
  cat ref | dd of=dd.out conv=sparse 2> /dev/null
  # What is allocated, in KiB: dd's, and far below the 17 MiB written without.
  got_k=$(du -k got | cut -f1) dd_k=$(du -k dd.out | cut -f1)
  [ "$got_k" -le $((dd_k + 64)) ] || fail "--sparse allocated $got_k KiB, dd conv=sparse $dd_k"
  [ "$got_k" -lt 1024 ] || skip "this file system allocates holes ($got_k KiB)"
  mentions err "^splice-cat: 17825792 bytes of zeros left as holes$"
  cat ref | splice-cat > full
  [ "$(du -k full | cut -f1)" -gt 16384 ] || fail "without --sparse, holes too"
  # Inside what the file held, the zeros are written: no old byte stays.
  random_file img 1048576
  cp img want
  head -c 100000 /dev/zero | splice-cat --sparse --seek 4096 1<> img || fail "--sparse --seek"
  head -c 100000 /dev/zero | dd of=want seek=4096 oflag=seek_bytes conv=notrunc 2> /dev/null
  same want img
  run_status st "$BINDIR/splice-cat" --strict --sparse ref > out 2> err
  status_in 2 st "--strict --sparse"
  mentions err "--sparse reads every byte through user space"
}

run_area "$@"
