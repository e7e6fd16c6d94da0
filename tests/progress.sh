#!/bin/sh
# --progress, SIGUSR1, the ending signals and -L, for every tool: status
# lines during a stall, their format on a terminal and in a file, --name,
# --numeric, percent and ETA, a status on SIGUSR1 with the bytes still
# exact, the last line and -v totals on SIGINT/SIGTERM with 128+N, and the
# rate limit's accuracy.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

# now_ms: CLOCK_REALTIME in milliseconds (GNU date).
now_ms() {
  date +%s%3N
}

# lines_with FILE TEXT: how many lines of FILE hold TEXT.
lines_with() {
  grep -c -- "$2" "$1" || :
}

# Put before a background job: this shell has it ignore SIGINT, and a signal
# ignored at start stays ignored, by design.  A command, not a function, so
# that $! is the tool's pid.
SIGNALS_BACK="env --default-signal=INT,TERM,HUP"

tcase t_stall "--progress: a line every second while the input stalls 3 s, stderr a file"
t_stall() {
  { vmsplice -s 1M; sleep 3; vmsplice -s 1M; } | splice-cat --progress 2> err > out
  [ "$(wc -c < out)" -eq 2097152 ] || fail "copied $(wc -c < out) bytes"
  # During the stall the count stays at 1 MiB: lines at about 1, 2 and 3 s.
  n=$(lines_with err "^1048576 bytes (1.0 MB, 1.0 MiB) copied, [0-9]*\.[0-9][0-9] s")
  [ "$n" -ge 2 ] || { cat err >&2; fail "$n status lines during the stall, expected 2 or more"; }
  mentions err "^2097152 bytes (2.1 MB, 2.0 MiB) copied, [0-9.]* s, .*/s, avg .*/s$"
}

tcase t_terminal "status lines: redrawn in place on a terminal (script(1)), one per line in a file"
t_terminal() {
  vmsplice -s 3M -L 2M | splice-cat --progress 2> err > /dev/null
  [ "$(tr -cd '\r' < err | wc -c)" -eq 0 ] || fail "a carriage return went into a file"
  [ "$(lines_with err copied)" -ge 2 ] || { cat err >&2; fail "fewer than 2 lines"; }
  need script
  # stdout and stderr the terminal: only the last status ends its line.
  script -q -e -c "vmsplice -s 3M -L 2M --progress | splice-cat > /dev/null" /dev/null \
    > on_tty < /dev/null || fail "script(1) or the pipeline in it failed"
  n=$(tr '\r' '\n' < on_tty | grep -c copied || :)
  [ "$n" -ge 2 ] || { od -c on_tty >&2; fail "$n status lines on the terminal"; }
  [ "$(tr -cd '\n' < on_tty | wc -c)" -eq 1 ] || { od -c on_tty >&2; fail "status lines not redrawn"; }
  grep -q "$(printf '\r')3145728 bytes" on_tty || fail "no \\r before the last line"
}

tcase t_name "--name NAME starts every line, and implies --progress"
t_name() {
  vmsplice -s 3M -L 2M --name gen 2> gerr | splice-cat --name "the copy" 2> cerr > /dev/null
  [ "$(lines_with gerr "^gen: [0-9]* bytes")" -ge 2 ] || { cat gerr >&2; fail "gen: lines"; }
  [ "$(lines_with gerr copied)" -eq "$(lines_with gerr "^gen: ")" ] || fail "a line without gen:"
  mentions cerr "^the copy: 3145728 bytes (3.1 MB, 3.0 MiB) copied"
}

