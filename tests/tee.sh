#!/bin/sh
# splice-tee: tee(1) on tee(2).  Every case checks the bytes of stdout and of
# every file, and the exit status; where coreutils tee can run the same
# command, its bytes and status are the reference.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

# files N: the names f1 .. fN.
files() {
  seq -f 'f%g' 1 "$1" | tr '\n' ' '
}

# all_same REF FILE...: every FILE is byte for byte REF.
all_same() {
  _ref=$1
  shift
  for _f in "$@"; do
    same "$_ref" "$_f"
  done
}

tcase --long t_sizes "stdin and stdout pipes: 0, 1, 65537 B and 16 MiB to 1, 2 and 13 files, as tee"
t_sizes() {
  # 16 MiB: 16 rounds of a grown pipe, each through every tee(2) and splice.
  for size in 0 1 65537 16777216; do
    random_file in "$size"
    for n in 1 2 13; do
      # shellcheck disable=SC2046
      { cat in | run_status st splice-tee $(files "$n"); } | cat > out
      status_in 0 st "splice-tee, $size bytes, $n files"
      # shellcheck disable=SC2046
      all_same in out $(files "$n")
      # shellcheck disable=SC2046
      rm -f $(files "$n")
      # shellcheck disable=SC2046
      { cat in | run_status refst tee $(files "$n"); } | cat > ref
      status "$(cat refst)" "$(cat st)" "status differs from tee's"
      same ref out
      # shellcheck disable=SC2046
      rm -f $(files "$n") out ref
    done
  done
}

tcase t_verbose_methods "-v: tee(2) feeds stdout and the middle files, the last file is spliced; the input's rate once"
t_verbose_methods() {
  random_file in 3000000
  cat in | splice-tee -v f1 f2 f3 2> err | cat > out
  all_same in out f1 f2 f3
  mentions err "9000000 bytes written by tee(2)$"
  mentions err "3000000 bytes written by splice(2)$"
  ! grep -q "read(2)/write(2)" err || fail "a fallback was used: $(cat err)"
  # The rate is the input's, said once: not the outputs' sum.
  mentions err "^splice-tee: 3000000 bytes read in [0-9.]* s ([0-9.]* MiB/s)$"
  [ "$(grep -c "/s)" err)" -eq 1 ] || { cat err >&2; fail "a rate said more than once"; }
  # What the methods sum, output by output.
  for o in "standard output" f1 f2 f3; do
    mentions err "^splice-tee: $o: 3000000 bytes$"
  done
  # One output: the input is spliced straight to it.
  cat in | splice-tee -v 2> err | cat > out
  same in out
  mentions err "3000000 bytes written by splice(2)"
  ! grep -q "^splice-tee: tee:" err || fail "tee(2) used with one output"
}

tcase t_append "-a onto existing files: appended after what was there, as tee -a"
t_append() {
  needs_fallback
  random_file in 200000
  for f in f1 f2 r1 r2; do echo "was here" > "$f"; done
  { cat in | run_status st splice-tee -a f1 f2; } | cat > out
  { cat in | run_status refst tee -a r1 r2; } | cat > ref
  status_in 0 st "splice-tee -a"
  status "$(cat refst)" "$(cat st)" "status differs from tee's"
  same ref out
  same r1 f1
  same r2 f2
  # Without -a the files are truncated.
  cat in | splice-tee f1 > /dev/null
  same in f1
}

tcase t_tee_strict_append "--strict -a: O_APPEND files refuse splice: each named, stdout whole, exit 1"
t_tee_strict_append() {
  random_file in 100000
  echo x > f1
  { cat in | run_status st splice-tee --strict -a f1 f2; } 2> err | cat > out
  status_in 1 st "splice-tee --strict -a"
  mentions err "f1: splice: .*strict"
  mentions err "f2: splice: .*strict"
  same in out
}

tcase t_chain "chains: splice-cat f | splice-tee a b | splice-cat > c (and vmsplice | splice-tee)"
t_chain() {
  random_file in 10485761
  { run_status st1 splice-cat in; } | { run_status st2 splice-tee a b; } | splice-cat > c
  status_in 0 st1 "splice-cat in"
  status_in 0 st2 "splice-tee a b"
  all_same in a b c
  splice-cat in | splice-tee a | splice-tee b | splice-tee c | splice-cat > d
  all_same in a b c d
  # --clear poisons every page vmsplice calls free: none may reach an output.
  # --verify accepts a short stream: -c says none was short.
  n=$(vmsplice -p seq --clear -s 64M | splice-tee a b | vmsplice-touser --verify seq -c) ||
    fail "vmsplice | splice-tee | vmsplice-touser --verify"
  [ "$n" -eq 67108864 ] || fail "splice-tee passed on $n bytes of 67108864"
  for f in a b; do
    cat "$f" | vmsplice-touser --verify seq || fail "the file $f behind vmsplice | splice-tee"
    [ "$(wc -c < "$f")" -eq 67108864 ] || fail "$f has $(wc -c < "$f") bytes"
  done
}

