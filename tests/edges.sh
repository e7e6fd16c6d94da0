#!/bin/sh
# Edges: classes of environment that every tool must pass, each case
# looping over the tools: --strict refusals that move no data (e_strict_*),
# standard descriptors opened with flags the tool did not choose
# (e_flags_*), the multi-process tools under load (e_load_*), option words
# of other tools (e_pv_*), and --help/--version into /dev/full or a closed
# descriptor (e_out_*).  A tool's own edges (its closed descriptors,
# resized pipes, exhaustion, signals) live in its area.  A command that may
# hang runs under `timeout 10`, so a hang fails quickly; processes are ended
# only by the pids this script started.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

# ==== --strict: a refused run moves no data by read/write ===================

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

# strict_trace CMD: runs sh -c CMD (stdin, stdout as CMD says) under strace
# recording the read/write family of calls of the tool into "trace".
strict_trace() {
  run_status st traced -o trace -e trace=execve,openat,read,write,readv,writev,pread64,pwrite64 \
    sh -c "exec $1" 2> err
  hung "$1"
  status_in 1 st "$1"
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
  status_in 1 st "pipe | splice-cat --strict >> g"
  data_moved trace in
  same ref g
  # splice-tee: stdin a file, stdout a file.
  strict_trace "splice-tee --strict t1 < in > o"
  data_moved trace in
  cat in | { run_status st traced -o trace -e trace=execve,openat,read,write,readv,writev \
    splice-tee --strict t1 > o 2> err; }
  status_in 1 st "pipe | splice-tee --strict t1 > o"
  data_moved trace in
  # vmsplice into a file, vmsplice-touser from a file.
  strict_trace "vmsplice --strict -s 3M > o"
  data_moved trace in
  [ ! -s o ] || fail "vmsplice --strict > o wrote $(wc -c < o) bytes"
  strict_trace "vmsplice-touser --strict -c < in > o"
  data_moved trace in
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

tcase --long e_flags_std_files \
  "stdin, stdout files opened O_DIRECT, O_APPEND, O_SYNC, O_NONBLOCK: the bytes cat gives"
e_flags_std_files() {
  WF=$(helper with-flags)
  # Off every block boundary: O_DIRECT refuses an unaligned tail.
  random_file in 300001
  # What cat gives, and after 'before' (an O_APPEND output).
  cp in want
  cat -A < in > want.A
  { printf 'before'; cat in; } > want.append
  { printf 'before'; cat want.A; } > want.append.A
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
        want=want
        case $fout in *append*) printf 'before' > out; want=$want.append ;; *) rm -f out ;; esac
        [ "$cmd" != "splice-cat -A" ] || want=$want.A
        # shellcheck disable=SC2086 # CMD is words
        flagged_run "$fin" "$fout" $cmd
        status_in 0 st "$cmd, stdin $fin, stdout $fout"
        cmp "$want" out || fail "$cmd, stdin $fin, stdout $fout: not the bytes cat gives"
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
    status_in 0 st "vmsplice, stdout $f"
    same seq out
    run_status st timeout 10 "$WF" "0=seq:$f" -- vmsplice-touser --verify seq -c > count 2> err
    status_in 0 st "vmsplice-touser, stdin $f"
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

tcase --alone e_load_multiprocess \
  "splice-bench, net tools beside two busy loops: no hang, every byte; SIGTERM ends a sweep in 1 s"
e_load_multiprocess() {
  need_default_signal
  busy_loops
  # A worker that still held another's pipe slept in close(2) on its lock
  # while that one blocked in splice(2) into TCP: a run hung 2 times in 25.
  # A sweep or two in 2 s (each starts its workers some 40 times); the
  # case runs alone, so these seconds are the whole harness's.
  end=$(( $(date +%s) + 2 ))
  runs=0
  while [ "$(date +%s)" -lt "$end" ] && [ $runs -lt 40 ]; do
    runs=$((runs + 1))
    run_status st timeout -k 2 30 splice-bench --sweep -s 1M -c tcp-vmsplice-pipe -c tee-tee \
      > out 2> err
    [ "$(cat st)" -ne 124 ] && [ "$(cat st)" -ne 137 ] ||
      fail "splice-bench --sweep, run $runs beside two busy loops: hung"
    status_in 0 st "splice-bench --sweep, run $runs beside two busy loops"
  done
  echo "NOTE: $runs sweeps beside two busy loops"
  # The net tools, the same way: every byte, no hang.
  random_file f 16777216
  start_receiver out ferr timeout 60 splice-fromnet -b 127.0.0.1 0
  run_status st timeout 60 splice-tonet 127.0.0.1 "$PORT" < f 2> serr
  status_in 0 st "splice-tonet beside two busy loops"
  reap_within "$RPID" 30 "splice-fromnet beside two busy loops"
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
      status_in 2 st "$cmd $opt 1"
      mentions err "Try '${cmd%% *} --help'"
      [ ! -s out ] || fail "$cmd $opt 1 wrote to stdout"
    done
    mentions err "rate-limit"
  done
  for opt in --output --out; do
    run_status st timeout 10 splice-tee "$opt" f < /dev/null > out 2> err
    status_in 2 st "splice-tee $opt f"
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

# ==== --help and --version into /dev/full or a closed stdout ================

tcase e_out_help_version "every tool: --help and --version into /dev/full and a closed stdout: exit 1"
e_out_help_version() {
  for tool in $TOOLS $WATCHERS; do
    for opt in --help -h --version -V; do
      run_status st "$tool" "$opt" > /dev/full 2> err
      status_in 1 st "$tool $opt > /dev/full"
      mentions err "No space left on device"
      run_status st "$tool" "$opt" >&- 2> err
      status_in 1 st "$tool $opt >&-"
      mentions err "Bad file descriptor"
    done
    # A reader gone: quiet, as cat (SIGPIPE at its default), never a hang.
    run_status st timeout 10 sh -c "env --default-signal=PIPE $tool --help | :" 2> err
    hung "$tool --help | :"
    [ ! -s err ] || { cat err >&2; fail "$tool --help | : printed a message"; }
  done
}

run_area "$@"
