#!/bin/sh
# Edges: every tool at the edges of its environment, not only in
# ordinary use.  First one case per bug found outside the harness (e_r1 .. e_r13),
# then the classes every tool must pass from now on: descriptors 0, 1, 2
# closed (e_closed_*), the other end of a pipe resizing it mid-stream
# (e_resize_*), resource exhaustion (e_res_*), --strict refusals that move no
# data (e_strict_*), SIGTERM/SIGINT/SIGHUP mid-transfer (e_sig_*), and
# --help/--version/results into /dev/full or a closed descriptor (e_out_*).
# A command that may hang runs under `timeout 10`, so a hang fails quickly;
# processes are ended only by the pids this script started.
. "${TESTS:?run me through tests/run.sh}/lib.sh"


# Background pids of the case (timeout(1), setsid'd tools, feeders, sinks):
# at exit each is ended with its children, by pid, if still there.
BG=
cleanup() {
  for p in $BG; do
    # shellcheck disable=SC2046 # one pid per word
    kill $(cat "/proc/$p/task/$p/children" 2> /dev/null) "$p" 2> /dev/null || :
  done
}
trap cleanup EXIT

bg_started() {
  BG="$BG $!"
}

# hung WHAT: fails when the last run_status (file "st") was ended by timeout(1).
hung() {
  [ "$(cat st)" -ne 124 ] || fail "$1: hung (killed by timeout 10)"
}

# start_receiver SECS: splice-fromnet on 127.0.0.1, port 0, into the file
# out (stderr: ferr) for at most SECS; sets rpid and port.
start_receiver() {
  rm -f out ferr
  timeout "$1" splice-fromnet -b 127.0.0.1 0 > out 2> ferr &
  rpid=$!
  bg_started
  port=$(listen_port ferr "$rpid")
}

# ---- process helpers --------------------------------------------------------

# reap_within PID SECS WHAT: PID (our child) must end within SECS; REAPED is
# its status.  One still running is killed and fails the case.
reap_within() {
  _n=0
  while [ -n "$(state_of "$1")" ] && [ "$(state_of "$1")" != Z ]; do
    _n=$((_n + 1))
    if [ $_n -gt $(($2 * 10)) ]; then
      kill -KILL "$1" 2> /dev/null || :
      fail "$3: still running $2 s after the signal"
    fi
    sleep 0.1
  done
  set +e
  wait "$1"
  REAPED=$?
  set -e
}

# session_left SID: pids of live (not zombie) processes of session SID.
session_left() {
  for _d in /proc/[0-9]*; do
    _s=$(sed 's/.*) //' "$_d/stat" 2> /dev/null) || continue
    # shellcheck disable=SC2086 # fields: state ppid pgrp session ...
    set -- $_s
    [ "${4:-}" = "$SID_WANTED" ] && [ "$1" != Z ] && echo "${_d#/proc/}"
  done
  :
}

# no_leftovers SID WHAT: no process of the session SID (the tool's own, made
# with setsid) outlives the tool; any found are ended by pid and fail the case.
no_leftovers() {
  SID_WANTED=$1
  # A child may take a moment to see its parent die: 5 s on a loaded machine.
  _left=
  for _i in $(seq 100); do
    _left=$(session_left)
    [ -n "$_left" ] || return 0
    sleep 0.05
  done
  # shellcheck disable=SC2086
  kill -KILL $_left 2> /dev/null || :
  fail "$2: processes left behind: $_left"
}

# start_tool IN OUT ERR CMD...: CMD in its own session (setsid, so its
# children can be found), every signal at its default (a background job
# starts with SIGINT ignored), stdin IN, stdout OUT, stderr ERR (given here:
# sh gives an asynchronous command /dev/null for stdin otherwise).  TPID is
# its pid and session id.
start_tool() {
  _in=$1 _out=$2 _err=$3
  shift 3
  setsid env --default-signal "$@" < "$_in" > "$_out" 2> "$_err" &
  TPID=$!
  bg_started
  wait_until "setup: $1 never became a session leader" leads_session "$TPID"
}

# leads_session PID: PID has run setsid(2): its session is its own.
leads_session() {
  [ "$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f4)" = "$1" ]
}

# has_children PID: PID has forked (splice-bench: its workers run).
has_children() {
  [ -n "$(ps -o pid= --ppid "$1" 2> /dev/null)" ]
}

sig_number() {
  case $1 in TERM) echo 15 ;; INT) echo 2 ;; HUP) echo 1 ;; esac
}

need_default_signal() {
  need setsid
  env --default-signal true 2> /dev/null || skip "env --default-signal is not supported"
}

# ---- descriptor helpers -----------------------------------------------------

# closed_run REDIRS CMD: `exec CMD REDIRS` under timeout 10, stdin a pipe
# from the file "in" (made empty if absent), stdout a pipe into "out", stderr
# "err" (each unless REDIRS closes it); status in "st"; a hang fails.
closed_run() {
  [ -e in ] || : > in
  rm -f out err
  { cat in 2> /dev/null | run_status st timeout 10 sh -c "exec $2 $1" 2> err; } | cat > out
  hung "$2 $1"
}

# fd_trace REDIRS CMD: as closed_run, under strace -f recording the calls
# that make descriptors, into "trace".
fd_trace() {
  [ -e in ] || : > in
  rm -f out err
  { cat in 2> /dev/null | run_status st traced -f -o trace \
    -e trace=execve,open,openat,creat,pipe,pipe2,socket,accept,accept4,eventfd2,memfd_create,epoll_create1 \
    sh -c "exec $2 $1" 2> err; } | cat > out
  hung "$2 $1 (strace)"
}

# not_on_0_2 WHAT: in "trace", after the last execve (the tool's), no file,
# pipe or socket landed on descriptor 0, 1 or 2 but /dev/null (the filler)
# and the dynamic loader's own files.
not_on_0_2() {
  _start=$(grep -n 'execve(.*) = 0$' trace | tail -n 1 | cut -d: -f1)
  [ -n "$_start" ] || fail "$1: no execve of the tool in the trace"
  tail -n +"$_start" trace |
    grep -E '(open|openat|creat|socket|accept|accept4|eventfd2|memfd_create|epoll_create1)\(.*\) = [0-2]( |$)|resumed>.*\) = [0-2]( |$)|pipe2?\(\[([0-2],|[0-9]+, [0-2]\])' |
    grep -v -E '"(/dev/null|/etc/ld\.so[^"]*|/lib[^"]*|/usr/lib[^"]*|/proc/self/[^"]*)"' > bad || :
  [ ! -s bad ] || { cat bad >&2; fail "$1: a descriptor of the tool landed on 0-2"; }
}

need_fd_trace() {
  need strace
  [ -z "${VALGRIND:-}" ] || skip "valgrind's own files would land on the closed descriptors"
}

# ==== bugs found outside the harness, one case each ============================

tcase e_r1_tee_reader_grows "splice-tee --pipe-size 64K, reader grows its pipe while tee(2) blocks: exact"
e_r1_tee_reader_grows() {
  seq_ref ref 33554432
  { splice-cat ref | run_status st splice-tee --pipe-size 64K a b 2> err; } |
    { sleep 1; vmsplice-touser --pipe-size 1M --verify seq -c > n; }
  cat err >&2
  status 0 "$(cat st)" "splice-tee --pipe-size 64K a b"
  count_is n 33554432
  same ref a
  same ref b
}