tcase t_stdin_file "stdin a regular file: same bytes; --strict: exit 1 naming tee(2)"
t_stdin_file() {
  random_file in 5000001
  if [ -z "${STRICT:-}" ]; then
    { run_status st splice-tee -v f1 f2 < in; } 2> err | cat > out
    status_in 0 st "splice-tee < file"
    all_same in out f1 f2
    mentions err "standard input is not a pipe"
    { run_status refst tee r1 r2 < in; } | cat > ref
    status "$(cat refst)" "$(cat st)" "status differs from tee's"
  fi
  rm -f f1 f2
  { run_status st splice-tee --strict f1 < in; } 2> err | cat > out
  status_in 1 st "splice-tee --strict < file"
  mentions err "standard input is not a pipe: tee(2)"
  mentions err "strict"
}

tcase t_tee_stdout_not_pipe "stdout a file, /dev/null, O_APPEND: same bytes; --strict: exit 1, tee(2)"
t_tee_stdout_not_pipe() {
  random_file in 3000000
  if [ -z "${STRICT:-}" ]; then
    cat in | splice-tee f1 f2 > out || fail "stdout a file"
    all_same in out f1 f2
    cat in | splice-tee f1 > /dev/null || fail "stdout /dev/null"
    same in f1
    echo "was here" > out
    echo "was here" > ref
    cat in | splice-tee f1 f2 >> out || fail "stdout O_APPEND"
    cat in | tee r1 >> ref || fail "tee stdout O_APPEND"
    same ref out
    all_same in f1 f2
    # Both sides files: nothing is a pipe.
    splice-tee f3 < in > out2 || fail "stdin and stdout files"
    all_same in out2 f3
  fi
  for target in out /dev/null; do
    run_status st sh -c 'cat in | splice-tee --strict f1 > "$1"' sh "$target" 2> err
    status_in 1 st "splice-tee --strict > $target"
    mentions err "standard output is not a pipe: tee(2)"
  done
  run_status st sh -c 'cat in | splice-tee --strict f1 >> out' 2> err
  status_in 1 st "splice-tee --strict >> out"
  mentions err "tee(2)"
}

tcase t_tee_dev_full "splice-tee /dev/full f2: /dev/full reported, f2 and stdout whole, exit 1, as tee"
t_tee_dev_full() {
  random_file in 1000000
  { cat in | run_status st splice-tee /dev/full f2; } 2> err | cat > out
  status_in 1 st "splice-tee /dev/full f2"
  mentions err "splice-tee: /dev/full: "
  [ "$(grep -c . err)" -eq 1 ] || fail "expected one message: $(cat err)"
  all_same in out f2
  { cat in | run_status refst tee /dev/full r2; } 2> /dev/null | cat > ref
  status "$(cat refst)" "$(cat st)" "status differs from tee's"
  # /dev/full in the middle and last.
  { cat in | run_status st splice-tee f1 /dev/full f2 /dev/full; } 2> err | cat > out
  status_in 1 st "splice-tee f1 /dev/full f2 /dev/full"
  [ "$(grep -c /dev/full err)" -eq 2 ] || fail "expected two messages: $(cat err)"
  all_same in out f1 f2
}

tcase t_fifo_reader_leaves "-p: a FIFO output whose reader leaves mid-stream, middle or last: others whole"
t_fifo_reader_leaves() {
  random_file in 10485760
  head -c 1000000 in > part
  for order in "p f1 f2" "f1 f2 p"; do
    rm -f p f1 f2 got
    mkfifo p
    head -c 1000000 < p > got &
    # shellcheck disable=SC2086
    { cat in | run_status st splice-tee -p $order; } 2> err | cat > out
    wait
    status_in 0 st "splice-tee -p $order"
    [ ! -s err ] || fail "-p printed: $(cat err)"
    all_same in out f1 f2
    same part got
    rm -f p r1 r2 got
    mkfifo p
    head -c 1000000 < p > got &
    { cat in | run_status refst tee -p p r1 r2; } | cat > /dev/null
    wait
    status "$(cat refst)" "$(cat st)" "status differs from tee -p's"
  done
}

tcase t_all_outputs_gone "every output failing: stops before input ends, exit 1, one message each"
t_all_outputs_gone() {
  needs_fallback
  # yes never ends: only stopping when no output is left ends this.
  run_status st sh -c 'yes | timeout 20 splice-tee /dev/full > /dev/full' 2> err
  status_in 1 st "yes | splice-tee /dev/full > /dev/full"
  [ "$(grep -c . err)" -eq 2 ] || fail "expected two messages: $(cat err)"
  mentions err "standard output"
  run_status refst sh -c 'yes | timeout 20 tee /dev/full > /dev/full' 2> /dev/null
  status "$(cat refst)" "$(cat st)" "status differs from tee's"
}