tcase t_numeric "--numeric: bare percent when the total is known, else bytes; --interval"
t_numeric() {
  vmsplice -s 4M -L 4M --numeric --interval 0.25 2> pct | splice-cat > /dev/null
  grep -qv '^[0-9][0-9]*$' pct && { cat pct >&2; fail "not only numbers"; }
  [ "$(tail -n 1 pct)" -eq 100 ] || fail "last percentage $(tail -n 1 pct)"
  # About 1 s at 0.25 s: 3 lines or more, rising, none over 100.
  [ "$(wc -l < pct)" -ge 4 ] || { cat pct >&2; fail "--interval 0.25: too few lines"; }
  sort -n -c pct || fail "percentages go down"
  awk '$1 > 100 { exit 1 }' pct || fail "over 100%"
  # A pipe has no size: bytes.
  vmsplice -s 3M | splice-cat --numeric 2> bytes > /dev/null
  [ "$(tail -n 1 bytes)" -eq 3145728 ] || fail "last count $(tail -n 1 bytes)"
}

tcase t_percent "percent and ETA: vmsplice -s, splice-cat of regular files; none from a pipe"
t_percent() {
  vmsplice -s 3M -L 2M --progress 2> err | splice-cat > /dev/null
  mentions err "^[0-9]* bytes .* copied, .*, [0-9][0-9]*%, ETA 0:00:0[0-9]$"
  mentions err "^3145728 bytes .*, 100%, ETA 0:00:00$"
  random_file a 1000000
  random_file b 2000000
  splice-cat -L 2M --progress a - b < a 2> err > out
  cat a a b | cmp - out || fail "splice-cat a - b: wrong bytes"
  mentions err "^[0-9]* bytes .*, [0-9][0-9]*%, ETA "
  mentions err "^4000000 bytes .*, 100%, ETA 0:00:00$"
  vmsplice -s 1M | splice-cat --progress 2> err > /dev/null
  ! grep -q "%" err || fail "a percentage without a known total: $(cat err)"
}

# wait_watcher PID: until PID runs its watcher thread (see watching).
wait_watcher() {
  wait_until "pid $1 never started its watcher thread" watching "$1"
}

# has_lines FILE N TEXT: FILE has N lines or more with TEXT.
has_lines() {
  [ "$(lines_with "$1" "$3")" -ge "$2" ]
}

# marked_sink FIFO: reads FIFO to its end in the background, its first byte
# into FIFO.got, which says that bytes flow; SINK is its pid.
marked_sink() {
  rm -f "$1.got"
  sh -c 'dd bs=1 count=1 of="$1.got" 2> /dev/null; exec cat > /dev/null' sh "$1" < "$1" &
  SINK=$!
}

tcase t_usr1 "SIGUSR1 (3 times, to a generator and a copier): status lines, the bytes exact"
t_usr1() {
  mkfifo p1 p2
  vmsplice -s 24M -L 12M -p seq > p1 2> gerr &
  gpid=$!
  splice-cat < p1 > p2 2> cerr &
  cpid=$!
  vmsplice-touser --verify seq -c < p2 > count 2> verr &
  vpid=$!
  wait_watcher $gpid
  wait_watcher $cpid
  # Each signal once the line of the one before is out: two pending
  # signals would be one.
  for _i in 1 2 3; do
    kill -USR1 "$gpid" "$cpid"
    wait_until "no status line $_i from vmsplice" has_lines gerr "$_i" "^[0-9]* bytes .* copied, "
    wait_until "no status line $_i from splice-cat" has_lines cerr "$_i" "^[0-9]* bytes .* copied, "
  done
  wait "$gpid" || fail "vmsplice: status $?"
  wait "$cpid" || fail "splice-cat: status $?"
  wait "$vpid" || { cat verr >&2; fail "vmsplice-touser --verify seq"; }
  counted count 25165824 "verified"
  for f in gerr cerr; do
    [ "$(lines_with $f "^[0-9]* bytes .* copied, ")" -eq 3 ] || { cat $f >&2; fail "$f: not 3"; }
  done
}

# ends_by SIG WHAT PID ERR: PID ended by SIG (128+N) after its last status
# line and, but for splice-bench, its -v totals.
ends_by() {
  _st=0
  wait "$3" || _st=$?
  case $1 in HUP) _n=1 ;; INT) _n=2 ;; TERM) _n=15 ;; esac
  status $((128 + _n)) "$_st" "$2 after SIG$1"
  mentions "$4" "[0-9] bytes.* copied, "
  case $2 in splice-bench*) ;; *) mentions "$4" ": [a-z/ ]*: [0-9]* bytes in [0-9.]* s" ;; esac
}