tcase e_r2_tee_low_ulimit "splice-tee, ulimit -n leaves no room for its pipe: every byte, as tee"
e_r2_tee_low_ulimit() {
  needs_fallback
  # Free descriptors under a limit of 64 in what this shell passes on.
  used=$(sh -c 'ls /proc/$$/fd' | awk '$1 < 64' | wc -l)
  free=$((64 - used))
  [ "$free" -ge 4 ] || skip "only $free descriptors free under 64"
  # Exactly enough descriptors for the files, none for a pipe.
  names=$(seq -f 'f%g' 1 "$free" | tr '\n' ' ')
  seq 1 100000 > in
  # shellcheck disable=SC2086
  run_status refst sh -c "ulimit -n 64; cat in | tee $names | cat > ref" 2> referr
  [ "$(cat refst)" -eq 0 ] || skip "setup: GNU tee could not open $free files: $(cat referr)"
  # shellcheck disable=SC2086
  rm -f $names
  # shellcheck disable=SC2086
  run_status st timeout 10 sh -c "ulimit -n 64; cat in | splice-tee $names | cat > out" 2> err
  cat err >&2
  hung "splice-tee under ulimit -n 64"
  status 0 "$(cat st)" "splice-tee with $free files under ulimit -n 64"
  same in out
  for f in $names; do
    same in "$f"
  done
}

tcase e_r2_tee_pipe2_emfile "splice-tee, EMFILE injected into every pipe2: read/write fallback, exact"
e_r2_tee_pipe2_emfile() {
  needs_fallback
  need strace
  random_file in 3000000
  for files in "f1" "f1 f2" "f1 f2 f3"; do
    rm -f f1 f2 f3
    # shellcheck disable=SC2086
    { cat in | run_status st inject pipe2:EMFILE:1+ timeout 10 splice-tee $files 2> err; } |
      cat > out
    cat err >&2
    hung "splice-tee $files with pipe2 EMFILE"
    status 0 "$(cat st)" "splice-tee $files with pipe2 EMFILE"
    same in out
    for f in $files; do
      same in "$f"
    done
  done
}

tcase e_r3_tee_stderr_closed "splice-tee 2>&-: its messages never land in an output file"
e_r3_tee_stderr_closed() {
  run_status st timeout 10 sh -c 'echo data | splice-tee out nodir/x 2>&- > /dev/null'
  hung "splice-tee out nodir/x 2>&-"
  status 1 "$(cat st)" "splice-tee out nodir/x 2>&-"
  echo data > ref
  if [ -n "${STRICT:-}" ]; then
    # --strict refuses a stdout that is not a pipe: nothing, not even a message.
    [ ! -s out ] || fail "splice-tee --strict ... > /dev/null wrote into out"
  else
    same ref out
  fi
  # Through a pipe, as --strict allows.
  rm -f out
  run_status st timeout 10 sh -c 'echo data | splice-tee out nodir/x 2>&- | cat > /dev/null'
  hung "splice-tee out nodir/x 2>&- | cat"
  status 0 "$(cat st)" "splice-tee out nodir/x 2>&- | cat (cat's status)"
  same ref out
}

tcase e_r4_strict_append "splice-cat --strict f >> g: refused before one byte moves by read/write"
e_r4_strict_append() {
  need strace
  random_file in 3000000
  echo old > g
  echo old > ref
  run_status st traced -o trace -e trace=execve,openat,read,write,readv,writev,pread64,pwrite64 \
    splice-cat --strict in >> g 2> err
  status 1 "$(cat st)" "splice-cat --strict in >> g"
  same ref g
  data_moved trace in
}

tcase e_r5_closed_stdin "stdin closed, splice-cat and splice-tee need it: 'standard input', exit 1"
e_r5_closed_stdin() {
  echo small > small
  # The commands as users typed them: stdout a file, /dev/null or a pipe.
  for cmd in "splice-cat <&- > out" "splice-cat - <&- > /dev/null" "splice-cat small - <&- > out" \
    "splice-tee <&- > out" "splice-tee <&- | cat > out" "splice-tee t1 <&- > out"; do
    rm -f out
    run_status st timeout 10 sh -c "$cmd; exit \$?" 2> err
    hung "$cmd"
    # (the pipeline's status is cat's: splice-tee's is checked below)
    case $cmd in *"| cat"*) ;; *) status 1 "$(cat st)" "$cmd" ;; esac
    mentions err "standard input"
  done
  run_status st timeout 10 sh -c 'exec splice-tee <&-' > out 2> err
  status 1 "$(cat st)" "splice-tee <&- | cat"
  # As cat: the operand before '-' is copied.
  run_status st timeout 10 sh -c 'exec splice-cat small - <&- > out' 2> err
  same small out
}

tcase e_r6_touser_epipe "vmsplice-touser -d, SIGPIPE ignored, reader gone: stops, exit 1, a message"
e_r6_touser_epipe() {
  { run_status st timeout 10 sh -c \
    'trap "" PIPE; vmsplice -s inf 2> /dev/null | exec vmsplice-touser -d' 2> err; } |
    head -c 1 > /dev/null
  hung "vmsplice -s inf | vmsplice-touser -d | head -c 1"
  status 1 "$(cat st)" "vmsplice-touser -d with its reader gone"
  mentions err "vmsplice-touser: standard output"
}

tcase e_r7_bench_sigterm "splice-bench -s 1T, SIGTERM and SIGINT: ends, its workers reaped, 128+N"
e_r7_bench_sigterm() {
  need_default_signal
  for sig in TERM INT; do
    start_tool /dev/null out err splice-bench -s 1T -c pipe-rw-64k -c vmsplice-splice
    wait_until "splice-bench started no worker" has_children "$TPID"
    kill -"$sig" "$TPID"
    reap_within "$TPID" 5 "splice-bench after SIG$sig"
    no_leftovers "$TPID" "splice-bench after SIG$sig"
    status $((128 + $(sig_number "$sig"))) "$REAPED" "splice-bench after SIG$sig"
  done
}

tcase e_r8_help_full "every tool: --help > /dev/full and --version >&-: exit 1 with a message"
e_r8_help_full() {
  for tool in $TOOLS; do
    run_status st "$tool" --help > /dev/full 2> err
    status 1 "$(cat st)" "$tool --help > /dev/full"
    mentions err "No space left on device"
    run_status st "$tool" --version >&- 2> err
    status 1 "$(cat st)" "$tool --version >&-"
    mentions err "Bad file descriptor"
  done
}

tcase e_r9_bench_results "splice-bench: table into /dev/full or closed stdout: exit 1, a message"
e_r9_bench_results() {
  for redir in "> /dev/full" ">&-"; do
    for fmt in "" --csv; do
      run_status st timeout 20 sh -c "splice-bench -t 0.05 -c pipe-rw-64k $fmt $redir" 2> err
      hung "splice-bench $fmt $redir"
      status 1 "$(cat st)" "splice-bench $fmt $redir"
      mentions err "standard output"
    done
  done
}

tcase e_r9_bench_corrupt_small "splice-bench --corrupt with -s 100K, 1M+1, 4097: every case fails, exit 1"
e_r9_bench_corrupt_small() {
  for size in 100K 1048577 4097; do
    run_status st splice-bench --corrupt -t 0.05 -s "$size" --csv -c pipe-rw-64k \
      -c vmsplice-splice -c file-file-cfr -c tcp-sendfile -c tee-tee > out 2> err
    status 1 "$(cat st)" "splice-bench --corrupt -s $size"
    for c in pipe-rw-64k vmsplice-splice file-file-cfr tcp-sendfile tee-tee; do
      [ "$(awk -F, -v c="$c" '$1 == c { print $10 }' out)" = FAIL ] ||
        fail "-s $size: $c not marked FAIL: $(grep "^$c," out)"
    done
  done
}