tcase t_sigpipe "| head -c 1: ends by SIGPIPE (141) as tee; -p: exit 0 and every file complete"
t_sigpipe() {
  random_file in 10485760
  { cat in in in | run_status st splice-tee f1 f2; } | head -c 1 > /dev/null
  { cat in in in | run_status refst tee r1 r2; } | head -c 1 > /dev/null
  status_in 141 st "splice-tee | head -c 1"
  status "$(cat refst)" "$(cat st)" "status differs from tee's"
  cat in in in > ref
  { cat ref | run_status st splice-tee -p f1 f2; } 2> err | head -c 1 > /dev/null
  status_in 0 st "splice-tee -p | head -c 1"
  [ ! -s err ] || fail "-p printed: $(cat err)"
  all_same ref f1 f2
  { cat ref | run_status refst tee -p r1 r2; } | head -c 1 > /dev/null
  status "$(cat refst)" "$(cat st)" "status differs from tee -p's"
}

tcase t_output_error_modes "--output-error=MODE with a vanished reader and with /dev/full, as tee"
t_output_error_modes() {
  random_file in 10485760
  cat in in in > ref
  for mode in warn warn-nopipe exit exit-nopipe; do
    rm -f f1 r1
    { cat ref | run_status st splice-tee --output-error=$mode f1; } 2> err |
      head -c 1 > /dev/null
    { cat ref | run_status refst tee --output-error=$mode r1; } 2> /dev/null |
      head -c 1 > /dev/null
    status "$(cat refst)" "$(cat st)" "--output-error=$mode | head: status differs from tee's"
    case $mode in
    warn)
      status_in 1 st "--output-error=warn | head"
      mentions err "standard output: Broken pipe"
      same ref f1 ;;
    exit)
      status_in 1 st "--output-error=exit | head"
      mentions err "standard output: Broken pipe" ;;
    *)
      status_in 0 st "--output-error=$mode | head"
      [ ! -s err ] || fail "$mode printed: $(cat err)"
      same ref f1 ;;
    esac
    # /dev/full is not a pipe: every mode reports it; exit modes stop.
    { cat in | run_status st splice-tee --output-error=$mode /dev/full f1; } 2> err | cat > out
    { cat in | run_status refst tee --output-error=$mode /dev/full r1; } 2> /dev/null |
      cat > /dev/null
    status_in 1 st "--output-error=$mode /dev/full"
    status "$(cat refst)" "$(cat st)" "--output-error=$mode /dev/full: status differs from tee's"
    mentions err "/dev/full"
    case $mode in
    warn*) all_same in out f1 ;;
    *) [ "$(wc -c < f1)" -lt "$(wc -c < in)" ] || fail "--output-error=$mode went on" ;;
    esac
  done
  # Without MODE: warn-nopipe, like -p.
  { cat ref | run_status st splice-tee --output-error f1; } | head -c 1 > /dev/null
  status_in 0 st "--output-error | head"
  same ref f1
}

tcase t_dash_is_a_file "splice-tee - creates ./- (a file, not stdout), as tee"
t_dash_is_a_file() {
  random_file in 70000
  { cat in | run_status st splice-tee -; } 2> err | cat > out
  status_in 0 st "splice-tee -"
  [ -f ./- ] || fail "no file named -"
  all_same in out ./-
  [ ! -s err ] || fail "stderr: $(cat err)"
  mkdir ref
  (cd ref && cat ../in | tee - | cat > out) || fail "tee -"
  all_same ref/out ref/- out
}

tcase t_thirteen_plus "at least 13 files (POSIX): 40 files byte-exact"
t_thirteen_plus() {
  random_file in 1048577
  # shellcheck disable=SC2046
  cat in | splice-tee $(files 40) | cat > out
  # shellcheck disable=SC2046
  all_same in out $(files 40)
}

# sigint_mid_stream OPTS...: the file "in" twice through splice-tee OPTS f1
# into the FIFO o, a SIGINT once the first half reached f1, the second half
# after it: mid-stream; splice-tee's status in st.  Background jobs start
# with SIGINT ignored: the tool gets the default.
sigint_mid_stream() {
  rm -f go f1
  { cat in; wait_until "no go" exists go; cat in; } |
    env --default-signal=INT splice-tee "$@" f1 > o &
  _pid=$!
  wait_until "the first half never reached f1" has_bytes f1 1048576
  kill -INT "$_pid"
  : > go
  wait "$_pid" && st=0 || st=$?
}

tcase t_sigint "-i: a SIGINT mid-stream is ignored, every byte arrives; without -i it ends the tool"
t_sigint() {
  env --default-signal=INT true 2> /dev/null || skip "env --default-signal is not supported"
  random_file in 1048576
  cat in in > ref
  # stdout a pipe (a FIFO), so that --strict runs it too.
  mkfifo o
  cat o > out &
  sigint_mid_stream -i
  status 0 "$st" "splice-tee -i after SIGINT"
  wait
  all_same ref out f1
  cat o > out &
  sigint_mid_stream
  status 130 "$st" "splice-tee without -i after SIGINT"
}