# interrupt SIG TOOL ARGS...: TOOL between a throttled generator and a
# sink, both FIFOs, gets SIG mid-transfer.
interrupt() {
  _sig=$1
  shift
  rm -f in out
  mkfifo in out
  vmsplice -s inf -L 64M > in 2> /dev/null &
  _gen=$!
  marked_sink out
  _sink=$SINK
  # splice-cat's -v is cat's: its verbose switch is --verbose, as in every tool.
  $SIGNALS_BACK "$@" --verbose --progress < in > out 2> err &
  _pid=$!
  wait_watcher $_gen
  wait_watcher $_pid
  wait_until "$1: no byte came through" nonempty out.got
  kill -"$_sig" "$_pid"
  ends_by "$_sig" "$1" "$_pid" err
  # The generator dies of SIGPIPE, the sink sees the end.
  wait "$_gen" || :
  wait "$_sink" || :
}

tcase t_ending_signals "SIGINT, SIGTERM: every tool prints its last line and -v totals, exits 128+N"
t_ending_signals() {
  for sig in INT TERM; do
    interrupt $sig splice-cat
    interrupt $sig splice-tee copy
    # -d: its dump says that bytes came through.
    interrupt $sig vmsplice-touser -d
    # vmsplice writes, so it is its own generator.
    rm -f out
    mkfifo out
    marked_sink out
    sink=$SINK
    $SIGNALS_BACK vmsplice -s inf -L 64M -v --progress > out 2> err &
    pid=$!
    wait_watcher $pid
    wait_until "vmsplice: no byte came through" nonempty out.got
    kill -$sig $pid
    ends_by $sig vmsplice $pid err
    wait $sink || :
  done
}

# port_of ERR PID: the port in splice-fromnet PID's "listening on" line.
port_of() {
  for _i in $(seq 50); do
    _port=$(sed -n 's/.* port \([0-9][0-9]*\)$/\1/p' "$1" 2> /dev/null || :)
    [ -n "$_port" ] && { echo "$_port"; return 0; }
    [ -d "/proc/$2" ] || break
    sleep 0.1
  done
  fail "no port from splice-fromnet: $(cat "$1")"
}

tcase t_ending_signals_net "SIGINT, SIGTERM: splice-fromnet and splice-tonet, last line, totals, 128+N"
t_ending_signals_net() {
  for sig in INT TERM; do
    # The receiver is signalled.
    rm -f rout
    mkfifo rout
    marked_sink rout
    $SIGNALS_BACK splice-fromnet -b 127.0.0.1 0 -v --progress > rout 2> lerr &
    lpid=$!
    port=$(port_of lerr $lpid)
    vmsplice -s inf -L 64M 2> /dev/null | splice-tonet 127.0.0.1 "$port" 2> /dev/null &
    spid=$!
    wait_until "splice-fromnet: no byte came through" nonempty rout.got
    kill -$sig $lpid
    ends_by $sig splice-fromnet $lpid lerr
    wait $spid || :
    # The sender is signalled.
    rm -f rout
    mkfifo rout
    marked_sink rout
    splice-fromnet -b 127.0.0.1 0 > rout 2> lerr &
    lpid=$!
    port=$(port_of lerr $lpid)
    rm -f in
    mkfifo in
    vmsplice -s inf -L 64M > in 2> /dev/null &
    gpid=$!
    $SIGNALS_BACK splice-tonet -v --progress 127.0.0.1 "$port" < in 2> serr &
    spid=$!
    wait_watcher $gpid
    wait_watcher $spid
    wait_until "splice-tonet: no byte came through" nonempty rout.got
    kill -$sig $spid
    ends_by $sig splice-tonet $spid serr
    wait $gpid || :
    wait $lpid || :
  done
}