tcase e_r10_decimal "fill:010 and random:010 are decimal 10, not octal; 0x10 is hex"
e_r10_decimal() {
  vmsplice -s 16 -p fill:010 | od -An -tx1 -v | tr -d ' \n' > got
  [ "$(cat got)" = 0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a ] || fail "fill:010 gave $(cat got)"
  vmsplice -s 16 -p fill:0x10 | od -An -tx1 -v | tr -d ' \n' > got
  [ "$(cat got)" = 10101010101010101010101010101010 ] || fail "fill:0x10 gave $(cat got)"
  vmsplice -s 4096 -p random:010 | cat > r010
  vmsplice -s 4096 -p random:10 | cat > r10
  vmsplice -s 4096 -p random:8 | cat > r8
  same r10 r010
  ! cmp -s r8 r010 || fail "random:010 is random:8"
  vmsplice -s 1M -p fill:10 | vmsplice-touser --verify fill:010 -c > n ||
    fail "--verify fill:010 refused fill:10 data"
}

tcase e_r11_dump_mismatch "--verify with -d: a mismatch keeps the last dump line and the final offset"
e_r11_dump_mismatch() {
  # 20 zero bytes but byte 18: mismatch at 18, a partial second line; the
  # dump stops after the first wrong byte, as the page says.
  printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1\0' > in
  head -c 19 in | od -A d -t x1z -v > ref
  { cat in | run_status st vmsplice-touser --verify zero -d 2> err; } | cat > out
  status 1 "$(cat st)" "vmsplice-touser --verify zero -d, a wrong byte"
  mentions err "18"
  same ref out
}

tcase e_r11_size_max "vmsplice -s 2^64-1 is a size, not endless (only 'inf' is)"
e_r11_size_max() {
  { vmsplice -v -s inf 2> inf.err; } | head -c 1M > /dev/null
  { run_status st vmsplice -v -s 18446744073709551615 2> max.err; } |
    head -c 1M > /dev/null
  # Refused as too large is fine too.
  [ "$(cat st)" -ne 2 ] || return 0
  grep -i 'zero' inf.err > inf.line || fail "no -v line for -s inf: $(cat inf.err)"
  grep -i 'zero' max.err > max.line || fail "no -v line for -s 2^64-1: $(cat max.err)"
  ! cmp -s inf.line max.line || fail "-s 18446744073709551615 taken as inf: $(cat max.line)"
}

tcase e_r12_tee_progress_page "splice-tee --progress counts what its page says it counts"
e_r12_tee_progress_page() {
  page=$TESTS/../man/splice-tee.1
  [ -f "$page" ] || skip "no man/splice-tee.1 beside tests/"
  random_file in 3000000
  cat in | splice-tee --progress f1 f2 2> err | cat > out
  same in out
  last=$(tr '\r' '\n' < err | grep 'bytes' | tail -n 1 | awk '{ print $1 }')
  [ -n "$last" ] || fail "no progress line: $(cat err)"
  # The page's sentence spans lines: join them.
  if tr '\n' ' ' < "$page" | grep -q 'counts the bytes delivered to every output'; then
    # stdout and two files: three outputs.
    [ "$last" -eq 9000000 ] ||
      fail "the page says --progress counts bytes delivered to every output; it counted $last of 3 x 3000000"
  elif tr '\n' ' ' < "$page" | grep -q 'counts the bytes taken from the standard input, once'; then
    [ "$last" -eq 3000000 ] ||
      fail "the page says --progress counts the input once; it counted $last of 3000000"
  else
    fail "the page does not say what --progress counts"
  fi
}

tcase e_r13_timeout_large "splice-fromnet --timeout past 2^31 ms: a finite wait (poll >= 0) or refused"
e_r13_timeout_large() {
  need strace
  for secs in 2147484 4294968 100000000 1e15; do
    rm -f trace
    run_status st traced -f -o trace -e trace=poll,ppoll timeout -s KILL 1 \
      splice-fromnet --timeout "$secs" -b 127.0.0.1 0 > /dev/null 2> err
    # Refused (a usage error) is allowed; so is a finite wait.
    [ "$(cat st)" -ne 2 ] || { mentions err "timeout"; continue; }
    grep -E '^[0-9]+ +p?poll\(' trace > polls || fail "--timeout $secs: no poll in the trace"
    ! grep -E 'poll\(.*, -[0-9]+(\)| <unfinished)' polls > bad ||
      fail "--timeout $secs: poll waits for ever: $(head -n 1 bad)"
  done
}