tcase t_open_failure "a file that cannot be opened: reported, the others complete, exit 1, as tee"
t_open_failure() {
  random_file in 300000
  { cat in | run_status st splice-tee f1 nodir/f f2; } 2> err | cat > out
  { cat in | run_status refst tee r1 nodir/f r2; } 2> /dev/null | cat > ref
  status_in 1 st "splice-tee f1 nodir/f f2"
  status "$(cat refst)" "$(cat st)" "status differs from tee's"
  mentions err "splice-tee: nodir/f: No such file or directory"
  all_same in out f1 f2
  rm f1
  run_status st sh -c 'cat in | splice-tee --output-error=exit nodir/f f1 > out' 2> err
  status_in 1 st "--output-error=exit with a missing directory"
  [ ! -e f1 ] || fail "exit mode went on after the open failure"
}

tcase t_tee_closed_stdout "stdout closed: reported, the files complete, exit 1, as tee"
t_tee_closed_stdout() {
  random_file in 300000
  run_status st sh -c 'cat in | splice-tee f1 f2 >&-' 2> err
  status_in 1 st "splice-tee >&-"
  mentions err "standard output"
  # --strict: no pipe on stdout, nothing moves.
  [ -z "${STRICT:-}" ] || return 0
  all_same in f1 f2
  run_status refst sh -c 'cat in | tee r1 >&-' 2> /dev/null
  status "$(cat refst)" "$(cat st)" "status differs from tee's"
}

tcase t_slow_reader "a slow stdout reader and a pausing writer: every byte, nothing buffered"
t_slow_reader() {
  random_file in 4194304
  { cat in; sleep 0.5; cat in; } | splice-tee f1 f2 | { sleep 1; cat; } > out
  cat in in > ref
  all_same ref out f1 f2
  # A byte written is a byte passed on: the first line arrives before EOF.
  mkfifo o
  cat o > out2 &
  # The second line comes only once the first is through, both ways.
  rm -f go
  { echo first; wait_until "no go" exists go; echo second; } | splice-tee f1 > o &
  wait_until "the first line was held back: '$(cat out2)'" has_bytes out2 6
  wait_until "the first line was held back from f1" has_bytes f1 6
  [ "$(cat out2)" = first ] || fail "the first line: '$(cat out2)'"
  [ "$(cat f1)" = first ] || fail "f1's first line: '$(cat f1)'"
  : > go
  wait
}

tcase t_in_flight "a stalled stdout reader holds the files back: at most one pipe capacity ahead"
t_in_flight() {
  random_file in 16777216
  rm -f tpid go
  # The reader stalls until splice-tee waits for it, and is checked.
  # (An asynchronous command's stdin is /dev/null but for a redirection.)
  cat in | { exec 3<&0; splice-tee f1 f2 <&3 3<&- & echo $! > tpid; wait; } |
    { wait_until "no go" exists go; cat; } > out &
  wait_until "no pid of splice-tee" nonempty tpid
  wait_until "splice-tee never waited for its reader" sleeping "$(cat tpid)"
  # stdout is grown to 1 MiB: the files get only what stdout took.
  for f in f1 f2; do
    n=$(wc -c < "$f")
    [ "$n" -le 2097152 ] || fail "$f is $n bytes ahead of a stalled reader"
  done
  : > go
  wait
  all_same in out f1 f2
}

tcase t_tee_nonblocking "stdin and stdout set O_NONBLOCK: EAGAIN waited out, byte-exact"
t_tee_nonblocking() {
  nb=$(helper with-flags)
  random_file in 10485760
  { sh -c 'cat in; sleep 0.3; cat in' | run_status st "$nb" 0:nonblock 1:nonblock -- splice-tee f1 f2; } |
    { sleep 0.3; cat; } > out
  status_in 0 st "non-blocking splice-tee"
  cat in in > ref
  all_same ref out f1 f2
}

tcase t_inject "strace: tee(2) or splice(2) fails with ENOSYS: same bytes by read/write"
t_inject() {
  needs_fallback
  need strace
  random_file in 3000000
  { cat in | run_status st inject tee:ENOSYS splice-tee -v f1 f2 2> err; } | cat > out
  status_in 0 st "splice-tee under tee ENOSYS"
  all_same in out f1 f2
  mentions err "9000000 bytes written by read(2)/write(2)"
  { cat in | run_status st inject splice:ENOSYS splice-tee -v f1 2> err; } | cat > out
  status_in 0 st "splice-tee under splice ENOSYS"
  all_same in out f1
  mentions err "3000000 bytes written by read(2)/write(2)"
  # stdin a file and splice(2) refused: read into the internal pipe.
  inject splice:ENOSYS splice-tee -v f1 f2 < in > out 2> err ||
    fail "splice-tee < file under splice ENOSYS"
  all_same in out f1 f2
  mentions err "bytes written by read(2)/write(2)"
  # --strict: the refusal is an error that names tee.
  { cat in | run_status st inject tee:ENOSYS splice-tee --strict f1 2> err; } | cat > out
  status_in 1 st "splice-tee --strict under tee ENOSYS"
  mentions err "tee: Function not implemented"
}