tcase t_ending_signals_bench "SIGINT, SIGTERM: splice-bench ends its workers, last line, 128+N"
t_ending_signals_bench() {
  for sig in INT TERM; do
    $SIGNALS_BACK splice-bench -c pipe-rw-64k -s 1G -r 3 --progress > /dev/null 2> err &
    pid=$!
    wait_watcher $pid
    # The first run's workers, once the reference data is made.
    for _i in $(seq 200); do
      workers=$(ps -o pid= --ppid $pid || :)
      [ -z "$workers" ] || break
      sleep 0.05
    done
    [ -n "$workers" ] || fail "no workers seen"
    # Bytes counted, so that the last line has its estimate.
    wait_until "splice-bench counted nothing" has_lines err 1 "^[1-9][0-9]* bytes .* copied, "
    kill -$sig $pid
    ends_by $sig splice-bench $pid err
    mentions err ", [0-9]*%, ETA "
    # Gone, or dead and waiting for init to reap it.
    for w in $workers; do
      state=$(sed 's/.*) \(.\).*/\1/' "/proc/$w/stat" 2> /dev/null || :)
      case $state in '' | Z | X) ;; *) fail "worker $w outlived splice-bench ($state)" ;; esac
    done
  done
}

# limited SECS_MIN SECS_MAX CMD...: CMD's wall time is within the bounds.
limited() {
  _lo=$1 _hi=$2
  shift 2
  _t0=$(now_ms)
  sh -c "$*" || fail "$*: failed"
  _ms=$(( $(now_ms) - _t0 ))
  echo "$* took $_ms ms"
  awk -v ms="$_ms" -v lo="$_lo" -v hi="$_hi" 'BEGIN { exit !(ms >= lo * 1000 && ms <= hi * 1000) }' ||
    fail "$*: $_ms ms, expected $_lo to $_hi s"
}

# The bound that matters is "never faster than RATE": 6 MiB at 2 MiB/s may
# not take less than 3 s - 5 %.  A loaded 2-core machine can only make it
# slower, so the upper bound is loose (+50 %): slowness that is ours shows
# in the progress line's average, checked to 5 % too.
tcase t_rate_limit "-L 2M: 6 MiB take 3 s (not under 2.85 s), progress shows about 2.1 MB/s"
t_rate_limit() {
  limited 2.85 4.5 "vmsplice -s 6M | splice-cat -L 2M --progress 2> err > out"
  [ "$(wc -c < out)" -eq 6291456 ] || fail "copied $(wc -c < out) bytes"
  # 2 MiB/s is 2.097 MB/s: the average on the last line, within 5 %.
  avg=$(tail -n 1 err | sed -n 's/.*, avg \([0-9.]*\) MB\/s$/\1/p')
  awk -v a="$avg" 'BEGIN { exit !(a >= 1.99 && a <= 2.21) }' ||
    { cat err >&2; fail "average '$avg' MB/s, expected 2.1"; }
  [ "$(lines_with err copied)" -ge 3 ] || fail "fewer than 3 status lines in 3 s"
}

tcase t_rate_limit_tools "-L on vmsplice, splice-tee and splice-tonet: 2 MiB at 2M take 1 s"
t_rate_limit_tools() {
  limited 0.95 2.5 "vmsplice -s 2M -L 2M -p seq | vmsplice-touser --verify seq"
  limited 0.95 2.5 "vmsplice -s 2M -p seq | splice-tee -L 2M copy | vmsplice-touser --verify seq"
  [ "$(wc -c < copy)" -eq 2097152 ] || fail "splice-tee: copied $(wc -c < copy) bytes"
  splice-fromnet -b 127.0.0.1 0 > got 2> lerr &
  lpid=$!
  port=$(port_of lerr $lpid)
  limited 0.95 2.5 "vmsplice -s 2M -p seq | splice-tonet -L 2M 127.0.0.1 $port"
  wait $lpid || fail "splice-fromnet"
  cat got | vmsplice-touser --verify seq || fail "splice-tonet: wrong bytes"
}

run_area "$@"