# data_moved TRACE FILE: in TRACE (strace -e execve,read,write,...), after
# the last execve (the tool's), no byte of FILE (its descriptor, or stdin)
# was read but by the loader, and nothing but messages (stderr) was written.
data_moved() {
  _start=$(grep -n '^execve(.*) = 0$' "$1" | tail -n 1 | cut -d: -f1)
  [ -n "$_start" ] || fail "no execve in $1"
  tail -n +"$_start" "$1" > trace.tool
  # Stdin anywhere; FILE's descriptor from the tool's openat of it on.
  grep -E "^(read|readv|pread64)\(0, .*= [1-9][0-9]*$" trace.tool > moved || :
  _at=$(grep -n "^openat(AT_FDCWD, \"$2\", .*) = [0-9]*$" trace.tool | head -n 1)
  if [ -n "$_at" ]; then
    _fd=${_at##* }
    tail -n +"${_at%%:*}" trace.tool |
      grep -E "^(read|readv|pread64)\($_fd, .*= [1-9][0-9]*$" >> moved || :
  fi
  grep -E '^(write|writev|pwrite64)\(([013-9]|[1-9][0-9]+), .*= [1-9][0-9]*$' trace.tool >> moved || :
  [ ! -s moved ] ||
    { cut -c1-100 moved | head -n 5 >&2; fail "--strict refused, yet data moved by read/write"; }
}

# ==== descriptors 0, 1 and 2 closed, one at a time and together =============

tcase e_closed_cat "splice-cat with 0, 1, 2 closed: needed ones named, exit 1; others filled, exact"
e_closed_cat() {
  random_file f 300000
  # stdin not needed: copied.
  for r in "<&-" "2>&-" "<&- 2>&-"; do
    closed_run "$r" "splice-cat f"
    status 0 "$(cat st)" "splice-cat f $r"
    same f out
  done
  # stdin needed (no operand, '-'): an error naming it.
  for cmd in "splice-cat" "splice-cat f -"; do
    closed_run "<&-" "$cmd"
    status 1 "$(cat st)" "$cmd <&-"
    mentions err "standard input"
  done
  # The same with stdout a regular file (then an internal pipe may be made).
  for cmd in "splice-cat" "splice-cat -" "splice-cat f -"; do
    run_status st timeout 10 sh -c "exec $cmd <&- > o" 2> err
    hung "$cmd <&- > o"
    status 1 "$(cat st)" "$cmd <&- > o"
    mentions err "standard input"
  done
  run_status st timeout 10 sh -c 'exec splice-cat f <&- > o' 2> err
  hung "splice-cat f <&- > o"
  status 0 "$(cat st)" "splice-cat f <&- > o"
  same f o
  closed_run ">&-" "splice-cat f"
  status 1 "$(cat st)" "splice-cat f >&-"
  mentions err "standard output"
  for cmd in "splice-cat f" "splice-cat" "splice-cat f -"; do
    closed_run "<&- >&- 2>&-" "$cmd"
    status 1 "$(cat st)" "$cmd, 0 1 2 closed"
  done
  # A failing operand with 0 and 2 closed: the message goes nowhere, never
  # into the output; the files are copied.
  random_file g 1000
  cat f g > ref
  run_status st timeout 10 sh -c 'exec splice-cat f nofile g <&- 2>&- > o'
  hung "splice-cat f nofile g <&- 2>&-"
  status 1 "$(cat st)" "splice-cat f nofile g <&- 2>&-"
  same ref o
}

tcase e_closed_cat_fds "splice-cat with 0 and 2 closed: no file or pipe of its own lands on 0-2 (strace)"
e_closed_cat_fds() {
  need_fd_trace
  random_file f 300000
  random_file g 1000
  for r in "<&-" "2>&-" "<&- 2>&-"; do
    fd_trace "$r" "splice-cat f g"
    status 0 "$(cat st)" "splice-cat f g $r"
    not_on_0_2 "splice-cat f g $r"
  done
  # File to file through its internal pipe (copy_file_range refused).
  needs_fallback
  run_status st inject -o trace -t execve,openat,pipe2,copy_file_range copy_file_range:EXDEV:1+ \
    timeout 10 sh -c 'exec splice-cat f g <&- 2>&- > o'
  status 0 "$(cat st)" "splice-cat f g > o, 0 and 2 closed, no copy_file_range"
  cat f g > ref
  same ref o
  not_on_0_2 "splice-cat f g > o, internal pipe"
}

tcase e_closed_tee "splice-tee with 0, 1, 2 closed: needed ones named, exit 1; files never hold messages"
e_closed_tee() {
  random_file in 300000
  closed_run "<&-" "splice-tee t1"
  status 1 "$(cat st)" "splice-tee t1 <&-"
  mentions err "standard input"
  closed_run ">&-" "splice-tee t1"
  status 1 "$(cat st)" "splice-tee t1 >&-"
  mentions err "standard output"
  closed_run "2>&-" "splice-tee t1"
  status 0 "$(cat st)" "splice-tee t1 2>&-"
  same in out
  same in t1
  rm -f t1
  closed_run "<&- >&- 2>&-" "splice-tee t1 nodir/x"
  status 1 "$(cat st)" "splice-tee t1 nodir/x, 0 1 2 closed"
  [ ! -s t1 ] || { od -c t1 | head -n 3 >&2; fail "t1 holds bytes though no input came"; }
  # stderr closed, a failing file: its message is not in t1, t1 is exact.
  closed_run "2>&-" "splice-tee t1 nodir/x t2"
  status 1 "$(cat st)" "splice-tee t1 nodir/x t2 2>&-"
  cmp -s in t1 ||
    fail "2>&-: t1 is not the input; it starts: $(head -c 60 t1 | tr -c '[:print:]' '.')"
  same in t2
  same in out
}

tcase e_closed_tee_fds "splice-tee with 2 closed: no file or pipe of its own lands on 2 (strace)"
e_closed_tee_fds() {
  need_fd_trace
  random_file in 300000
  fd_trace "2>&-" "splice-tee t1 t2 t3"
  status 0 "$(cat st)" "splice-tee t1 t2 t3 2>&-"
  not_on_0_2 "splice-tee t1 t2 t3 2>&-"
}

tcase e_closed_vmsplice "vmsplice with 0, 1, 2 closed: stdout needed (exit 1), the others filled, exact"
e_closed_vmsplice() {
  for r in "<&-" "2>&-" "<&- 2>&-"; do
    closed_run "$r" "vmsplice -p seq -s 3M"
    status 0 "$(cat st)" "vmsplice $r"
    vmsplice-touser --verify seq -c < out > n 2> /dev/null || [ -n "${STRICT:-}" ] ||
      fail "vmsplice $r: wrong bytes"
    [ "$(wc -c < out)" -eq 3145728 ] || fail "vmsplice $r: $(wc -c < out) bytes"
  done
  closed_run ">&-" "vmsplice -s 3M"
  status 1 "$(cat st)" "vmsplice >&-"
  mentions err "standard output"
  closed_run "<&- >&- 2>&-" "vmsplice -s 3M"
  status 1 "$(cat st)" "vmsplice, 0 1 2 closed"
  need_fd_trace
  fd_trace "<&- 2>&-" "vmsplice -p seq -s 3M"
  status 0 "$(cat st)" "vmsplice <&- 2>&- (strace)"
  not_on_0_2 "vmsplice <&- 2>&-"
}

tcase e_closed_touser "vmsplice-touser with 0, 1, 2 closed: needed ones named, exit 1; others filled"
e_closed_touser() {
  seq_ref in 3145728
  closed_run "<&-" "vmsplice-touser --verify seq -c"
  status 1 "$(cat st)" "vmsplice-touser <&-"
  mentions err "standard input"
  closed_run ">&-" "vmsplice-touser --verify seq -c"
  status 1 "$(cat st)" "vmsplice-touser -c >&-"
  mentions err "standard output"
  # --verify alone writes nothing on success: stdout not needed.
  closed_run ">&-" "vmsplice-touser --verify seq"
  status 0 "$(cat st)" "vmsplice-touser --verify seq >&-"
  closed_run "2>&-" "vmsplice-touser --verify seq -c"
  status 0 "$(cat st)" "vmsplice-touser 2>&-"
  count_is out 3145728
  closed_run "<&- >&- 2>&-" "vmsplice-touser -c"
  status 1 "$(cat st)" "vmsplice-touser -c, 0 1 2 closed"
  need_fd_trace
  fd_trace ">&- 2>&-" "vmsplice-touser --verify seq"
  status 0 "$(cat st)" "vmsplice-touser --verify seq >&- 2>&- (strace)"
  not_on_0_2 "vmsplice-touser --verify seq >&- 2>&-"
}

tcase e_closed_net "splice-fromnet and splice-tonet with 0, 1, 2 closed: named, exit 1, or exact"
e_closed_net() {
  random_file in 1000000
  # fromnet: stdout needed, at once (not after a connection); stdin not needed.
  run_status st timeout 10 splice-fromnet -b 127.0.0.1 0 >&- 2> err
  hung "splice-fromnet >&-"
  status 1 "$(cat st)" "splice-fromnet >&-"
  mentions err "standard output"
  run_status st timeout 10 sh -c 'exec splice-fromnet -b 127.0.0.1 0 <&- >&- 2>&-'
  hung "splice-fromnet, 0 1 2 closed"
  status 1 "$(cat st)" "splice-fromnet, 0 1 2 closed"
  rm -f ferr
  timeout 10 sh -c 'exec splice-fromnet -b 127.0.0.1 0 <&-' > out 2> ferr &
  rpid=$!
  bg_started
  port=$(listen_port ferr "$rpid")
  run_status st timeout 10 splice-tonet 127.0.0.1 "$port" < in 2> terr
  reap_within "$rpid" 10 "splice-fromnet <&-"
  status 0 "$REAPED" "splice-fromnet <&-"
  status 0 "$(cat st)" "splice-tonet to splice-fromnet <&-"
  same in out
  # tonet: stdin needed, and stdout for the peer's replies, both named
  # before any connection is tried; with --no-reply stdout is not needed.
  run_status st timeout 10 sh -c 'exec splice-tonet 127.0.0.1 9 <&-' 2> err
  hung "splice-tonet <&-"
  status 1 "$(cat st)" "splice-tonet <&-"
  mentions err "standard input"
  run_status st timeout 10 sh -c 'exec splice-tonet 127.0.0.1 9 >&-' < in 2> err
  hung "splice-tonet >&-"
  status 1 "$(cat st)" "splice-tonet >&-"
  mentions err "standard output: Bad file descriptor"
  for r in ">&-" "2>&-" ">&- 2>&-"; do
    start_receiver 10
    run_status st timeout 10 sh -c "exec splice-tonet --no-reply 127.0.0.1 $port < in $r" 2> terr
    reap_within "$rpid" 10 "splice-fromnet"
    hung "splice-tonet $r"
    status 0 "$(cat st)" "splice-tonet $r"
    same in out
  done
}

tcase e_closed_bench "splice-bench with 0, 1, 2 closed: stdout needed (exit 1), the others filled"
e_closed_bench() {
  for r in "<&-" "2>&-" "<&- 2>&-"; do
    closed_run "$r" "splice-bench -t 0.05 --csv -c pipe-rw-64k"
    status 0 "$(cat st)" "splice-bench $r"
    grep -q '^pipe-rw-64k,.*,yes$' out || fail "splice-bench $r: $(cat out)"
  done
  closed_run ">&-" "splice-bench -t 0.05 -c pipe-rw-64k"
  status 1 "$(cat st)" "splice-bench >&-"
  mentions err "standard output"
  closed_run "<&- >&- 2>&-" "splice-bench -t 0.05 -c pipe-rw-64k"
  status 1 "$(cat st)" "splice-bench, 0 1 2 closed"
  need_fd_trace
  fd_trace "<&- 2>&-" "splice-bench -t 0.05 --csv -c pipe-rw-64k -c file-file-splice -c tcp-splice"
  status 0 "$(cat st)" "splice-bench <&- 2>&- (strace)"
  not_on_0_2 "splice-bench <&- 2>&-"
}

# ==== the other end of a pipe resizing it mid-stream ========================
# The reader that resizes is vmsplice-touser --pipe-size (after a sleep, so
# the writer is blocked on a full pipe); the writer that resizes is
# splice-cat --pipe-size writing the second part of the stream.

# resize_delay: seconds before the other end resizes, a random moment from
# 0 to 0.5 (RESIZE_DELAY fixes it), named in the log to replay a failure.
resize_delay() {
  _d=${RESIZE_DELAY:-$(awk 'BEGIN { srand(); printf "%.2f", rand() / 2 }')}
  echo "resize after ${_d}s" >&2
  echo "$_d"
}

# parts REF: p1 (the first 4 MiB of REF) and p2 (the rest).
parts() {
  head -c 4194304 "$1" > p1
  tail -c +4194305 "$1" > p2
}

# reader_resizes WHAT SIZE CMD...: CMD's stdout read by vmsplice-touser
# --pipe-size SIZE --verify seq after resize_delay; checks every byte of seq "ref".
reader_resizes() {
  _what=$1 _size=$2
  shift 2
  _delay=$(resize_delay)
  { run_status st timeout 30 "$@" 2> err; } |
    { sleep "$_delay"; timeout 30 vmsplice-touser --pipe-size "$_size" --verify seq -c > n; }
  cat err >&2
  status 0 "$(cat st)" "$_what, reader resizes to $_size"
  count_is n "$(wc -c < ref)"
}

# writer_resizes WHAT SIZE CMD...: CMD's stdin gets p1, a pause, then p2 from
# splice-cat --pipe-size SIZE; CMD's output is verified by the caller.
writer_resizes() {
  _what=$1 _size=$2
  shift 2
  _delay=$(resize_delay)
  { cat p1; sleep "$_delay"; splice-cat --pipe-size "$_size" p2; } |
    { run_status st timeout 30 "$@" 2> err; } |
    timeout 30 vmsplice-touser --verify seq -c > n
  cat err >&2
  status 0 "$(cat st)" "$_what, writer resizes to $_size"
  count_is n "$(wc -c < ref)"
}

tcase e_resize_tee_unprivileged "splice-tee as a user, its stdin grown past pipe-max-size by root: exact"
e_resize_tee_unprivileged() {
  needs_fallback
  [ "$(id -u)" -eq 0 ] || skip "needs root to grow a pipe past pipe-max-size"
  need setpriv
  id nobody > /dev/null 2>&1 || skip "no user 'nobody' to become"
  max=$(cat /proc/sys/fs/pipe-max-size)
  got=$(: | splice-cat --verbose --pipe-size "$((max * 4))" 2>&1 | cat |
    sed -n 's/.*pipe capacity: \([0-9]*\) bytes.*/\1/p')
  [ "${got:-0}" -gt "$max" ] ||
    skip "root cannot grow a pipe past pipe-max-size here (no CAP_SYS_RESOURCE)"
  chmod 777 .
  seq_ref ref 16777216
  parts ref
  delay=$(resize_delay)
  # The internal pipe cannot follow the source past pipe-max-size: the rest
  # of each round goes by read/write, and every output still gets it all.
  { cat p1; sleep "$delay"; splice-cat --pipe-size "$((max * 4))" p2; } |
    { run_status st timeout 30 setpriv --reuid=nobody --regid=nogroup --clear-groups \
      "$(command -v splice-tee)" -v a b 2> err; } |
    timeout 30 vmsplice-touser --verify seq -c > n
  cat err >&2
  status 0 "$(cat st)" "splice-tee as nobody, stdin grown to $((max * 4))"
  count_is n 16777216
  same ref a
  same ref b
  mentions err "internal pipe"
}

tcase e_resize_cat "splice-cat: reader or writer grows or shrinks the pipe mid-stream: exact"
e_resize_cat() {
  seq_ref ref 16777216
  parts ref
  reader_resizes "splice-cat --pipe-size 64K" 1M splice-cat --pipe-size 64K ref
  reader_resizes "splice-cat" 4K splice-cat ref
  writer_resizes "splice-cat" 1M splice-cat
  writer_resizes "splice-cat" 4K splice-cat
}

tcase e_resize_tee "splice-tee: reader or writer grows or shrinks the pipe mid-stream: every output exact"
e_resize_tee() {
  seq_ref ref 16777216
  parts ref
  for ps in 64K 1M; do
    for size in 1M 4K; do
      rm -f a b
      delay=$(resize_delay)
      { splice-cat ref | run_status st timeout 30 splice-tee --pipe-size "$ps" a b 2> err; } |
        { sleep "$delay"; timeout 30 vmsplice-touser --pipe-size "$size" --verify seq -c > n; }
      cat err >&2
      status 0 "$(cat st)" "splice-tee --pipe-size $ps a b, reader resizes to $size"
      count_is n 16777216
      same ref a
      same ref b
    done
  done
  for size in 1M 4K; do
    rm -f a b
    writer_resizes "splice-tee a b" "$size" splice-tee a b
    same ref a
    same ref b
  done
}

tcase e_resize_vmsplice "vmsplice: the reader grows or shrinks the pipe mid-stream: exact"
e_resize_vmsplice() {
  seq_ref ref 33554432
  reader_resizes "vmsplice --pipe-size 64K" 1M vmsplice -p seq -s 32M --pipe-size 64K
  reader_resizes "vmsplice" 4K vmsplice -p seq -s 32M
  reader_resizes "vmsplice --reuse" 4K vmsplice --reuse -p seq -s 32M
}

tcase e_resize_touser "vmsplice-touser: the writer grows or shrinks its stdin pipe mid-stream: exact"
e_resize_touser() {
  seq_ref ref 16777216
  parts ref
  for size in 1M 4K; do
    { cat p1; sleep 0.5; splice-cat --pipe-size "$size" p2; } |
      { run_status st timeout 30 vmsplice-touser --verify seq -c > n 2> err; }
    cat err >&2
    status 0 "$(cat st)" "vmsplice-touser, writer resizes to $size"
    count_is n 16777216
  done
}

tcase e_resize_net "splice-fromnet (reader resizes) and splice-tonet (writer resizes): exact"
e_resize_net() {
  seq_ref ref 16777216
  parts ref
  for size in 1M 4K; do
    # splice-fromnet's stdout: the reader resizes it.
    rm -f ferr
    { run_status st timeout 30 splice-fromnet -b 127.0.0.1 0 2> ferr; } |
      { sleep 0.5; timeout 30 vmsplice-touser --pipe-size "$size" --verify seq -c > n; } &
    rpid=$!
    bg_started
    port=$(listen_port ferr "$rpid")
    splice-cat ref | timeout 30 splice-tonet 127.0.0.1 "$port" || fail "splice-tonet"
    reap_within "$rpid" 30 "splice-fromnet | vmsplice-touser"
    status 0 "$(cat st)" "splice-fromnet, reader resizes to $size"
    count_is n 16777216
    # splice-tonet's stdin: the writer resizes it.
    start_receiver 30
    { cat p1; sleep 0.5; splice-cat --pipe-size "$size" p2; } |
      timeout 30 splice-tonet 127.0.0.1 "$port" || fail "splice-tonet, writer resizes to $size"
    reap_within "$rpid" 30 "splice-fromnet"
    status 0 "$REAPED" "splice-fromnet"
    same ref out
  done
}

# ==== resource exhaustion ===================================================

# limit_for N: the lowest `ulimit -n` that leaves N descriptors free to a
# command run by `sh -c "ulimit -n L; exec CMD"` (descriptors already open,
# below the limit, take their slots).
limit_for() {
  sh -c 'ls /proc/$$/fd' > fds.now
  _l=3
  while [ $((_l - $(awk -v l=$_l '$1 < l' fds.now | wc -l))) -lt "$1" ]; do
    _l=$((_l + 1))
  done
  echo "$_l"
}


tcase e_res_tee_strict_untouched "splice-tee --strict, pipe2 EMFILE: exit 1, files not truncated, no output"
e_res_tee_strict_untouched() {
  need strace
  random_file in 1000000
  echo old > f1
  echo old > f2
  echo old > ref
  { cat in | run_status st inject pipe2:EMFILE:1+ timeout 10 splice-tee --strict f1 f2 2> err; } |
    cat > out
  hung "splice-tee --strict f1 f2 with pipe2 EMFILE"
  status 1 "$(cat st)" "splice-tee --strict f1 f2 with pipe2 EMFILE"
  mentions err "Too many open files"
  [ ! -s out ] || fail "$(wc -c < out) bytes written before the failure"
  same ref f1
  same ref f2
}

tcase e_res_cat "splice-cat: pipe2 EMFILE/ENFILE (internal pipe), openat ENFILE, low ulimit -n"
e_res_cat() {
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
      status 0 "$(cat st)" "splice-cat f g > o, no copy_file_range, pipe2 $err"
      same ref o
    done
  fi
  # An operand that cannot be opened (ENFILE): named, the rest copied, exit 1.
  # Only the opening of f fails (-P f): the loader's openat calls come first.
  { run_status st traced -o /dev/null -P f -e trace=openat \
    -e inject=openat:error=ENFILE:when=1+ splice-cat g f g 2> err; } | cat > out
  status 1 "$(cat st)" "splice-cat g f g, openat f ENFILE"
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
  status 0 "$(cat st)" "splice-cat f g > file under ulimit -n $lim"
  same ref o2
  { run_status st timeout 10 sh -c "$run" 2> err; } | cat > o3
  cat err >&2
  status 0 "$(cat st)" "splice-cat f g | under ulimit -n $lim"
  same ref o3
}

tcase e_res_vmsplice_enomem "vmsplice, vmsplice-touser: ENOMEM from their mmap: exit 1, a message, no output"
e_res_vmsplice_enomem() {
  need strace
  for tool in vmsplice vmsplice-touser; do
    ! grep -q __asan_init "$BINDIR/$tool" || skip "sanitizer runtime: its own mmaps would fail"
    # The binary itself (no wrapper), so that the count of mmaps is its own.
    # Skip the dynamic loader's mmaps: the tool's own come after rseq(2).
    if [ "$tool" = vmsplice ]; then
      traced -o trace -e trace=mmap,rseq,set_robust_list "$BINDIR/vmsplice" \
        ${STRICT:+--strict} -s 1M 2> /dev/null | cat > /dev/null
    else
      vmsplice -s 1M | traced -o trace -e trace=mmap,rseq,set_robust_list \
        "$BINDIR/vmsplice-touser" ${STRICT:+--strict} -c > /dev/null 2>&1
    fi
    k=$(awk '/^(rseq|set_robust_list)\(/ { print n; exit } /^mmap\(/ { n++ }' trace)
    [ -n "$k" ] || skip "no rseq/set_robust_list in the trace to tell the loader's mmaps"
    when=$((k + 1))
    # strace without -f, unlike inject: the WHEN-th mmap is the tool's own.
    if [ "$tool" = vmsplice ]; then
      { run_status st traced -o /dev/null -e trace=mmap \
        -e inject=mmap:error=ENOMEM:when="$when"+ \
        "$BINDIR/vmsplice" ${STRICT:+--strict} -p seq -s 8M 2> err; } | cat > out
      [ ! -s out ] || fail "vmsplice wrote $(wc -c < out) bytes though it has no buffer"
    else
      { vmsplice -p seq -s 8M | run_status st traced -o /dev/null -e trace=mmap \
        -e inject=mmap:error=ENOMEM:when="$when"+ "$BINDIR/vmsplice-touser" ${STRICT:+--strict} \
        --verify seq -c 2> err; } | cat > out
    fi
    hung "$tool with mmap ENOMEM"
    status 1 "$(cat st)" "$tool with mmap ENOMEM"
    mentions err "Cannot allocate memory"
  done
}

tcase e_res_net "socket EMFILE, pipe2 EMFILE, low ulimit -n: splice-fromnet/-tonet/-tee -n fail clearly"
e_res_net() {
  need strace
  random_file in 1000000
  run_status st inject socket:EMFILE:1+ timeout 10 splice-fromnet -b 127.0.0.1 0 > out 2> err
  hung "splice-fromnet with socket EMFILE"
  status 1 "$(cat st)" "splice-fromnet with socket EMFILE"
  mentions err "Too many open files"
  run_status st inject socket:EMFILE:1+ timeout 10 splice-tonet 127.0.0.1 9 < in > out 2> err
  hung "splice-tonet with socket EMFILE"
  status 1 "$(cat st)" "splice-tonet with socket EMFILE"
  mentions err "Too many open files"
  { cat in | run_status st inject socket:EMFILE:1+ timeout 10 splice-tee -n 127.0.0.1:9 f1 2> err; } |
    cat > out
  hung "splice-tee -n with socket EMFILE"
  status 1 "$(cat st)" "splice-tee -n with socket EMFILE"
  mentions err "Too many open files"
  # splice-fromnet to a file needs an internal pipe: pipe2 EMFILE falls back
  # (or is a clear error), and never loses bytes silently.
  inject pipe2:EMFILE:1+ timeout 10 splice-fromnet -b 127.0.0.1 0 > out 2> ferr &
  rpid=$!
  bg_started
  port=$(listen_port ferr "$rpid")
  timeout 10 splice-tonet 127.0.0.1 "$port" < in 2> /dev/null || :
  reap_within "$rpid" 10 "splice-fromnet with pipe2 EMFILE"
  if [ "$REAPED" -eq 0 ]; then
    same in out
  else
    status 1 "$REAPED" "splice-fromnet with pipe2 EMFILE"
    grep -q 'Too many open files' ferr || { cat ferr >&2; fail "no message for pipe2 EMFILE"; }
  fi
  # ulimit -n: room for the listener only; the accepted socket fails:
  # a clear error at once, not a busy loop.
  lim=$(limit_for 1)
  rm -f ferr
  run="ulimit -n $lim; exec \"$BINDIR/splice-fromnet\" ${STRICT:+--strict} -b 127.0.0.1 0"
  timeout 10 sh -c "$run" > out 2> ferr &
  rpid=$!
  bg_started
  port=$(listen_port ferr "$rpid")
  timeout 10 splice-tonet 127.0.0.1 "$port" < in 2> /dev/null || :
  reap_within "$rpid" 10 "splice-fromnet under ulimit -n $lim"
  [ "$REAPED" -ne 124 ] || fail "splice-fromnet under ulimit -n $lim: hung"
  if [ "$REAPED" -eq 0 ]; then
    same in out
  else
    status 1 "$REAPED" "splice-fromnet under ulimit -n $lim"
    grep -q 'Too many open files' ferr || { cat ferr >&2; fail "no message under ulimit -n $lim"; }
  fi
}

# ==== --strict: a refused run moves no data by read/write ===================

# strict_trace CMD: runs sh -c CMD (stdin, stdout as CMD says) under strace
# recording the read/write family of calls of the tool into "trace".
strict_trace() {
  run_status st traced -o trace -e trace=execve,openat,read,write,readv,writev,pread64,pwrite64 \
    sh -c "exec $1" 2> err
  hung "$1"
  status 1 "$(cat st)" "$1"
  mentions err "strict"
}

tcase e_strict_no_data "--strict refusals (O_APPEND, files for pipes): strace shows no data moved"
e_strict_no_data() {
  need strace
  random_file in 3000000
  echo old > g
  cp g ref
  # splice-cat: a file and a pipe into O_APPEND.
  strict_trace "splice-cat --strict in >> g"
  data_moved trace in
  same ref g
  cat in | { run_status st traced -o trace -e trace=execve,openat,read,write,readv,writev \
    splice-cat --strict >> g 2> err; }
  status 1 "$(cat st)" "pipe | splice-cat --strict >> g"
  data_moved trace in
  same ref g
  # splice-tee: stdin a file, stdout a file.
  strict_trace "splice-tee --strict t1 < in > o"
  data_moved trace in
  cat in | { run_status st traced -o trace -e trace=execve,openat,read,write,readv,writev \
    splice-tee --strict t1 > o 2> err; }
  status 1 "$(cat st)" "pipe | splice-tee --strict t1 > o"
  data_moved trace in
  # vmsplice into a file, vmsplice-touser from a file.
  strict_trace "vmsplice --strict -s 3M > o"
  data_moved trace in
  [ ! -s o ] || fail "vmsplice --strict > o wrote $(wc -c < o) bytes"
  strict_trace "vmsplice-touser --strict -c < in > o"
  data_moved trace in
}

# ==== signals mid-transfer ==================================================

# feed FIFO: vmsplice -s inf -p seq into FIFO, in the background.
feed() {
  timeout 30 vmsplice -s inf -p seq > "$1" 2> /dev/null &
  bg_started
}

# drain FIFO: cat FIFO > /dev/null in the background; its first byte goes
# to the file FIFO.got, which says that bytes are flowing.
drain() {
  rm -f "$1.got"
  timeout 30 sh -c 'dd bs=1 count=1 of="$1.got" 2> /dev/null; exec cat > /dev/null' \
    sh "$1" < "$1" > /dev/null 2>&1 &
  bg_started
}

# signalled WHAT SIG [MARK]: send SIG to TPID mid-transfer, once its
# watcher thread runs and (with MARK, a file drain fills) bytes flow; it
# must end by 128+N within 5 s and leave no process of its session behind.
signalled() {
  wait_until "$1 never started its watcher thread" watching "$TPID"
  [ -z "${3:-}" ] || wait_until "$1: no byte reached its reader" nonempty "$3"
  [ "$(state_of "$TPID")" != Z ] && [ -n "$(state_of "$TPID")" ] ||
    { reap_within "$TPID" 1 "$1"; cat err >&2; fail "$1: ended before the signal (exit $REAPED)"; }
  kill -"$2" "$TPID"
  reap_within "$TPID" 5 "$1 after SIG$2"
  no_leftovers "$TPID" "$1 after SIG$2"
  status $((128 + $(sig_number "$2"))) "$REAPED" "$1 after SIG$2"
}

tcase e_sig_cat "splice-cat: SIGTERM, SIGINT, SIGHUP mid-transfer: exit 128+N, nothing left"
e_sig_cat() {
  need_default_signal
  mkfifo a b
  for sig in TERM INT HUP; do
    feed a
    drain b
    start_tool /dev/null b err splice-cat a
    signalled splice-cat "$sig" b.got
  done
}

tcase e_sig_tee "splice-tee: SIGTERM, SIGINT, SIGHUP mid-transfer: exit 128+N, nothing left"
e_sig_tee() {
  need_default_signal
  mkfifo a b
  for sig in TERM INT HUP; do
    feed a
    drain b
    start_tool a b err splice-tee /dev/null
    signalled splice-tee "$sig" b.got
  done
}

tcase e_sig_vmsplice "vmsplice and vmsplice-touser: SIGTERM, SIGINT, SIGHUP mid-transfer: 128+N"
e_sig_vmsplice() {
  need_default_signal
  mkfifo a b
  for sig in TERM INT HUP; do
    drain b
    start_tool /dev/null b err vmsplice -s inf -p seq
    signalled vmsplice "$sig" b.got
    # -d: its dump says that it reads.
    feed a
    drain b
    start_tool a b err vmsplice-touser --verify seq -d
    signalled vmsplice-touser "$sig" b.got
  done
}

tcase e_sig_net "splice-fromnet and splice-tonet: SIGTERM, SIGINT, SIGHUP mid-transfer: 128+N"
e_sig_net() {
  need_default_signal
  mkfifo a b
  for sig in TERM INT HUP; do
    # The receiver is the tool.
    drain b
    rm -f ferr
    start_tool /dev/null b ferr splice-fromnet -b 127.0.0.1 0
    port=$(listen_port ferr "$TPID")
    feed a
    timeout 30 splice-tonet 127.0.0.1 "$port" < a > /dev/null 2>&1 &
    bg_started
    cp ferr err
    signalled splice-fromnet "$sig" b.got
    # The sender is the tool.
    rm -f ferr
    timeout 30 splice-fromnet -b 127.0.0.1 0 > b 2> ferr &
    rpid=$!
    bg_started
    drain b
    port=$(listen_port ferr "$rpid")
    feed a
    start_tool a /dev/null err splice-tonet 127.0.0.1 "$port"
    signalled splice-tonet "$sig" b.got
  done
}

tcase e_sig_bench "splice-bench: SIGTERM, SIGINT, SIGHUP mid-run: exit 128+N, no worker left"
e_sig_bench() {
  need_default_signal
  for sig in TERM INT HUP; do
    for c in pipe-rw-64k tcp-splice tee-tee; do
      start_tool /dev/null out err splice-bench -s 1T -c "$c"
      wait_until "splice-bench -c $c started no worker" has_children "$TPID"
      signalled "splice-bench -c $c" "$sig"
    done
  done
}

# ==== descriptors opened with flags the tool did not choose ================

# flagged_run FLAGS_IN FLAGS_OUT CMD...: CMD with stdin the file "in" opened
# with FLAGS_IN and stdout the file "out" opened with FLAGS_OUT (with-flags);
# status in "st", stderr in "err".
flagged_run() {
  _fin=$1 _fout=$2
  shift 2
  run_status st timeout 10 "$WF" "0=in:$_fin" "1=out:$_fout" -- "$@" 2> err
  hung "$*, stdin $_fin, stdout $_fout"
}

tcase e_flags_std_files \
  "stdin, stdout files opened O_DIRECT, O_APPEND, O_SYNC, O_NONBLOCK: the bytes cat gives"
e_flags_std_files() {
  WF=$(helper with-flags)
  # Off every block boundary: O_DIRECT refuses an unaligned tail.
  random_file in 1000000
  cat -A < in > in.A
  flags="nonblock append sync"
  if "$WF" 0=in:direct -- true 2> /dev/null; then
    flags="$flags direct direct,sync direct,append"
  else
    echo "NOTE: O_DIRECT: this file system refuses it; not tested"
  fi
  for f in $flags; do
    for sides in "$f none" "none $f" "$f $f"; do
      fin=${sides% *} fout=${sides#* }
      for cmd in "splice-cat" "splice-cat -A" "splice-cat - -" "splice-tee" "splice-tee copy" \
        "splice-buffer -m 256K"; do
        # Fallbacks, which --strict forbids: -A reads and writes, tee(2)
        # needs pipes, splice(2) refuses an O_APPEND output.
        if [ -n "${STRICT:-}" ]; then
          case "$cmd $fout" in "splice-cat -A"* | splice-tee* | *append*) continue ;; esac
        fi
        # O_APPEND: after what the output held.
        : > want
        case $fout in *append*) printf 'before' | tee want > out ;; *) rm -f out ;; esac
        if [ "$cmd" = "splice-cat -A" ]; then cat in.A >> want; else cat in >> want; fi
        # shellcheck disable=SC2086 # CMD is words
        flagged_run "$fin" "$fout" $cmd
        status 0 "$(cat st)" "$cmd, stdin $fin, stdout $fout"
        cmp want out || fail "$cmd, stdin $fin, stdout $fout: not the bytes cat gives"
        [ "$cmd" != "splice-tee copy" ] || same in copy
      done
    done
  done
  # vmsplice writes a file, vmsplice-touser reads one, by write(2) and read(2).
  [ -z "${STRICT:-}" ] || return 0
  vmsplice -p seq -s 1000000 | cat > seq
  for f in $flags; do
    rm -f out
    case $f in *append*) : > out ;; esac
    run_status st timeout 10 "$WF" "1=out:$f" -- vmsplice -p seq -s 1000000 2> err
    status 0 "$(cat st)" "vmsplice, stdout $f"
    same seq out
    run_status st timeout 10 "$WF" "0=seq:$f" -- vmsplice-touser --verify seq -c > count 2> err
    status 0 "$(cat st)" "vmsplice-touser, stdin $f"
    counted count 1000000 "vmsplice-touser, stdin $f"
  done
}