tcase t_tee_options "-m, --progress, --pipe-size, -v: same bytes"
t_tee_options() {
  random_file in 5242881
  cat in | splice-tee -m f1 | cat > out
  all_same in out f1
  cat in | splice-tee --progress f1 2> err | cat > out
  all_same in out f1
  mentions err "bytes .* copied"
  # The count is of input bytes, however many outputs take each one.
  # A file stdin is a fallback, which --strict refuses.
  kinds="pipe file"
  [ -z "${STRICT:-}" ] || kinds=pipe
  for stdin in $kinds; do
    if [ $stdin = pipe ]; then
      cat in | splice-tee --progress f1 f2 2> err | cat > out
    else
      splice-tee --progress f1 f2 < in 2> err | cat > out
    fi
    all_same in out f1 f2
    tr '\r' '\n' < err | tail -n 1 | grep -q '^5242881 bytes ' ||
      fail "stdin a $stdin: last status line is not 5242881 bytes: $(tr '\r' '\n' < err | tail -n 1)"
  done
  cat in | splice-tee --pipe-size 4096 -v f1 2> err | cat > out
  all_same in out f1
  mentions err "pipe capacity: 4096 bytes (1 page)"
  # A stdout pipe bigger than the internal one: through the internal one.
  cat in | splice-tee --pipe-size 64K f1 f2 | splice-cat --pipe-size 2M | cat > out
  all_same in out f1 f2
}

tcase t_tee_usage_errors "bad options: exit 2, the option named, a hint"
t_tee_usage_errors() {
  for bad in "--output-error=bogus" "--output-error=" "-n nocolon" "-n ::1:9000" "-n host:" \
    "--pipe-size 0" "-x" "--bogus" "-n"; do
    # shellcheck disable=SC2086
    run_status st splice-tee $bad < /dev/null > out 2> err
    status_in 2 st "splice-tee $bad"
    mentions err "Try 'splice-tee --help'"
    [ ! -s out ] || fail "splice-tee $bad wrote to stdout"
  done
  run_status st splice-tee --output-error=bogus < /dev/null 2> err
  mentions err "output-error"
  run_status st splice-tee -n nocolon < /dev/null 2> err
  mentions err "net"
  # Unique prefixes are accepted, as GNU tee does.
  echo hi | splice-tee --output-error=exit-n f1 | cat > out
  same out f1
}

tcase t_tee_help_version "--help on stdout exit 0; --version names the suite"
t_tee_help_version() {
  help_lists splice-tee --append --ignore-interrupts --move --net --output-error --strict \
    --progress --pipe-size --verbose
}

tcase t_net "--net: two TCP copies, a file and stdout, all byte-exact"
t_net() {
  random_file in 20971521
  start_receiver a.out a.err splice-fromnet -b 127.0.0.1 0
  pa=$PORT
  pida=$RPID
  start_receiver b.out b.err splice-fromnet -b 127.0.0.1 0
  { cat in | run_status st splice-tee -n "127.0.0.1:$pa" f1 --net "127.0.0.1:$PORT"; } |
    cat > out
  wait "$pida" || fail "first splice-fromnet"
  wait "$RPID" || fail "second splice-fromnet"
  status_in 0 st "splice-tee --net"
  all_same in out f1 a.out b.out
  # Nobody listening: reported, the other outputs complete, exit 1.
  start_receiver c.out c.err splice-fromnet -b 127.0.0.1 0
  kill "$RPID"
  wait "$RPID" || true
  { cat in | run_status st splice-tee -n "127.0.0.1:$PORT" f1; } 2> err | cat > out
  status_in 1 st "splice-tee --net to a closed port"
  mentions err "127.0.0.1:$PORT: Connection refused"
  all_same in out f1
}

tcase t_tee_pipe_requests "a pipe input: tee(2) asks for half of it per call, 64 KiB at least"
t_tee_pipe_requests() {
  need strace
  reader_asks 1M 524288 tee 'tee\(0, 1, ' splice-tee /dev/null
  [ "$(wc -c < asks.out)" -eq 8388608 ] || fail "splice-tee passed on $(wc -c < asks.out) bytes"
  reader_asks 64K 65536 tee 'tee\(0, 1, ' splice-tee /dev/null
}

# idle_until_done: a writer that sends nothing and stays open until the
# file idle.done exists (at most 20 s): an input that never ends by itself.
idle_until_done() {
  _i=0
  while [ ! -e idle.done ] && [ $_i -lt 200 ]; do
    sleep 0.1
    _i=$((_i + 1))
  done
}