# ==== multi-process tools under load ========================================

# busy_loops: two CPU-bound loops for the rest of the case, on a 2-core
# machine enough to delay any process by a time slice at any moment.
busy_loops() {
  for _b in 1 2; do
    sh -c 'while :; do :; done' &
    bg_started
  done
}

# workers_of PID: the pids of PID's children, one a line.
workers_of() {
  cat "/proc/$1/task/$1/children" 2> /dev/null | tr ' ' '\n' | grep . || :
}

tcase e_load_multiprocess \
  "splice-bench, net tools beside two busy loops: no hang, every byte; SIGTERM ends a sweep in 1 s"
e_load_multiprocess() {
  need_default_signal
  busy_loops
  # A worker that still held another's pipe slept in close(2) on its lock
  # while that one blocked in splice(2) into TCP: a run hung 2 times in 25.
  end=$(( $(date +%s) + 25 ))
  runs=0
  while [ "$(date +%s)" -lt "$end" ] && [ $runs -lt 40 ]; do
    runs=$((runs + 1))
    run_status st timeout -k 2 30 splice-bench --sweep -s 1M -c tcp-vmsplice-pipe -c tee-tee \
      > out 2> err
    [ "$(cat st)" -ne 124 ] && [ "$(cat st)" -ne 137 ] ||
      fail "splice-bench --sweep, run $runs beside two busy loops: hung"
    status 0 "$(cat st)" "splice-bench --sweep, run $runs beside two busy loops"
  done
  echo "NOTE: $runs sweeps beside two busy loops"
  # The net tools, the same way: every byte, no hang.
  random_file f 67108864
  start_receiver 60
  run_status st timeout 60 splice-tonet 127.0.0.1 "$port" < f 2> serr
  status 0 "$(cat st)" "splice-tonet beside two busy loops"
  reap_within "$rpid" 30 "splice-fromnet beside two busy loops"
  status 0 "$REAPED" "splice-fromnet beside two busy loops"
  same f out
  # SIGTERM mid-sweep: the tool and every worker gone within a second.
  start_tool /dev/null out err splice-bench --sweep -s 1G -c tcp-vmsplice-pipe
  _i=0
  until [ -n "$(workers_of "$TPID")" ]; do
    [ $_i -lt 100 ] || fail "splice-bench --sweep started no worker in 10 s"
    sleep 0.1
    _i=$((_i + 1))
  done
  kill -TERM "$TPID"
  reap_within "$TPID" 1 "splice-bench --sweep after SIGTERM"
  no_leftovers "$TPID" "splice-bench --sweep after SIGTERM"
  status 143 "$REAPED" "splice-bench --sweep after SIGTERM"
}