tcase t_p_idle_reader_gone "-p, input idle, every pipe output's reader gone: exits at once, 0, quiet (tee 9.3+)"
t_p_idle_reader_gone() {
  mkfifo fifo
  for opts in "-p" "--output-error=exit-nopipe" "-p fifo"; do
    rm -f idle.done
    [ "$opts" != "-p fifo" ] || { timeout 20 head -c 0 fifo & }
    # shellcheck disable=SC2086 # the options are words
    idle_until_done | { run_status st timeout 10 splice-tee $opts 2> err; touch idle.done; } | :
    status_in 0 st "splice-tee $opts, input idle, reader gone"
    [ ! -s err ] || { cat err >&2; fail "splice-tee $opts printed a message"; }
  done
  wait
  # An output that is still there (a file) keeps it going, as tee: "b",
  # sent once the reader has gone, reaches f.
  rm -f idle.done
  { printf a; idle_until_done; printf b; } |
    { run_status st timeout 10 splice-tee -p f 2> err; } |
    { head -c 1 > o; exec 0<&-; touch idle.done; }
  status_in 0 st "splice-tee -p f, the reader gone"
  printf ab > exp
  same exp f
}

tcase t_tee_reader_grows_blocked_pipe "splice-tee --pipe-size 64K, reader grows its pipe while tee(2) blocks: exact"
t_tee_reader_grows_blocked_pipe() {
  seq_ref ref 33554432
  { splice-cat ref | run_status st splice-tee --pipe-size 64K a b 2> err; } |
    { sleep 1; vmsplice-touser --pipe-size 1M --verify seq -c > n; }
  cat err >&2
  status_in 0 st "splice-tee --pipe-size 64K a b"
  count_is n 33554432
  same ref a
  same ref b
}

tcase t_tee_no_descriptor_for_pipe "splice-tee, ulimit -n leaves no room for its pipe: every byte, as tee"
t_tee_no_descriptor_for_pipe() {
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
  status_in 0 st "splice-tee with $free files under ulimit -n 64"
  same in out
  for f in $names; do
    same in "$f"
  done
}

tcase t_tee_pipe2_emfile_falls_back "splice-tee, EMFILE injected into every pipe2: read/write fallback, exact"
t_tee_pipe2_emfile_falls_back() {
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
    status_in 0 st "splice-tee $files with pipe2 EMFILE"
    same in out
    for f in $files; do
      same in "$f"
    done
  done
}

tcase t_tee_stderr_closed_files_clean "splice-tee 2>&-: its messages never land in an output file"
t_tee_stderr_closed_files_clean() {
  run_status st timeout 10 sh -c 'echo data | splice-tee out nodir/x 2>&- > /dev/null'
  hung "splice-tee out nodir/x 2>&-"
  status_in 1 st "splice-tee out nodir/x 2>&-"
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
  status_in 0 st "splice-tee out nodir/x 2>&- | cat (cat's status)"
  same ref out
}

tcase t_tee_progress_counts_as_page_says "splice-tee --progress counts what its page says it counts"
t_tee_progress_counts_as_page_says() {
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

tcase t_tee_closed_std_fds "splice-tee with 0, 1, 2 closed: needed ones named, exit 1; files never hold messages"
t_tee_closed_std_fds() {
  random_file in 300000
  closed_run "<&-" "splice-tee t1"
  status_in 1 st "splice-tee t1 <&-"
  mentions err "standard input"
  closed_run ">&-" "splice-tee t1"
  status_in 1 st "splice-tee t1 >&-"
  mentions err "standard output"
  closed_run "2>&-" "splice-tee t1"
  status_in 0 st "splice-tee t1 2>&-"
  same in out
  same in t1
  rm -f t1
  closed_run "<&- >&- 2>&-" "splice-tee t1 nodir/x"
  status_in 1 st "splice-tee t1 nodir/x, 0 1 2 closed"
  [ ! -s t1 ] || { od -c t1 | head -n 3 >&2; fail "t1 holds bytes though no input came"; }
  # stderr closed, a failing file: its message is not in t1, t1 is exact.
  closed_run "2>&-" "splice-tee t1 nodir/x t2"
  status_in 1 st "splice-tee t1 nodir/x t2 2>&-"
  cmp -s in t1 ||
    fail "2>&-: t1 is not the input; it starts: $(head -c 60 t1 | tr -c '[:print:]' '.')"
  same in t2
  same in out
}

tcase t_tee_closed_fds_not_reused "splice-tee with 2 closed: no file or pipe of its own lands on 2 (strace)"
t_tee_closed_fds_not_reused() {
  need_fd_trace
  random_file in 300000
  fd_trace "2>&-" "splice-tee t1 t2 t3"
  status_in 0 st "splice-tee t1 t2 t3 2>&-"
  not_on_0_2 "splice-tee t1 t2 t3 2>&-"
}

tcase --alone t_tee_stdin_grown_past_max_unprivileged "splice-tee as a user, its stdin grown past pipe-max-size by root: exact"
t_tee_stdin_grown_past_max_unprivileged() {
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
  status_in 0 st "splice-tee as nobody, stdin grown to $((max * 4))"
  count_is n 16777216
  same ref a
  same ref b
  mentions err "internal pipe"
}

tcase t_tee_pipe_resized_mid_stream "splice-tee: reader or writer grows or shrinks the pipe mid-stream: every output exact"
t_tee_pipe_resized_mid_stream() {
  seq_ref ref 16777216
  parts ref
  for ps in 64K 1M; do
    for size in 1M 4K; do
      rm -f a b
      delay=$(resize_delay)
      { splice-cat ref | run_status st timeout 30 splice-tee --pipe-size "$ps" a b 2> err; } |
        { sleep "$delay"; timeout 30 vmsplice-touser --pipe-size "$size" --verify seq -c > n; }
      cat err >&2
      status_in 0 st "splice-tee --pipe-size $ps a b, reader resizes to $size"
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

tcase t_tee_strict_emfile_files_untouched "splice-tee --strict, pipe2 EMFILE: exit 1, files not truncated, no output"
t_tee_strict_emfile_files_untouched() {
  need strace
  random_file in 1000000
  echo old > f1
  echo old > f2
  echo old > ref
  { cat in | run_status st inject pipe2:EMFILE:1+ timeout 10 splice-tee --strict f1 f2 2> err; } |
    cat > out
  hung "splice-tee --strict f1 f2 with pipe2 EMFILE"
  status_in 1 st "splice-tee --strict f1 f2 with pipe2 EMFILE"
  mentions err "Too many open files"
  [ ! -s out ] || fail "$(wc -c < out) bytes written before the failure"
  same ref f1
  same ref f2
}

tcase t_tee_signals_mid_transfer "splice-tee: SIGTERM, SIGINT, SIGHUP mid-transfer: exit 128+N, nothing left"
t_tee_signals_mid_transfer() {
  need_default_signal
  mkfifo a b
  for sig in TERM INT HUP; do
    feed a
    drain b
    start_tool a b err splice-tee /dev/null
    signalled splice-tee "$sig" b.got
  done
}

tcase t_tee_eintr_eagain "splice-tee: EINTR and EAGAIN in the 3rd tee and splice: every output exact"
t_tee_eintr_eagain() {
  need strace
  random_file in 6000000
  for fault in tee:EINTR tee:EAGAIN splice:EINTR splice:EAGAIN; do
    { cat in | run_status st inject "$fault:3" splice-tee f1 f2; } | cat > out
    status_in 0 st "splice-tee with ${fault#*:} in ${fault%:*}"
    all_same in out f1 f2
  done
}

tcase t_tee_einval_mid "splice-tee: EINVAL from tee(2) after bytes moved: an error, exit 1"
t_tee_einval_mid() {
  need strace
  random_file in 6000000
  { cat in | run_status st inject tee:EINVAL:3 splice-tee f1 2> err; } |
    cat > out
  status_in 1 st "splice-tee with EINVAL mid-stream"
  mentions err "splice-tee: tee: Invalid argument"
}

tcase t_tee_closed_stdin_named "stdin closed, splice-tee needs it: 'standard input', exit 1"
t_tee_closed_stdin_named() {
  # The commands as users typed them: stdout a file or a pipe.
  for cmd in "splice-tee <&- > out" "splice-tee <&- | cat > out" "splice-tee t1 <&- > out"; do
    rm -f out
    run_status st timeout 10 sh -c "$cmd; exit \$?" 2> err
    hung "$cmd"
    # (the pipeline's status is cat's: splice-tee's is checked below)
    case $cmd in *"| cat"*) ;; *) status_in 1 st "$cmd" ;; esac
    mentions err "standard input"
  done
  run_status st timeout 10 sh -c 'exec splice-tee <&-' > out 2> err
  status_in 1 st "splice-tee <&- | cat"
}

# end_receiver: ends the receiver of receive_through and its reader, by
# their pids (each a timeout(1) and its child), and reaps them.
end_receiver() {
  for p in $RPID $CPID; do
    # shellcheck disable=SC2046 # one pid per word
    kill "$p" $(cat "/proc/$p/task/$p/children" 2> /dev/null) 2> /dev/null || :
    wait "$p" 2> /dev/null || :
  done
}

# tee_to_peer PEER OPTS...: 20 MB from a pipe through splice-tee OPTS -w 0.3
# -n to a receiver whose reader is PEER (sh), and to the file copy and a
# pipe into stdout; splice-tee's status in "st", its stderr in "terr".
tee_to_peer() {
  _peer=$1
  shift
  receive_through "$_peer" 127.0.0.1
  rm -f copy stdout
  # shellcheck disable=SC2086 # OPTS are words
  { cat f | run_status st timeout 30 splice-tee "$@" -w 0.3 -n "127.0.0.1:$PORT" copy \
    2> terr; } | cat > stdout
  end_receiver
}

# reset_peer: a listener (perl) that accepts one connection, reads 100 kB,
# then resets it (SO_LINGER 0).  Sets NPORT.
reset_peer() {
  perl_listener 1 '
    accept(my $c, $s) or die "accept: $!";
    my $got = 0;
    while ($got < 100000) { my $n = sysread($c, my $buf, 65536) or last; $got += $n; }
    setsockopt($c, SOL_SOCKET, SO_LINGER, pack("ii", 1, 0)) or die "linger: $!";
    close($c);'
}