tcase e_pv_words "pv's --rate (and pv 1.9's --output) are no abbreviation of ours: usage errors, exit 2"
e_pv_words() {
  for cmd in "splice-cat" "splice-tee" "vmsplice -s 1M" "splice-tonet 127.0.0.1 9"; do
    for opt in --rate --rat; do
      # shellcheck disable=SC2086 # the command's words
      run_status st timeout 10 $cmd "$opt" 1 < /dev/null > out 2> err
      status 2 "$(cat st)" "$cmd $opt 1"
      mentions err "Try '${cmd%% *} --help'"
      [ ! -s out ] || fail "$cmd $opt 1 wrote to stdout"
    done
    mentions err "rate-limit"
  done
  for opt in --output --out; do
    run_status st timeout 10 splice-tee "$opt" f < /dev/null > out 2> err
    status 2 "$(cat st)" "splice-tee $opt f"
    [ ! -e f ] || fail "splice-tee $opt f wrote f"
  done
  # Ours, spelled out or abbreviated, still work.
  echo x > x
  splice-cat --rate-limit 1M x > out || fail "--rate-limit"
  splice-cat --rate-l 1M x > out || fail "--rate-l"
  # Pipes on both sides, which --strict needs.
  cat x | splice-tee --output-e=warn | cat > out || fail "--output-e=warn"
  same x out
}