tcase t_tee_net "splice-tee -n twice: two TCP copies, a file and stdout, all byte-exact"
t_tee_net() {
  random_file f 20000000
  v6=127.0.0.1
  have_ipv6 && v6=::1
  start_receiver out1 err1 timeout 60 splice-fromnet -b 127.0.0.1 0
  r1=$RPID p1=$PORT
  start_receiver out2 err2 timeout 60 splice-fromnet -b "$v6" 0
  r2=$RPID p2=$PORT
  case $v6 in *:*) t2="[$v6]:$p2" ;; *) t2="$v6:$p2" ;; esac
  run_status st sh -c 'cat f | timeout 60 splice-tee -n "127.0.0.1:$1" --net "$2" copy |
    cat > stdout' sh "$p1" "$t2" 2> terr
  [ "$(cat st)" -eq 0 ] || { cat terr >&2; fail "splice-tee -n -n: exit $(cat st)"; }
  reap "$r1" "first receiver"
  status 0 "$REAPED" "first receiver"
  reap "$r2" "second receiver"
  status 0 "$REAPED" "second receiver"
  same f out1
  same f out2
  same f copy
  same f stdout
}

tcase --long t_tee_peer_leaves \
  "splice-tee -n, a peer that never reads, leaves or resets, any mode: dropped, named, no SIGPIPE"
t_tee_peer_leaves() {
  random_file f 20000000
  # Never reads (the -w 0.3 timeout gives up on it), reads 1 MiB then its
  # receiver dies (the kernel resets), resets once it took 100 kB.
  peers="exec_sleep_60 exec_head_-c_1048576"
  command -v perl > /dev/null 2>&1 && peers="$peers reset"
  for peer in $peers; do
    for mode in "" --output-error=warn -p --output-error=exit --output-error=exit-nopipe; do
      what="splice-tee $mode -n to a peer that does '$peer'"
      if [ "$peer" = reset ]; then
        reset_peer
        { cat f | run_status st timeout 30 splice-tee $mode -w 1 -n "127.0.0.1:$NPORT" \
          copy 2> terr; } | cat > stdout
        PORT=$NPORT
      else
        # shellcheck disable=SC2086 # no mode is no word
        tee_to_peer "$(echo "$peer" | tr _ ' ')" $mode
      fi
      [ "$(cat st)" -ne 141 ] || fail "$what: killed by SIGPIPE"
      status_in 1 st "$what"
      lost='(Broken pipe|Connection reset by peer|Connection timed out)'
      grep -q -E "^splice-tee: 127.0.0.1:$PORT: $lost\$" terr ||
        { cat terr >&2; fail "$what: no message naming the peer"; }
      case $mode in
      *exit*) ;;
      *)
        same f copy
        same f stdout
        ;;
      esac
    done
  done
}

tcase t_tee_peer_pipe_reader \
  "splice-tee -n, stdout's reader leaves: SIGPIPE as tee, the peer reset; ignored: the peer whole"
t_tee_peer_pipe_reader() {
  random_file f 20000000
  receive 127.0.0.1 file
  { cat f | run_status st timeout 30 splice-tee -n "127.0.0.1:$PORT" 2> terr; } |
    head -c 1048576 > /dev/null
  status_in 141 st "splice-tee -n, stdout's reader gone"
  reap "$RPID" "splice-fromnet"
  status 1 "$REAPED" "the receiver of a splice-tee that died of SIGPIPE"
  mentions err "Connection reset by peer$"
  # Ignored SIGPIPE (nohup, trap): GNU tee drops that output quietly, exit 0.
  receive 127.0.0.1 file
  { cat f | run_status st sh -c "trap '' PIPE; exec timeout 30 splice-tee -n 127.0.0.1:$PORT" \
    2> terr; } | head -c 1048576 > /dev/null
  status_in 0 st "splice-tee -n with SIGPIPE ignored, stdout's reader gone"
  [ ! -s terr ] || { cat terr >&2; fail "a message for a pipe's EPIPE in the default mode"; }
  receive_done "splice-tee after its stdout's reader left"
  same f out
}

tcase t_peer_named_as_given "splice-tee -n HOST:PORT: every message names the peer as given, HOST:PORT, a refusal and an unknown name too"
t_peer_named_as_given() {
  printf 'x\n' > in
  # Pipes on both sides, which --strict needs.
  { cat in | run_status st splice-tee -n 127.0.0.1:1 2> err; } | cat > out
  status_in 1 st "splice-tee -n to a closed port"
  mentions err "^splice-tee: 127\\.0\\.0\\.1:1: Connection refused$"
  same in out
  { cat in | run_status st splice-tee -n no-such-host.invalid:80 2> err; } | cat > out
  status_in 1 st "splice-tee -n to a name that is not"
  mentions err "^splice-tee: no-such-host\\.invalid:80: "
  ! grep -q "127.0.0.1 1\\|invalid 80" err || fail "a peer named HOST PORT: $(cat err)"
}

run_area "$@"