# ==== --help, --version and results into /dev/full or a closed stdout ======

tcase e_out_help_version "every tool: --help and --version into /dev/full and a closed stdout: exit 1"
e_out_help_version() {
  for tool in $TOOLS; do
    for opt in --help -h --version -V; do
      run_status st "$tool" "$opt" > /dev/full 2> err
      status 1 "$(cat st)" "$tool $opt > /dev/full"
      mentions err "No space left on device"
      run_status st "$tool" "$opt" >&- 2> err
      status 1 "$(cat st)" "$tool $opt >&-"
      mentions err "Bad file descriptor"
    done
    # A reader gone: quiet, as cat (SIGPIPE at its default), never a hang.
    run_status st timeout 10 sh -c "env --default-signal=PIPE $tool --help | :" 2> err
    hung "$tool --help | :"
    [ ! -s err ] || { cat err >&2; fail "$tool --help | : printed a message"; }
  done
}

tcase e_out_results "results into /dev/full and a closed stdout: vmsplice-touser -c/-d, vmsplice: exit 1"
e_out_results() {
  for opts in "-c" "-d" "--verify seq -c"; do
    # shellcheck disable=SC2086
    { vmsplice -p seq -s 1M | run_status st timeout 10 vmsplice-touser $opts > /dev/full 2> err; }
    hung "vmsplice-touser $opts > /dev/full"
    status 1 "$(cat st)" "vmsplice-touser $opts > /dev/full"
    mentions err "No space left on device"
    # shellcheck disable=SC2086
    { vmsplice -p seq -s 1M | run_status st timeout 10 vmsplice-touser $opts >&- 2> err; }
    hung "vmsplice-touser $opts >&-"
    status 1 "$(cat st)" "vmsplice-touser $opts >&-"
    mentions err "standard output"
  done
  run_status st timeout 10 vmsplice -s 1M > /dev/full 2> err
  hung "vmsplice > /dev/full"
  status 1 "$(cat st)" "vmsplice > /dev/full"
  [ -n "${STRICT:-}" ] || mentions err "No space left on device"
}

run_area "$@"
