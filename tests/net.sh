#!/bin/sh
# splice-fromnet and splice-tonet: TCP over 127.0.0.1 and ::1 only, port 0
# only (the kernel picks; tests read the port from the receiver's stderr
# line).  Every background process runs under timeout(1) and is reaped by
# pid, so a hang fails the case instead of blocking the suite.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

# send HOST KIND FILE [OPTS]...: splice-tonet OPTS HOST $PORT with stdin
# the regular FILE (KIND file) or a pipe fed from it (KIND pipe); status in "st".
send() {
  _host=$1 _kind=$2 _file=$3
  shift 3
  if [ "$_kind" = pipe ]; then
    run_status st sh -c 'f=$1; shift; cat "$f" | timeout 60 splice-tonet "$@"' sh "$_file" \
      "$@" "$_host" "$PORT" 2> serr
  else
    run_status st timeout 60 splice-tonet "$@" "$_host" "$PORT" < "$_file" 2> serr
  fi
  [ "$(cat st)" -eq 0 ] || { cat serr >&2; fail "splice-tonet ($_kind) to $_host: exit $(cat st)"; }
}

# every_combination HOST: 0 B, 1 B and 64 MiB (64 rounds of a grown pipe,
# many times what the sockets buffer), stdin pipe and file, stdout pipe and
# file, all byte-exact.
every_combination() {
  random_file in.0 0
  random_file in.1 1
  random_file in.64M 67108864
  for n in 0 1 64M; do
    for inkind in pipe file; do
      for outkind in pipe file; do
        receive "$1" "$outkind"
        send "$1" "$inkind" "in.$n"
        receive_done "$n bytes, stdin $inkind, stdout $outkind"
        cmp "in.$n" out || fail "$n bytes over $1, stdin $inkind, stdout $outkind: differ"
      done
    done
  done
}

tcase t_ipv4 "0 B, 1 B, 64 MiB over 127.0.0.1, stdin/stdout pipe/file: byte-exact, exit 0"
t_ipv4() {
  every_combination 127.0.0.1
}

tcase t_ipv6 "0 B, 1 B, 64 MiB over ::1, stdin/stdout pipe/file: byte-exact, exit 0"
t_ipv6() {
  have_ipv6 || skip "no IPv6 loopback (::1) on this machine"
  every_combination ::1
  mentions err "listening on ::1 port $PORT"
}

tcase t_methods "-v names the zero-copy paths: splice from a pipe, sendfile from a file"
t_methods() {
  random_file f 3000000
  receive 127.0.0.1 pipe -v
  send 127.0.0.1 pipe f -v
  receive_done "pipe"
  same f out
  mentions serr "splice-tonet: connected to 127.0.0.1 $PORT"
  mentions serr "splice-tonet: 3000000 bytes written by splice(2)"
  mentions err "splice-fromnet: connection from 127.0.0.1 port"
  mentions err "splice-fromnet: 3000000 bytes by splice(2)"
  mentions err "3000000 bytes received"
  receive 127.0.0.1 file -v
  send 127.0.0.1 file f -v
  receive_done "file"
  same f out
  mentions serr "splice-tonet: 3000000 bytes written by sendfile(2)"
  mentions err "splice-fromnet: 3000000 bytes by splice(2) through a pipe"
}

tcase t_strict "--strict on both sides, every stdin/stdout kind: no fallback, byte-exact"
t_strict() {
  random_file f 5000000
  for inkind in pipe file; do
    for outkind in pipe file; do
      receive 127.0.0.1 "$outkind" --strict
      send 127.0.0.1 "$inkind" f --strict
      receive_done "--strict, stdin $inkind, stdout $outkind"
      same f out
    done
  done
}

tcase t_stdin_offset "a regular-file stdin is sent from where it stands (sendfile keeps the offset)"
t_stdin_offset() {
  random_file f 100000
  receive 127.0.0.1 file
  run_status st sh -c '{ head -c 1000 > /dev/null; timeout 60 splice-tonet 127.0.0.1 "$1"; } < f' \
    sh "$PORT"
  status_in 0 st "splice-tonet after 1000 bytes were read"
  receive_done "offset"
  tail -c +1001 f > ref
  same ref out
}

tcase t_downstream_safety "vmsplice -p seq --clear | splice-tonet -> splice-fromnet | vmsplice-touser --verify: exact"
t_downstream_safety() {
  receive_through 'exec vmsplice-touser --verify seq 2> verr' 127.0.0.1 -v
  run_status st sh -c 'timeout 60 vmsplice -p seq --clear -s 256M |
    timeout 60 splice-tonet 127.0.0.1 "$1"' sh "$PORT" 2> serr
  [ "$(cat st)" -eq 0 ] || { cat serr >&2; fail "vmsplice | splice-tonet: exit $(cat st)"; }
  reap "$RPID" "splice-fromnet"
  status 0 "$REAPED" "splice-fromnet"
  reap "$CPID" "vmsplice-touser"
  [ "$REAPED" -eq 0 ] || { cat verr out >&2; fail "vmsplice-touser --verify seq: exit $REAPED"; }
  mentions err "268435456 bytes received"
}

# connected_or_gone ERR PID: splice-tonet -v said "connected to" in ERR, or
# PID (our child) ended.
connected_or_gone() {
  has_lines_with "$1" 1 "connected to" || [ "$(state_of "$2")" = Z ] ||
    [ -z "$(state_of "$2")" ]
}

tcase t_keep_open "-k: three senders one after another, output their concatenation in order"
t_keep_open() {
  random_file a 1000000
  random_file b 1
  random_file c 3000000
  # --timeout is the longest a sender may take to start (the listener waits
  # it out at the end): 3 s, or 10 under valgrind.
  tmo=3
  [ -z "${VALGRIND:-}" ] || tmo=10
  receive 127.0.0.1 pipe -k --timeout "$tmo"
  # Each sender is connected before the next one starts: the listener's
  # queue holds them in that order, so there is no gap between two of them
  # in which -k could end, however slowly a sender starts.
  pids=
  for f in a b c; do
    if [ $f = b ]; then
      cat $f | timeout 60 splice-tonet -v 127.0.0.1 "$PORT" 2> serr.$f &
    else
      timeout 60 splice-tonet -v 127.0.0.1 "$PORT" < $f 2> serr.$f &
    fi
    pid=$!
    pids="$pids $pid"
    bg_started
    wait_until "sender $f neither connected nor ended" connected_or_gone serr.$f $pid
    has_lines_with serr.$f 1 "connected to" || { cat serr.$f >&2; fail "sender $f did not connect"; }
  done
  set -- $pids
  for f in a b c; do
    reap "$1" "sender $f"
    [ "$REAPED" -eq 0 ] || { cat serr.$f >&2; fail "splice-tonet < $f: exit $REAPED"; }
    shift
  done
  # -k ends, with status 0, when no sender comes within --timeout.
  receive_done "-k"
  cat a b c > ref
  same ref out
}

tcase t_one_connection "without -k: stops listening once a peer is in, exits 0 after it"
t_one_connection() {
  random_file a 1000
  receive 127.0.0.1 file
  # The first sender holds its connection open until the second was refused.
  timeout 30 sh -c '. "$TESTS/lib.sh"; printf x; wait_until "no go" exists go; cat a' |
    timeout 30 splice-tonet 127.0.0.1 "$PORT" &
  spid=$!
  bg_started
  wait_until "the first sender's byte did not arrive" test -s out
  # The first peer is still sending: nobody listens for a second.
  run_status st timeout 10 splice-tonet 127.0.0.1 "$PORT" < a 2> serr
  : > go
  status_in 1 st "a second sender"
  mentions serr "Connection refused"
  reap "$spid" "the first sender"
  status 0 "$REAPED" "the first sender"
  receive_done "first peer"
  { printf x; cat a; } > ref
  same ref out
}

tcase t_waits_for_peer "splice-tonet returns only once the receiver has read every byte and closed"
t_waits_for_peer() {
  random_file f 4194304
  # The receiver's reader starts late: its pipe fills, splice-fromnet waits
  # with the rest in socket buffers, which would take all 4 MiB.  Its 1.5 s
  # count from the go below, not from its own start: the listener may be
  # slow to start on a loaded machine.
  receive_through 'until [ -e go ]; do sleep 0.05; done; sleep 1.5; exec cat' 127.0.0.1
  start=$(date +%s%N)
  : > go
  send 127.0.0.1 file f
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  [ "$ms" -ge 1000 ] || fail "splice-tonet exited after $ms ms, before the receiver had read"
  receive_done "late reader"
  same f out
}

tcase t_refused "refused connection: 'HOST PORT: Connection refused', exit 1, at once"
t_refused() {
  receive 127.0.0.1 file --timeout 0.1
  reap "$RPID" "splice-fromnet --timeout"
  # Nobody listens on PORT now.
  start=$(date +%s)
  run_status st timeout 10 splice-tonet 127.0.0.1 "$PORT" < /dev/null 2> serr
  status_in 1 st "splice-tonet to a closed port"
  mentions serr "^splice-tonet: 127.0.0.1 $PORT: Connection refused$"
  [ $(( $(date +%s) - start )) -le 3 ] || fail "took more than 3 s to give up"
  # --retry keeps trying for that long, then says the same.
  start=$(date +%s)
  run_status st timeout 10 splice-tonet --retry 1.5 127.0.0.1 "$PORT" < /dev/null 2> serr
  status_in 1 st "splice-tonet --retry 1.5 to a closed port"
  mentions serr "Connection refused"
  [ $(( $(date +%s) - start )) -ge 1 ] || fail "--retry 1.5 gave up in under a second"
}

tcase t_retry "--retry: a receiver that starts late still gets every byte"
t_retry() {
  random_file f 2000000
  # A port the kernel picked, then freed.
  receive 127.0.0.1 file --timeout 0.1
  reap "$RPID" "splice-fromnet --timeout"
  port=$PORT
  timeout 30 splice-tonet --retry 10 127.0.0.1 "$port" < f 2> serr &
  spid=$!
  bg_started
  # Refused at least once: it sleeps before the next round.
  wait_until "splice-tonet --retry never waited to retry" child_sleeps "$spid"
  timeout 30 splice-fromnet -b 127.0.0.1 "$port" > out 2> err &
  RPID=$!
  bg_started
  reap "$spid" "splice-tonet --retry"
  [ "$REAPED" -eq 0 ] || { cat serr err >&2; fail "splice-tonet --retry: exit $REAPED"; }
  reap "$RPID" "splice-fromnet"
  status 0 "$REAPED" "splice-fromnet on the freed port"
  mentions err "listening on 127.0.0.1 port $port"
  same f out
}

tcase t_unknown_host "unknown host: 'HOST PORT: reason', exit 1"
t_unknown_host() {
  run_status st timeout 30 splice-tonet no-such-host.invalid 9 < /dev/null 2> serr
  status_in 1 st "splice-tonet no-such-host.invalid"
  mentions serr "^splice-tonet: no-such-host.invalid 9: "
  run_status st timeout 30 splice-fromnet -b no-such-host.invalid 0 2> err
  status_in 1 st "splice-fromnet -b no-such-host.invalid"
  mentions err "^splice-fromnet: no-such-host.invalid 0: "
}

tcase t_bind_error "an address that is not this machine's, a port in use: exit 1, named"
t_bind_error() {
  # TEST-NET-1: never on a machine, so bind fails before any packet.
  run_status st timeout 10 splice-fromnet -b 192.0.2.1 0 2> err
  status_in 1 st "splice-fromnet -b 192.0.2.1"
  mentions err "^splice-fromnet: 192.0.2.1 0: Cannot assign requested address"
  receive 127.0.0.1 file
  run_status st timeout 10 splice-fromnet -b 127.0.0.1 "$PORT" 2> err2
  status_in 1 st "splice-fromnet on a port in use"
  mentions err2 "127.0.0.1 $PORT: Address already in use"
  : > empty
  send 127.0.0.1 file empty
  receive_done "the first listener"
}

tcase t_receiver_closes "receiver gone after 1 MiB: sender exits 1 with EPIPE/ECONNRESET, within seconds"
t_receiver_closes() {
  random_file f 67108864
  for inkind in pipe file; do
    receive_through 'exec head -c 1048576' 127.0.0.1
    start=$(date +%s)
    if [ "$inkind" = pipe ]; then
      # An endless sender: only the error can stop it.
      run_status st sh -c 'yes | timeout 30 splice-tonet 127.0.0.1 "$1"' sh "$PORT" 2> serr
    else
      run_status st timeout 30 splice-tonet 127.0.0.1 "$PORT" < f 2> serr
    fi
    status_in 1 st "splice-tonet (stdin $inkind) to a receiver that went away"
    grep -q -e "^splice-tonet: 127.0.0.1 $PORT: Connection reset by peer$" \
      -e "^splice-tonet: 127.0.0.1 $PORT: Broken pipe$" serr ||
      { cat serr >&2; fail "no clear EPIPE/ECONNRESET message"; }
    [ $(( $(date +%s) - start )) -le 10 ] || fail "took more than 10 s"
    reap "$CPID" "head"
    reap "$RPID" "splice-fromnet"
    # splice-fromnet ended by SIGPIPE when head left, as cat would.
    status 141 "$REAPED" "splice-fromnet after its reader left"
    [ "$(wc -c < out)" -eq 1048576 ] || fail "head got $(wc -c < out) bytes"
  done
}

tcase t_sender_killed "sender killed mid-stream: receiver ends, no hang, -v counts what came"
t_sender_killed() {
  receive 127.0.0.1 file -v
  mkfifo yfifo
  timeout 60 yes > yfifo &
  bg_started
  # Not under timeout(1): $! must be the sender itself.
  splice-tonet 127.0.0.1 "$PORT" < yfifo 2> serr &
  spid=$!
  bg_started
  wait_until "no byte arrived before the kill" nonempty out
  kill -KILL "$spid"
  set +e
  wait "$spid"
  set -e
  start=$(date +%s)
  reap "$RPID" "splice-fromnet"
  # TCP shows a killed sender as one that finished: the count tells.
  status 0 "$REAPED" "splice-fromnet after its sender was killed"
  [ $(( $(date +%s) - start )) -le 5 ] || fail "receiver took more than 5 s to end"
  n=$(wc -c < out)
  [ "$n" -gt 0 ] || fail "nothing arrived before the kill"
  mentions err "splice-fromnet: connection from 127.0.0.1 port [0-9]*"
  mentions err "port [0-9]*: $n bytes received"
  [ -z "$(tr -d 'y\n' < out)" ] || fail "bytes that yes never wrote"
}

tcase t_reset_peer "a peer that resets the connection: receiver reports it, exit 1"
t_reset_peer() {
  need perl
  receive 127.0.0.1 file
  # SO_LINGER 0 then close: an RST instead of a FIN, from the peer's side.
  run_status st timeout 10 perl -e '
    use Socket;
    socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
    connect($s, pack_sockaddr_in($ARGV[0], inet_aton("127.0.0.1"))) or die "connect: $!";
    syswrite($s, "x" x 100000);
    sleep 1;
    setsockopt($s, SOL_SOCKET, SO_LINGER, pack("ii", 1, 0)) or die "linger: $!";
    close($s);' "$PORT"
  status_in 0 st "perl peer"
  reap "$RPID" "splice-fromnet"
  status 1 "$REAPED" "splice-fromnet after a reset"
  mentions err "^splice-fromnet: 127.0.0.1 port [0-9]*: Connection reset by peer$"
}

tcase t_timeout "--timeout with no peer: a clear message, exit 1, on time"
t_timeout() {
  start=$(date +%s)
  run_status st timeout 10 splice-fromnet -b 127.0.0.1 --timeout 1 0 > out 2> err
  status_in 1 st "splice-fromnet --timeout 1"
  mentions err "^splice-fromnet: listening on 127.0.0.1 port [0-9]*$"
  mentions err "^splice-fromnet: no connection within 1 second$"
  secs=$(( $(date +%s) - start ))
  [ "$secs" -le 4 ] || fail "--timeout 1 took $secs s"
  [ ! -s out ] || fail "bytes on stdout"
}

tcase t_poll_nonblock "--poll, --nonblock, --chunk and --pipe-size: same bytes"
t_poll_nonblock() {
  random_file f 10000000
  for opts in "--poll" "--nonblock" "--poll --nonblock" "--chunk 4097" "--poll --chunk 1K" \
    "--pipe-size 4096 --nonblock"; do
    for outkind in pipe file; do
      # shellcheck disable=SC2086
      receive 127.0.0.1 "$outkind" $opts
      send 127.0.0.1 pipe f
      receive_done "$opts, stdout $outkind"
      cmp f out || fail "splice-fromnet $opts (stdout $outkind): differ"
    done
  done
}

tcase t_no_cork "a writer that pauses: its bytes leave at once, not corked (SPLICE_F_MORE only when more is queued)"
t_no_cork() {
  # "abc", then "def" only once "abc" has reached the receiver: bytes that
  # TCP holds back (corked, or waiting for more) make the writer wait
  # (10 s at most, then "held" says so).  Corking has a 200 ms ceiling, so
  # strace tells whether the 3 bytes went with SPLICE_F_MORE.
  rm -f t0 held
  receive 127.0.0.1 file
  tonet="timeout 30 splice-tonet"
  if command -v strace > /dev/null 2>&1; then
    tonet="traced -o trace -e trace=splice splice-tonet"
  fi
  # shellcheck disable=SC2016 # for the inner shell
  # t0 before the write: a receiver may see "abc" before a later date(1) ends.
  timeout 30 sh -c '. "$TESTS/lib.sh"; date +%s%N > t0; printf abc
    i=0
    until [ "$(cat out)" = abc ]; do
      [ $i -lt 200 ] || { echo abc > held; break; }
      sleep 0.05
      i=$((i + 1))
    done
    printf def' 2> /dev/null |
    $tonet 127.0.0.1 "$PORT" &
  spid=$!
  bg_started
  wait_until "'abc' never came" has_bytes out 3
  MS=$(( ($(date +%s%N) - $(cat t0)) / 1000000 ))
  reap "$spid" "splice-tonet"
  status 0 "$REAPED" "splice-tonet"
  receive_done "pausing writer"
  [ "$(cat out)" = abcdef ] || fail "got '$(cat out)'"
  [ ! -e held ] || fail "'abc' was held back until 'def' came"
  echo "NOTE: the first 3 bytes took $MS ms"
  [ -e trace ] || return 0
  ! grep -E '^splice\(0, .*SPLICE_F_MORE.*\) += 3$' trace ||
    fail "the 3 bytes of a writer that pauses went with SPLICE_F_MORE (corked)"
}

tcase t_tonet_requests "splice-tonet reading a pipe: half of it per splice(2) into the socket, 64 KiB at least"
t_tonet_requests() {
  need strace
  # Through cat: vmsplice --strict writes only into a pipe.
  vmsplice -s 8M | cat > ref
  for pipe in 1M:524288 256K:131072 64K:65536; do
    receive_through "" 127.0.0.1
    rm -f wpid
    { vmsplice --pipe-size "${pipe%:*}" -s 8M & echo $! > wpid; wait; } |
      { wait_until "vmsplice never filled its pipe" writer_waits wpid
        run_status st traced -o trace -e trace=splice splice-tonet \
        --pipe-size "${pipe%:*}" 127.0.0.1 "$PORT"; }
    [ "$(cat st)" -eq 0 ] || { cat trace >&2; fail "splice-tonet: exit $(cat st)"; }
    receive_done "pipe ${pipe%:*}"
    same ref out
    got=$(requests trace 'splice\(0, NULL, [0-9]+, NULL, ')
    [ "$got" = "${pipe#*:} " ] ||
      { cat trace >&2; fail "pipe ${pipe%:*}: splice-tonet asked $got, not ${pipe#*:}"; }
  done
}

tcase t_nc_interop "with nc (when installed): nc -N -> splice-fromnet, byte-exact"
t_nc_interop() {
  need nc
  random_file f 5000000
  receive 127.0.0.1 file
  run_status st timeout 30 nc -N 127.0.0.1 "$PORT" < f
  status_in 0 st "nc -N to splice-fromnet"
  receive_done "from nc"
  same f out
}

tcase t_progress "--progress on both sides: a dd-style status line with the byte count"
t_progress() {
  random_file f 3000000
  receive 127.0.0.1 pipe --progress
  send 127.0.0.1 file f --progress
  receive_done "--progress"
  same f out
  # The line starts with a carriage return, to be redrawn in place.
  for e in serr err; do
    tr '\r' '\n' < "$e" > "$e.lines"
    mentions "$e.lines" "^3000000 bytes (3.0 MB,  2.9 MiB) copied"
  done
}

tcase t_family "-4 and -6 keep to their family: the other one's address is refused, named"
t_family() {
  have_ipv6 || skip "no IPv6 loopback (::1) on this machine"
  run_status st timeout 10 splice-fromnet -4 -b ::1 0 2> err
  status_in 1 st "splice-fromnet -4 -b ::1"
  mentions err "^splice-fromnet: ::1 0: "
  receive ::1 file -6
  run_status st timeout 10 splice-tonet -4 ::1 "$PORT" < /dev/null 2> serr
  status_in 1 st "splice-tonet -4 ::1"
  mentions serr "^splice-tonet: ::1 $PORT: "
  random_file f 1000
  send ::1 file f -6
  receive_done "-6"
  same f out
}

tcase t_closed_fds "closed stdin/stdout: exit 1, named; closed stderr: no message lands in the stream"
t_closed_fds() {
  run_status st timeout 10 splice-tonet 127.0.0.1 9 <&- 2> err
  status_in 1 st "splice-tonet <&-"
  mentions err "^splice-tonet: standard input: Bad file descriptor$"
  run_status st timeout 10 splice-fromnet -b 127.0.0.1 0 >&- 2> err
  status_in 1 st "splice-fromnet >&-"
  mentions err "^splice-fromnet: standard output: Bad file descriptor$"
  if [ -n "${VALGRIND:-}" ]; then
    echo "NOTE: closed stderr not checked: valgrind needs its stderr"
    return 0
  fi
  # With fd 2 closed the socket would be fd 2, and -v would write into it.
  random_file f 100000
  receive 127.0.0.1 file
  run_status st timeout 30 splice-tonet -v 127.0.0.1 "$PORT" < f 2>&-
  status_in 0 st "splice-tonet -v 2>&-"
  receive_done "stderr closed"
  same f out
}

tcase t_usage "usage errors exit 2 with a hint; --help and -V"
t_usage() {
  for cmd in "splice-tonet" "splice-tonet 127.0.0.1" "splice-tonet a b c" \
    "splice-tonet --retry -1 h 1" "splice-tonet --retry x h 1" "splice-tonet --retry nan h 1" \
    "splice-tonet -x h 1" "splice-fromnet" "splice-fromnet 1 2 3" "splice-fromnet --chunk 0 0" \
    "splice-fromnet --timeout -2 0" "splice-fromnet --timeout 1s 0" "splice-fromnet --chunk 1Q 0" \
    "splice-fromnet --bogus 0"; do
    # shellcheck disable=SC2086
    run_status st timeout 10 $cmd < /dev/null > out 2> err
    status_in 2 st "$cmd"
    mentions err "Try '${cmd%% *} --help'"
    [ ! -s out ] || fail "$cmd wrote to stdout"
  done
  run_status st splice-tonet --retry x h 1 2> err
  mentions err "retry"
  run_status st splice-fromnet --timeout 1s 0 2> err
  mentions err "timeout"
  help_lists splice-tonet --retry
  help_lists splice-fromnet --bind --keep-open --chunk --poll --nonblock --timeout --allow \
    --strict --progress
}

tcase t_port_range "ports past 65535 (which getaddrinfo would wrap) are usage errors, exit 2"
t_port_range() {
  for port in 65536 70000 99999999999; do
    run_status st splice-fromnet -b 127.0.0.1 "$port" < /dev/null > /dev/null 2> err
    status_in 2 st "splice-fromnet $port"
    mentions err "invalid PORT '$port'"
    run_status st splice-tonet 127.0.0.1 "$port" < /dev/null 2> err
    status_in 2 st "splice-tonet 127.0.0.1 $port"
    mentions err "invalid PORT '$port'"
    run_status st splice-tee -n "127.0.0.1:$port" < /dev/null > /dev/null 2> err
    status_in 2 st "splice-tee -n 127.0.0.1:$port"
  done
  run_status st splice-tonet 127.0.0.1 0 < /dev/null 2> err
  status_in 2 st "splice-tonet to port 0"
}

# ---- nothing held back, nothing hangs, nc's habits -----------------------------

# stamp_tools: two scripts in the case dir.  ./drip STAMPS writes a, b and c
# to stdout, each once the reader has noted the one before in "got" (or
# after 10 s, noting the letter in "held": it was held back), and notes
# "LETTER NANOSECONDS" in STAMPS as each leaves; ./stamp STAMPS reads stdin
# a byte at a time, noting each arrival.
stamp_tools() {
  printf '%s\n' '#!/bin/sh' 'for c in a b c; do' '  printf %s "$c"' \
    '  echo "$c $(date +%s%N)" >> "$1"' '  i=0' \
    '  until grep -q "^$c " got 2> /dev/null; do' \
    '    [ $i -lt 200 ] || { echo "$c" >> held; break; }' \
    '    sleep 0.05' '    i=$((i + 1))' '  done' 'done' > drip
  printf '%s\n' '#!/bin/sh' 'while c=$(dd bs=1 count=1 2> /dev/null) && [ -n "$c" ]; do' \
    '  echo "$c $(date +%s%N)" >> "$1"' 'done' > stamp
  # For socat, which splits its EXEC command at spaces itself.
  printf '%s\n' '#!/bin/sh' 'splice-cat | ./stamp got' > catstamp
  chmod +x drip stamp catstamp
}

# Bytes are "held back" when they wait inside splice(2) for the next ones
# (or splice(2) waits for them holding the pipe its reader needs): the
# sender sends the next only once the reader has the last, so a byte held
# back is never read.  No time limit: the machine may be loaded; the
# latencies are noted.

# not_held WHAT CMD...: runs CMD (which fills "sent" and "got"); every
# letter must have reached the reader before the next one was sent.
not_held() {
  _what=$1
  shift
  rm -f sent got held
  "$@"
  [ ! -e held ] || fail "$_what: held back until the next byte came: $(tr '\n' ' ' < held)"
  [ "$(join sent got | wc -l)" -eq 3 ] || fail "$_what: got '$(cat got)' of a, b and c"
  late=$(join sent got | awk '{ printf "%s:%d ", $1, ($3 - $2) / 1e6 }')
  echo "NOTE: $_what: ms from send to the reader: $late"
}

# drip_to_fromnet [OPTS]...: ./drip | nc -N -> splice-fromnet OPTS | ./stamp.
drip_to_fromnet() {
  rm -f err
  timeout 60 sh -c 'splice-fromnet -b 127.0.0.1 "$@" 0 2> err | ./stamp got' sh "$@" &
  _p=$!
  bg_started
  PORT=$(listen_port err "$_p")
  ./drip sent | timeout 60 nc -N 127.0.0.1 "$PORT"
  reap "$_p" "splice-fromnet | stamp"
}

tcase t_no_holding_fromnet "each byte that arrives reaches splice-fromnet's reader before the next is sent"
t_no_holding_fromnet() {
  need nc
  stamp_tools
  for opts in "" "--poll" "--nonblock" "--chunk 1" "-w 10"; do
    # shellcheck disable=SC2086
    not_held "splice-fromnet $opts" drip_to_fromnet $opts
  done
}

# drip_to_cat KIND: ./drip -> socat -> splice-cat's stdin | ./stamp, where
# stdin is the TCP socket itself (KIND tcp) or a terminal (KIND pty).
drip_to_cat() {
  if [ "$1" = tcp ]; then
    start_receiver /dev/null serr timeout 60 socat -d -d TCP-LISTEN:0,bind=127.0.0.1 \
      EXEC:./catstamp,nofork
    _p=$RPID
    ./drip sent | timeout 60 nc -N 127.0.0.1 "$PORT"
  else
    ./drip sent | timeout 60 socat -u STDIN EXEC:./catstamp,pty,rawer &
    _p=$!
    bg_started
  fi
  reap "$_p" "socat"
}

tcase t_no_holding_cat "splice-cat, stdin a socket or a terminal: each byte reaches its reader before the next"
t_no_holding_cat() {
  need nc socat
  stamp_tools
  not_held "socket | splice-cat" drip_to_cat tcp
  not_held "pty | splice-cat" drip_to_cat pty
}

# idle_sender TEXT PORT: splice-tonet sends TEXT to 127.0.0.1 PORT, then its
# stdin stays open and idle; what the peer sends back goes to "reply".
idle_sender() {
  rm -f idle.fifo reply
  mkfifo idle.fifo
  timeout 30 sh -c 'printf %s "$1"; exec sleep 30' sh "$1" > idle.fifo &
  bg_started
  timeout 30 splice-tonet 127.0.0.1 "$2" < idle.fifo > reply &
  bg_started
}

tcase t_reader_killable "the reader of splice-fromnet dies of SIGKILL at once while the peer is idle"
t_reader_killable() {
  rm -f out err fpid
  { timeout 30 splice-fromnet -v -b 127.0.0.1 0 2> err & echo $! > fpid; wait; } |
    cat > out &
  reader=$!
  bg_started
  PORT=$(listen_port err "$reader")
  idle_sender a "$PORT"
  # Whether or not the byte got through, both wait now: splice-fromnet for
  # the idle peer, the reader on the pipe.
  wait_until "no connection" grep -q "connection from" err
  wait_until "no pid of splice-fromnet" nonempty fpid
  wait_until "splice-fromnet never waited for its peer" child_sleeps "$(cat fpid)"
  wait_until "the reader never waited for the pipe" waits_or_stuck "$reader"
  kill -KILL "$reader"
  _i=0
  while [ "$(cut -d' ' -f3 "/proc/$reader/stat" 2> /dev/null || echo Z)" != Z ]; do
    [ $_i -lt 20 ] ||
      fail "the reader survived SIGKILL for 2 s (state $(cut -d' ' -f3 "/proc/$reader/stat"))"
    sleep 0.1
    _i=$((_i + 1))
  done
}

tcase t_poll_every_splice "splice-fromnet polls before every splice from the socket (into a pipe; --poll)"
t_poll_every_splice() {
  need strace
  random_file f 3000000
  for mode in pipe --poll; do
    rm -f out err trace
    if [ "$mode" = pipe ]; then
      traced -o trace -e trace=accept4,poll,ppoll,splice \
        splice-fromnet -b 127.0.0.1 0 2> err | timeout 60 cat > out &
    else
      timeout 60 sh -c 'ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -o trace \
        -e trace=accept4,poll,ppoll,splice splice-fromnet --poll -b 127.0.0.1 0 2> err > out' &
    fi
    _p=$!
    bg_started
    PORT=$(listen_port err "$_p")
    # A sender that pauses: the socket is often empty.
    timeout 60 sh -c 'for i in 1 2 3 4 5 6; do head -c 500000; sleep 0.05; done' < f |
      timeout 60 splice-tonet 127.0.0.1 "$PORT"
    reap "$_p" "splice-fromnet $mode"
    same f out
    mentions trace "+++ exited with 0 +++"
    sock=$(sed -n 's/^accept4(.*) = \([0-9][0-9]*\)$/\1/p' trace | head -n 1)
    [ -n "$sock" ] || { cat trace >&2; fail "no accept4 in the trace"; }
    awk -v s="$sock" '
      /^p?poll\(/ && index($0, "fd=" s ",") { polled = 1 }
      index($0, "splice(" s ",") == 1 { n++; if (!polled) bad++; polled = 0 }
      END { printf "%d splices from the socket, %d without a poll first\n", n, bad; exit bad > 0 }
    ' trace > verdict || { cat verdict >&2; fail "splice-fromnet $mode: a splice without a poll"; }
  done
}

# echo_server: socat echoes what it gets (EXEC:cat); sets EPORT.
echo_server() {
  rm -f eerr
  start_receiver /dev/null eerr timeout 60 socat -d -d TCP-LISTEN:0,bind=127.0.0.1,reuseaddr \
    EXEC:cat
  EPORT=$PORT
}

tcase t_echo "splice-tonet against an echo server: 32 MiB out and back, byte-exact, no deadlock; --no-reply"
t_echo() {
  need socat
  # 32 MiB: many times what the two sockets and the echo peer hold, so a
  # sender that stopped reading its replies would deadlock.
  random_file f 33554432
  for inkind in file pipe; do
    for outkind in file pipe; do
      echo_server
      cmd='timeout 30 splice-tonet 127.0.0.1 "$1"'
      [ "$inkind" = file ] && cmd="$cmd < f" || cmd="cat f | $cmd"
      [ "$outkind" = file ] && cmd="$cmd > out" || cmd="$cmd | cat > out"
      rm -f out
      run_status st sh -c "$cmd" sh "$EPORT" 2> serr
      [ "$(cat st)" -eq 0 ] ||
        { cat serr >&2; fail "echo, stdin $inkind, stdout $outkind: exit $(cat st)"; }
      cmp f out || fail "echo, stdin $inkind, stdout $outkind: the echo differs"
    done
  done
  echo_server
  run_status st timeout 30 splice-tonet --no-reply 127.0.0.1 "$EPORT" < f > out 2> serr
  status_in 0 st "splice-tonet --no-reply"
  [ ! -s out ] || fail "--no-reply wrote the echo"
}

tcase t_reply_now "a peer's reply reaches splice-tonet's stdout as it comes, while stdin is still open"
t_reply_now() {
  need socat
  echo_server
  idle_sender hello "$EPORT"
  wait_until "the echo did not come back within 5 s" grep -qx hello reply
}

# never_accepting: a listener with the smallest backlog that never accepts;
# one client fills its queue, and after that SYNs are dropped, so connect(2)
# would wait for minutes.  Sets NPORT.
never_accepting() {
  perl_listener 0 'sleep 60;'
}

# took_at_most SECS WHAT: the time since START (date +%s%N) is SECS or less.
took_at_most() {
  _secs=$(( ($(date +%s%N) - START) / 1000000000 ))
  [ "$_secs" -le "$1" ] || fail "$2 took $_secs s"
}

tcase --long t_wait_timeout "-w SECS: a full backlog, a peer that never reads, an idle peer: given up on, exit 1"
t_wait_timeout() {
  never_accepting
  # The first client is queued: it sends until the buffers are full, then
  # nothing moves.
  START=$(date +%s%N)
  run_status st timeout 20 splice-tonet -v -w 0.5 127.0.0.1 "$NPORT" < /dev/zero 2> serr
  status_in 1 st "splice-tonet -w 0.5 to a peer that never reads"
  mentions serr "connected to 127.0.0.1 $NPORT (127.0.0.1 port $NPORT)"
  mentions serr "^splice-tonet: 127.0.0.1 $NPORT: Connection timed out$"
  took_at_most 4 "splice-tonet -w 0.5 (idle)"
  # The queue is full now: SYNs are dropped.
  for cmd in "splice-tonet -w 0.5 127.0.0.1 $NPORT" "splice-tee -w 0.5 -n 127.0.0.1:$NPORT"; do
    START=$(date +%s%N)
    # shellcheck disable=SC2086
    run_status st timeout 20 $cmd < /dev/null > /dev/null 2> serr
    status_in 1 st "$cmd to a full backlog"
    mentions serr "127.0.0.1.$NPORT: Connection timed out$"
    took_at_most 4 "$cmd (connect)"
  done
  # splice-fromnet -k -w 0.5: an idle peer is dropped, the next one served.
  random_file f 100000
  receive 127.0.0.1 file -k -w 0.5 --timeout 1.5 -v
  idle_sender a "$PORT"
  wait_until "the idle sender never got in" grep -q "connection from" err
  START=$(date +%s%N)
  send 127.0.0.1 file f
  took_at_most 4 "the sender after an idle one"
  reap "$RPID" "splice-fromnet -k -w 0.5"
  status 1 "$REAPED" "splice-fromnet -k -w 0.5 after an idle peer"
  mentions err "^splice-fromnet: 127.0.0.1 port [0-9]*: Connection timed out$"
  { printf a; cat f; } > ref
  same ref out
}

tcase t_abort_resets "a sender that gives up (SIGTERM, SIGHUP, --output-error=exit) resets: the receiver exits 1, says so"
t_abort_resets() {
  mkfifo yfifo ofifo
  for tool in splice-tonet splice-tee; do
    receive 127.0.0.1 file
    timeout 60 yes > yfifo &
    ypid=$!
    bg_started
    # Not under timeout(1): $! must be the tool itself.
    if [ $tool = splice-tonet ]; then
      splice-tonet 127.0.0.1 "$PORT" < yfifo 2> serr &
      sig=TERM
    else
      # A background job ignores SIGINT: SIGHUP stands for the signals.
      # Stdout a pipe, which --strict needs.
      timeout 60 cat ofifo > /dev/null &
      bg_started
      splice-tee -n "127.0.0.1:$PORT" < yfifo > ofifo 2> serr &
      sig=HUP
    fi
    spid=$!
    bg_started
    # Mid-stream: bytes arrived, more are coming.
    wait_until "$tool: no byte arrived" nonempty out
    kill -"$sig" "$spid"
    set +e
    wait "$spid"
    sst=$?
    set -e
    kill "$ypid" 2> /dev/null || :
    [ "$sst" -gt 128 ] || fail "$tool after SIG$sig: exit $sst"
    reap "$RPID" "splice-fromnet"
    status 1 "$REAPED" "splice-fromnet after $tool got SIG$sig"
    mentions err "Connection reset by peer$"
  done
  # --output-error=exit: a failing file ends splice-tee; its peer is reset.
  receive 127.0.0.1 file
  # Stdout a pipe, which --strict needs; st is splice-tee's status.
  { yes | head -c 50000000 |
    run_status st timeout 30 splice-tee --output-error=exit -n "127.0.0.1:$PORT" /dev/full \
      2> terr; } | cat > /dev/null
  status_in 1 st "splice-tee --output-error=exit"
  reap "$RPID" "splice-fromnet"
  status 1 "$REAPED" "splice-fromnet after splice-tee gave up"
  mentions err "Connection reset by peer$"
}

tcase t_port_syntax "ports as getaddrinfo reads them (' 70000', '+70000' wrap) and '80x' are usage errors, exit 2"
t_port_syntax() {
  for port in " 70000" "+70000" "80x" "-1" "65536 "; do
    # A port taken for another would listen: time out, do not hang.
    run_status st timeout 5 splice-fromnet -b 127.0.0.1 -- "$port" < /dev/null > /dev/null 2> err
    status_in 2 st "splice-fromnet '$port'"
    mentions err "invalid PORT '$port'"
    run_status st timeout 5 splice-tonet -- 127.0.0.1 "$port" < /dev/null > /dev/null 2> err
    status_in 2 st "splice-tonet 127.0.0.1 '$port'"
    mentions err "invalid PORT '$port'"
    run_status st timeout 5 splice-tee -n "127.0.0.1:$port" < /dev/null > /dev/null 2> err
    status_in 2 st "splice-tee -n '127.0.0.1:$port'"
  done
  # What getaddrinfo takes as 0 to 65535 stays valid: " 0" is port 0.
  run_status st timeout 10 splice-fromnet -b 127.0.0.1 --timeout 0.1 -- " 0" 2> err
  status_in 1 st "splice-fromnet ' 0' (no peer)"
  mentions err "listening on 127.0.0.1 port [1-9]"
}

tcase t_address_syntax "HOST PORT, HOST:PORT, [V6]:PORT on both tools; -b ::ffff:127.0.0.1 is IPv4; -n"
t_address_syntax() {
  random_file f 100000
  start_receiver out err timeout 30 splice-fromnet 127.0.0.1:0
  mentions err "listening on 127.0.0.1 port $PORT"
  run_status st timeout 30 splice-tonet -N "127.0.0.1:$PORT" < f
  status_in 0 st "splice-tonet 127.0.0.1:$PORT"
  receive_done "HOST:PORT"
  same f out
  # HOST PORT, as nc -l takes it; -l is accepted.
  start_receiver out err timeout 30 splice-fromnet -l 127.0.0.1 0
  send 127.0.0.1 file f -n
  receive_done "HOST PORT"
  same f out
  # A v4-mapped address is IPv4, as for nc and socat.
  receive ::ffff:127.0.0.1 file
  mentions err "listening on 127.0.0.1 port $PORT"
  send 127.0.0.1 file f
  receive_done "-b ::ffff:127.0.0.1"
  same f out
  if have_ipv6; then
    start_receiver out err timeout 30 splice-fromnet "[::1]:0"
    mentions err "listening on ::1 port $PORT"
    run_status st timeout 30 splice-tonet "[::1]:$PORT" < f
    status_in 0 st "splice-tonet [::1]:$PORT"
    receive_done "[::1]:PORT"
    same f out
  fi
  # -n: no DNS.
  run_status st timeout 10 splice-tonet -n localhost 9 < /dev/null 2> serr
  status_in 1 st "splice-tonet -n localhost"
  mentions serr "^splice-tonet: localhost 9: "
  run_status st splice-fromnet -b 127.0.0.1 127.0.0.1 0 < /dev/null 2> err
  status_in 2 st "splice-fromnet with both -b and HOST"
}


tcase t_unix "-U PATH: a Unix-domain stream socket on both ends, spliced (--strict), byte-exact; nc -U"
t_unix() {
  random_file f 10000000
  for outkind in pipe file; do
    rm -f out err sock
    if [ "$outkind" = pipe ]; then
      timeout 30 sh -c 'splice-fromnet --strict -v -U sock 2> err | cat > out' &
    else
      timeout 30 splice-fromnet --strict -v -U sock > out 2> err &
    fi
    RPID=$!
    bg_started
    wait_until "no 'listening on sock' line" grep -q "listening on sock$" err
    run_status st sh -c 'cat f | timeout 30 splice-tonet --strict -U sock' 2> serr
    [ "$(cat st)" -eq 0 ] || { cat serr >&2; fail "splice-tonet -U: exit $(cat st)"; }
    reap "$RPID" "splice-fromnet -U"
    status 0 "$REAPED" "splice-fromnet -U (stdout $outkind)"
    same f out
    mentions err "sock: 10000000 bytes received"
    [ ! -e sock ] || fail "splice-fromnet left its socket file behind"
  done
  if command -v nc > /dev/null; then
    rm -f out err
    timeout 30 splice-fromnet -U sock > out 2> err &
    RPID=$!
    bg_started
    wait_until "no socket file" test -S sock
    run_status st timeout 30 nc -N -U sock < f
    status_in 0 st "nc -N -U to splice-fromnet -U"
    reap "$RPID" "splice-fromnet -U"
    same f out
  fi
  run_status st splice-tonet -U sock 127.0.0.1 9 < /dev/null 2> serr
  status_in 2 st "splice-tonet -U with HOST PORT"
}

# unix_end HOW: splice-fromnet -U sock ended by HOW (eof, error, a signal
# name, PIPE: its reader leaves); checks its status; the file must be gone.
unix_end() {
  rm -f sock err pf
  _out=out
  case $1 in
  error) _out=/dev/full ;;
  PIPE)
    mkfifo pf
    timeout 30 head -c 1 < pf > /dev/null &
    bg_started
    _out=pf
    ;;
  esac
  # Every signal at its default: a background job starts with SIGINT ignored.
  timeout 30 env --default-signal splice-fromnet -U sock > "$_out" 2> err &
  _pid=$!
  bg_started
  wait_until "no 'listening on sock' line" grep -q "listening on sock$" err
  case $1 in
  eof | error | PIPE)
    run_status st timeout 30 splice-tonet -U sock < f 2> serr
    [ "$1" != eof ] || status_in 0 st "splice-tonet -U"
    ;;
  *) kill -"$1" "$(cat "/proc/$_pid/task/$_pid/children")" ;;
  esac
  reap "$_pid" "splice-fromnet -U, ended by $1"
  case $1 in
  eof) _want=0 ;; error) _want=1 ;; INT) _want=130 ;; TERM) _want=143 ;; HUP) _want=129 ;;
  PIPE) _want=141 ;;
  esac
  status "$_want" "$REAPED" "splice-fromnet -U, ended by $1"
  [ ! -e sock ] || fail "splice-fromnet -U, ended by $1, left its socket file behind"
}

tcase t_unix_socket_file \
  "splice-fromnet -U: the socket file gone however it ends; a stale one replaced, nothing else"
t_unix_socket_file() {
  env --default-signal true 2> /dev/null || skip "env --default-signal is not supported"
  random_file f 3000000
  for how in eof error INT TERM HUP PIPE; do
    unix_end "$how"
  done
  # SIGKILL leaves the file: the next listener replaces it, as nc -lU does.
  rm -f err
  splice-fromnet -U sock > out 2> err &
  pid=$!
  wait_until "no 'listening on sock' line" grep -q "listening on sock$" err
  kill -KILL "$pid"
  wait "$pid" || :
  [ -S sock ] || fail "setup: no socket file left by SIGKILL"
  unix_end eof
  same f out
  # A file that is not a socket is never removed.
  echo keep > notsock
  run_status st timeout 10 splice-fromnet -U notsock > out 2> err
  status_in 1 st "splice-fromnet -U on a regular file"
  mentions err "notsock: Address already in use"
  [ "$(cat notsock)" = keep ] || fail "the regular file at -U PATH changed"
  # A live listener keeps its file; the second one is refused.
  rm -f err
  timeout 30 splice-fromnet -U sock > out 2> err &
  RPID=$!
  bg_started
  wait_until "no 'listening on sock' line" grep -q "listening on sock$" err
  run_status st timeout 10 splice-fromnet -U sock > out2 2> err2
  status_in 1 st "a second splice-fromnet -U on a live socket"
  mentions err2 "sock: Address already in use"
  run_status st timeout 30 splice-tonet -U sock < f 2> serr
  status_in 0 st "splice-tonet -U to the first listener"
  reap "$RPID" "the first splice-fromnet -U"
  status 0 "$REAPED" "the first splice-fromnet -U"
  same f out
}

tcase t_allow "--allow: a peer from 127.0.0.2 is closed at once and named with -v; allowed ones get in"
t_allow() {
  random_file a 100000
  random_file b 200000
  receive 127.0.0.1 file -k --timeout 2 -v --allow 127.0.0.1 --allow ::1/128
  run_status st timeout 10 splice-tonet -s 127.0.0.2 127.0.0.1 "$PORT" < a 2> serr
  status_in 1 st "splice-tonet from 127.0.0.2, not allowed"
  send 127.0.0.1 file b
  receive_done "--allow"
  mentions err "refused connection from 127.0.0.2 port [0-9]* (not in --allow)"
  same b out
  # A prefix lets a whole network in.
  receive 127.0.0.1 file --allow 127.0.0.0/8
  send 127.0.0.1 file a -s 127.0.0.2
  receive_done "--allow 127.0.0.0/8"
  same a out
  for spec in 127.0.0.1/33 ::1/129 localhost 127.0.0.1/ 10.0.0.0/x; do
    run_status st splice-fromnet --allow "$spec" 0 < /dev/null 2> err
    status_in 2 st "--allow $spec"
  done
}

tcase t_long_timeout "--timeout and -w past 2^31 ms (about 25 days) wait as asked: neither end at once nor break"
t_long_timeout() {
  random_file f 1000
  # Still there once it listens, and it takes the sender below.
  receive 127.0.0.1 file --timeout 2147484 -w 9999999
  kill -0 "$RPID" || fail "splice-fromnet --timeout 2147484 ended at once"
  send 127.0.0.1 file f -w 9999999
  receive_done "long timeouts"
  same f out
}

tcase t_tonet_names_address "splice-tonet -v names the address it connected to, not only the host"
t_tonet_names_address() {
  random_file f 1000
  receive 127.0.0.1 file
  # localhost may name ::1 first, where nothing listens: the line says
  # which address took the connection.
  run_status st timeout 30 splice-tonet -v localhost "$PORT" < f 2> serr
  status_in 0 st "splice-tonet -v localhost $PORT"
  receive_done "from localhost"
  same f out
  mentions serr "^splice-tonet: connected to localhost $PORT (127.0.0.1 port $PORT)$"
}

tcase t_nc_listen_options "nc -l's -p PORT and -s ADDR: port 0, the address named; --chunk is the chunk"
t_nc_listen_options() {
  random_file f 100000
  start_receiver out err timeout 30 splice-fromnet -l -p 0
  send 127.0.0.1 file f
  receive_done "-l -p 0"
  same f out
  start_receiver out err timeout 30 splice-fromnet -l -s 127.0.0.1 -p 0
  mentions err "listening on 127.0.0.1 port $PORT"
  send 127.0.0.1 file f
  receive_done "-l -s 127.0.0.1 -p 0"
  same f out
  # HOST with -p, as nc -l HOST -p PORT.
  start_receiver out err timeout 30 splice-fromnet -p 0 127.0.0.1
  mentions err "listening on 127.0.0.1 port $PORT"
  send 127.0.0.1 file f
  receive_done "-p 0 127.0.0.1"
  same f out
  if have_ipv6; then
    start_receiver out err timeout 30 splice-fromnet -s ::1 -p 0
    mentions err "listening on ::1 port $PORT"
    run_status st timeout 30 splice-tonet ::1 "$PORT" < f
    status_in 0 st "splice-tonet ::1"
    receive_done "-s ::1 -p 0"
    same f out
  fi
  start_receiver out err timeout 30 splice-fromnet -b 127.0.0.1 --chunk 4097 0
  send 127.0.0.1 pipe f
  receive_done "--chunk 4097"
  same f out
  for cmd in "splice-fromnet -p 0 0" "splice-fromnet -p 0 127.0.0.1:0" \
    "splice-fromnet -p 0 a b" "splice-fromnet -s 127.0.0.1 -p 0 127.0.0.1" \
    "splice-fromnet -p 70000" "splice-fromnet -U sock -p 0"; do
    # shellcheck disable=SC2086
    run_status st timeout 10 $cmd < /dev/null > out 2> err
    status_in 2 st "$cmd"
    mentions err "Try 'splice-fromnet --help'"
  done
}

# serve FILE [OPTS]...: splice-fromnet -b 127.0.0.1 OPTS 0 in the
# background with standard input FILE, stdout "out"; sets RPID and PORT.
serve() {
  _file=$1
  shift
  rm -f out
  start_receiver -i "$_file" out err timeout 60 splice-fromnet -b 127.0.0.1 "$@" 0
}

tcase t_fromnet_keeps_stdin "splice-fromnet -k with stdin /dev/null or a terminal: neither is sent, every peer's bytes out"
t_fromnet_keeps_stdin() {
  pty=$(helper pty-screen)
  random_file g 200000
  for kind in null tty; do
    rm -f out err got
    if [ "$kind" = null ]; then
      timeout 60 splice-fromnet -k --timeout 2 -b 127.0.0.1 0 < /dev/null > out 2> err &
    else
      # The terminal is stdin (and stdout, the screen); the bytes go to out.
      timeout 60 "$pty" -- sh -c \
        'exec splice-fromnet -k --timeout 2 -b 127.0.0.1 0 > out 2> err' > screen &
    fi
    RPID=$!
    bg_started
    PORT=$(listen_port err "$RPID")
    for i in 1 2; do
      run_status st timeout 30 splice-tonet 127.0.0.1 "$PORT" < g > got 2> serr
      status_in 0 st "splice-tonet, peer $i, to splice-fromnet -k with stdin $kind"
      [ ! -s got ] || fail "stdin $kind: splice-fromnet sent $(wc -c < got) bytes back"
    done
    reap "$RPID" "splice-fromnet -k, stdin $kind"
    # -k ends by its --timeout once no peer follows.
    status 0 "$REAPED" "splice-fromnet -k --timeout 2, stdin $kind"
    cat g g > gg
    same gg out
  done
}

# ---- a half-close in each direction ----------------------------------------

# Perl on the connection $c.  send_g: all of the file g; read_all: to the
# end, into the file peer_got; half: shuts down its sending side, then
# makes the file peer_closed.
send_g='open(my $g, "<", "g") or die "g: $!"; binmode $g; my $d = do { local $/; <$g> };
  for (my $at = 0; $at < length $d;) {
    my $n = syswrite($c, $d, 65536, $at); defined $n or die "write: $!"; $at += $n; }'
read_all='open(my $got, ">", "peer_got") or die "peer_got: $!"; binmode $got;
  while (1) { my $n = sysread($c, my $b, 65536); defined $n or die "read: $!"; last if !$n;
    print $got $b; } close $got;'
half='shutdown($c, 1) or die "shutdown: $!"; open(my $m, ">", "peer_closed") or die; close $m;'

# fed_after_half: f1, then (once the peer shut its sending side) f2.
fed_after_half() {
  cat f1
  _i=0
  until [ -e peer_closed ] || [ $_i -ge 400 ]; do
    sleep 0.05
    _i=$((_i + 1))
  done
  cat f2
}

# half_closed WHAT ST ERR REPLY SENT: exit 0, REPLY is g, the peer got SENT,
# and -v counts each way on its own, as splice-tonet or splice-fromnet does.
half_closed() {
  [ "$(cat "$2")" -eq 0 ] || { cat "$3" >&2; fail "$1: exit $(cat "$2")"; }
  cmp g "$4" || fail "$1: what the peer sent differs"
  cmp "$5" peer_got || fail "$1: what the peer got differs"
  case $1 in
  splice-tonet*) mentions "$3" "^splice-tonet: $(wc -c < "$5") bytes sent, $(wc -c < g) bytes received$" ;;
  *) mentions "$3" ": $(wc -c < g) bytes received, $(wc -c < "$5") sent$" ;;
  esac
}

tcase t_half_close "splice-tonet and splice-fromnet, the peer's half-close first or last: the other way goes on to its end, exit 0, each way counted"
t_half_close() {
  need perl
  random_file f1 1000000
  random_file f2 1000000
  random_file g 2000000
  cat f1 f2 > f
  # splice-tonet.  The peer sends g and shuts its side while the tool still
  # has f2 to send; then the peer reads all first and replies after.
  rm -f peer_closed peer_got
  perl_listener 1 'accept(my $c, $s) or die "accept: $!"; '"$send_g $half $read_all"
  { fed_after_half | run_status st timeout 30 splice-tonet -v 127.0.0.1 "$NPORT" \
    > reply 2> terr; }
  reap "$RPID" "the peer of splice-tonet"
  half_closed "splice-tonet, the peer's half-close first" st terr reply f
  rm -f peer_got
  perl_listener 1 'accept(my $c, $s) or die "accept: $!"; '"$read_all $send_g"
  run_status st timeout 30 splice-tonet -v 127.0.0.1 "$NPORT" < f > reply 2> terr
  reap "$RPID" "the peer of splice-tonet"
  half_closed "splice-tonet, its own half-close first" st terr reply f
  # splice-fromnet sending its stdin, the same two ways, its peer a client.
  for order in first last; do
    rm -f peer_closed peer_got
    if [ $order = first ]; then
      fed_after_half | timeout 30 splice-fromnet -v -b 127.0.0.1 0 > out 2> ferr &
      code="$send_g $half $read_all"
    else
      timeout 30 splice-fromnet -v -b 127.0.0.1 0 < f > out 2> ferr &
      code="$read_all $send_g"
    fi
    fpid=$!
    PORT=$(listen_port ferr)
    run_status pst timeout 30 perl -e '
      use Socket;
      socket(my $c, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
      connect($c, pack_sockaddr_in($ARGV[0], inet_aton("127.0.0.1"))) or die "connect: $!";
      '"$code" "$PORT"
    status_in 0 pst "the peer of splice-fromnet ($order)"
    set +e
    wait "$fpid"
    echo $? > st
    set -e
    half_closed "splice-fromnet, the peer's half-close $order" st ferr out f
  done
}

tcase t_fromnet_sends "splice-fromnet < FILE serves FILE to its peer (nc -N, splice-tonet) while it receives"
t_fromnet_sends() {
  random_file f 3000000
  random_file g 2000000
  if command -v nc > /dev/null; then
    serve f
    run_status st timeout 30 nc -N 127.0.0.1 "$PORT" < /dev/null > got
    status_in 0 st "nc -N from splice-fromnet < file"
    receive_done "< file, to nc -N"
    same f got
    [ ! -s out ] || fail "nc sent nothing, yet splice-fromnet wrote bytes"
  fi
  # Both ways at once, from a file and from a pipe.
  for kind in file pipe; do
    if [ "$kind" = pipe ]; then
      mkfifo in.fifo
      timeout 60 cat f > in.fifo &
      bg_started
      serve in.fifo -v
    else
      serve f -v
    fi
    run_status st timeout 30 splice-tonet 127.0.0.1 "$PORT" < g > got 2> serr
    [ "$(cat st)" -eq 0 ] || { cat serr >&2; fail "splice-tonet to splice-fromnet < $kind"; }
    receive_done "stdin $kind, both ways"
    same f got
    same g out
    mentions err "2000000 bytes received, 3000000 sent"
    rm -f in.fifo
  done
  # --no-send, and nc's -d: nothing goes back.
  for opt in --no-send -d; do
    serve f "$opt"
    run_status st timeout 30 splice-tonet 127.0.0.1 "$PORT" < g > got 2> serr
    status_in 0 st "splice-tonet to splice-fromnet $opt < file"
    receive_done "$opt"
    same g out
    [ ! -s got ] || fail "splice-fromnet $opt sent its stdin"
  done
  # One stdin, many peers: -k with something to send is a usage error.
  run_status st timeout 10 splice-fromnet -k -b 127.0.0.1 0 < f > out 2> err
  status_in 2 st "splice-fromnet -k < file"
  mentions err "Try 'splice-fromnet --help'"
  [ ! -s out ] || fail "splice-fromnet -k < file wrote bytes"
  serve f -k --no-send --timeout 1
  send 127.0.0.1 file g
  receive_done "-k --no-send < file"
  same g out
}

tcase t_unix_sends_signal "splice-fromnet (-U) < FIFO, SIGTERM while it sends: 143, the peer reset, no socket file"
t_unix_sends_signal() {
  env --default-signal true 2> /dev/null || skip "env --default-signal is not supported"
  random_file f 100000
  rm -f sock err
  mkfifo feed
  # 100000 bytes, then the input stays open: it is still being sent.
  timeout 30 sh -c 'cat f; exec sleep 30' > feed &
  bg_started
  timeout 30 env --default-signal splice-fromnet -U sock < feed > out 2> err &
  _pid=$!
  bg_started
  wait_until "no 'listening on sock' line" grep -q "listening on sock$" err
  # Nothing to send: an empty pipe (--strict splices no /dev/null).
  : | timeout 30 splice-tonet -U sock > got 2> serr &
  bg_started
  wait_until "the peer never got the input" has_bytes got 100000
  kill -TERM "$(cat "/proc/$_pid/task/$_pid/children")"
  reap "$_pid" "splice-fromnet -U < FIFO"
  status 143 "$REAPED" "splice-fromnet -U < FIFO after SIGTERM"
  [ ! -e sock ] || fail "splice-fromnet -U, sending, left its socket file behind"
  same f got
  # Over TCP the peer learns that the stream is cut: a reset, not an end.
  rm -f err got
  timeout 30 sh -c 'cat f; exec sleep 30' > feed &
  bg_started
  start_receiver -i feed out err timeout 30 env --default-signal splice-fromnet -b 127.0.0.1 0
  _pid=$RPID
  : | timeout 30 splice-tonet 127.0.0.1 "$PORT" > got 2> serr &
  _tpid=$!
  bg_started
  wait_until "the peer never got the input" has_bytes got 100000
  kill -TERM "$(cat "/proc/$_pid/task/$_pid/children")"
  reap "$_pid" "splice-fromnet < FIFO"
  status 143 "$REAPED" "splice-fromnet < FIFO after SIGTERM"
  reap "$_tpid" "splice-tonet, its peer ended by SIGTERM"
  status 1 "$REAPED" "splice-tonet, its peer ended by SIGTERM"
  mentions serr "Connection reset by peer"
}

tcase t_fromnet_long_timeout_polls_finite "splice-fromnet --timeout past 2^31 ms: a finite wait (poll >= 0) or refused"
t_fromnet_long_timeout_polls_finite() {
  need strace
  for secs in 2147484 4294968 100000000 1e15; do
    rm -f trace err
    # strace's pid, its one child the tool: once that listens and sleeps
    # (in its poll for a peer), SIGTERM ends it; strace then ends too.
    env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -o trace \
      -e trace=poll,ppoll splice-fromnet --timeout "$secs" -b 127.0.0.1 0 > /dev/null 2> err &
    spid=$!
    wait_until "--timeout $secs: no 'listening on' line and no end" \
      sh -c 'grep -q "listening on" err || [ ! -d /proc/$1 ]' sh "$spid"
    tool=$(cat "/proc/$spid/task/$spid/children" 2> /dev/null || :)
    tool=${tool%% *}
    if [ -n "$tool" ]; then
      wait_until "--timeout $secs: the tool never slept" sleeping "$tool"
      kill -TERM "$tool" 2> /dev/null || :
    fi
    run_status st wait "$spid"
    # Refused (a usage error) is allowed; so is a finite wait.
    [ "$(cat st)" -ne 2 ] || { mentions err "timeout"; continue; }
    grep -E '^[0-9]+ +p?poll\(' trace > polls || fail "--timeout $secs: no poll in the trace"
    ! grep -E 'poll\(.*, -[0-9]+(\)| <unfinished)' polls > bad ||
      fail "--timeout $secs: poll waits for ever: $(head -n 1 bad)"
  done
}

tcase t_net_closed_std_fds "splice-fromnet and splice-tonet with 0, 1, 2 closed: named, exit 1, or exact"
t_net_closed_std_fds() {
  random_file in 1000000
  # fromnet: stdout needed, at once (not after a connection); stdin not needed.
  run_status st timeout 10 splice-fromnet -b 127.0.0.1 0 >&- 2> err
  hung "splice-fromnet >&-"
  status_in 1 st "splice-fromnet >&-"
  mentions err "standard output"
  run_status st timeout 10 sh -c 'exec splice-fromnet -b 127.0.0.1 0 <&- >&- 2>&-'
  hung "splice-fromnet, 0 1 2 closed"
  status_in 1 st "splice-fromnet, 0 1 2 closed"
  start_receiver out ferr timeout 10 sh -c 'exec splice-fromnet -b 127.0.0.1 0 <&-'
  run_status st timeout 10 splice-tonet 127.0.0.1 "$PORT" < in 2> terr
  reap_within "$RPID" 10 "splice-fromnet <&-"
  status 0 "$REAPED" "splice-fromnet <&-"
  status_in 0 st "splice-tonet to splice-fromnet <&-"
  same in out
  # tonet: stdin needed, and stdout for the peer's replies, both named
  # before any connection is tried; with --no-reply stdout is not needed.
  run_status st timeout 10 sh -c 'exec splice-tonet 127.0.0.1 9 <&-' 2> err
  hung "splice-tonet <&-"
  status_in 1 st "splice-tonet <&-"
  mentions err "standard input"
  run_status st timeout 10 sh -c 'exec splice-tonet 127.0.0.1 9 >&-' < in 2> err
  hung "splice-tonet >&-"
  status_in 1 st "splice-tonet >&-"
  mentions err "standard output: Bad file descriptor"
  for r in ">&-" "2>&-" ">&- 2>&-"; do
    start_receiver out ferr timeout 10 splice-fromnet -b 127.0.0.1 0
    run_status st timeout 10 sh -c "exec splice-tonet --no-reply 127.0.0.1 $PORT < in $r" 2> terr
    reap_within "$RPID" 10 "splice-fromnet"
    hung "splice-tonet $r"
    status_in 0 st "splice-tonet $r"
    same in out
  done
}

tcase t_net_pipe_resized_mid_stream "splice-fromnet (reader resizes) and splice-tonet (writer resizes): exact"
t_net_pipe_resized_mid_stream() {
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
    status_in 0 st "splice-fromnet, reader resizes to $size"
    count_is n 16777216
    # splice-tonet's stdin: the writer resizes it.
    start_receiver out ferr timeout 30 splice-fromnet -b 127.0.0.1 0
    { cat p1; sleep 0.5; splice-cat --pipe-size "$size" p2; } |
      timeout 30 splice-tonet 127.0.0.1 "$PORT" || fail "splice-tonet, writer resizes to $size"
    reap_within "$RPID" 30 "splice-fromnet"
    status 0 "$REAPED" "splice-fromnet"
    same ref out
  done
}

tcase t_net_out_of_descriptors "socket EMFILE, pipe2 EMFILE, low ulimit -n: splice-fromnet/-tonet/-tee -n fail clearly"
t_net_out_of_descriptors() {
  need strace
  random_file in 1000000
  run_status st inject socket:EMFILE:1+ timeout 10 splice-fromnet -b 127.0.0.1 0 > out 2> err
  hung "splice-fromnet with socket EMFILE"
  status_in 1 st "splice-fromnet with socket EMFILE"
  mentions err "Too many open files"
  run_status st inject socket:EMFILE:1+ timeout 10 splice-tonet 127.0.0.1 9 < in > out 2> err
  hung "splice-tonet with socket EMFILE"
  status_in 1 st "splice-tonet with socket EMFILE"
  mentions err "Too many open files"
  { cat in | run_status st inject socket:EMFILE:1+ timeout 10 splice-tee -n 127.0.0.1:9 f1 2> err; } |
    cat > out
  hung "splice-tee -n with socket EMFILE"
  status_in 1 st "splice-tee -n with socket EMFILE"
  mentions err "Too many open files"
  # splice-fromnet to a file needs an internal pipe: pipe2 EMFILE falls back
  # (or is a clear error), and never loses bytes silently.
  start_receiver out ferr inject pipe2:EMFILE:1+ timeout 10 splice-fromnet -b 127.0.0.1 0
  timeout 10 splice-tonet 127.0.0.1 "$PORT" < in 2> /dev/null || :
  reap_within "$RPID" 10 "splice-fromnet with pipe2 EMFILE"
  if [ "$REAPED" -eq 0 ]; then
    same in out
  else
    status 1 "$REAPED" "splice-fromnet with pipe2 EMFILE"
    grep -q 'Too many open files' ferr || { cat ferr >&2; fail "no message for pipe2 EMFILE"; }
  fi
  # ulimit -n: room for the listener only; the accepted socket fails:
  # a clear error at once, not a busy loop.
  lim=$(limit_for 1)
  run="ulimit -n $lim; exec \"$BINDIR/splice-fromnet\" ${STRICT:+--strict} -b 127.0.0.1 0"
  start_receiver out ferr timeout 10 sh -c "$run"
  timeout 10 splice-tonet 127.0.0.1 "$PORT" < in 2> /dev/null || :
  reap_within "$RPID" 10 "splice-fromnet under ulimit -n $lim"
  [ "$REAPED" -ne 124 ] || fail "splice-fromnet under ulimit -n $lim: hung"
  if [ "$REAPED" -eq 0 ]; then
    same in out
  else
    status 1 "$REAPED" "splice-fromnet under ulimit -n $lim"
    grep -q 'Too many open files' ferr || { cat ferr >&2; fail "no message under ulimit -n $lim"; }
  fi
}

tcase t_net_signals_mid_transfer "splice-fromnet and splice-tonet: SIGTERM, SIGINT, SIGHUP mid-transfer: 128+N"
t_net_signals_mid_transfer() {
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
    drain b
    start_receiver b ferr timeout 30 splice-fromnet -b 127.0.0.1 0
    feed a
    start_tool a /dev/null err splice-tonet 127.0.0.1 "$PORT"
    signalled splice-tonet "$sig" b.got
  done
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

tcase t_net_ending_signals_last_line "SIGINT, SIGTERM: splice-fromnet and splice-tonet, last line, totals, 128+N"
t_net_ending_signals_last_line() {
  for sig in INT TERM; do
    # The receiver is signalled.
    rm -f rout
    mkfifo rout
    marked_sink rout
    start_receiver rout lerr $SIGNALS_BACK splice-fromnet -b 127.0.0.1 0 -v --progress
    lpid=$RPID port=$PORT
    vmsplice -s inf -L 64M 2> /dev/null | splice-tonet 127.0.0.1 "$port" 2> /dev/null &
    spid=$!
    wait_counted splice-fromnet lerr
    kill -$sig $lpid
    ends_by $sig splice-fromnet $lpid lerr
    wait $spid || :
    # The sender is signalled.
    rm -f rout
    mkfifo rout
    marked_sink rout
    start_receiver rout lerr splice-fromnet -b 127.0.0.1 0
    lpid=$RPID port=$PORT
    rm -f in
    mkfifo in
    vmsplice -s inf -L 64M > in 2> /dev/null &
    gpid=$!
    $SIGNALS_BACK splice-tonet -v --progress 127.0.0.1 "$port" < in 2> serr &
    spid=$!
    wait_watcher $gpid
    wait_watcher $spid
    wait_counted splice-tonet serr
    kill -$sig $spid
    ends_by $sig splice-tonet $spid serr
    wait $gpid || :
    wait $lpid || :
  done
}

tcase t_relay_fifo "an echo loop through a FIFO (splice-fromnet < fifo | cat > fifo): every byte back, both tools end, exit 0"
t_relay_fifo() {
  random_file in 3145728
  mkfifo fifo
  # splice-fromnet's output ends when its peer's bytes are all out: only
  # then can cat, and so splice-fromnet's own input, end.
  # The shell that waits for it to take its status holds no copy of its stdout.
  sh -c 'sh -c "splice-fromnet -b 127.0.0.1 0 < fifo 2> ferr >&3 3>&- & p=\$!; exec 3>&-;
    wait \$p; echo \$? > fst" 3>&1 > /dev/null | cat > fifo' &
  relay=$!
  bg_started
  PORT=$(listen_port ferr "$relay")
  run_status st timeout 20 splice-tonet 127.0.0.1 "$PORT" < in > echoed 2> terr
  hung "splice-tonet through the echo loop"
  [ "$(cat st)" -eq 0 ] || { cat terr ferr >&2; fail "splice-tonet: exit $(cat st)"; }
  same in echoed
  reap_within "$relay" 10 "the echo loop after its peer ended"
  status_in 0 fst "splice-fromnet in the echo loop"
}

tcase t_fromnet_progress_counts_received "splice-fromnet --progress and --size count what the peer sends, not what its stdin sends the peer"
t_fromnet_progress_counts_received() {
  random_file a 2097152
  random_file b 3000000
  # b goes to the peer while a comes from it: the lines count a alone.
  start_receiver -i b got ferr timeout 30 splice-fromnet --progress --interval 0.1 --size 2M \
    -b 127.0.0.1 0
  run_status st timeout 30 splice-tonet 127.0.0.1 "$PORT" < a > back 2> terr
  status_in 0 st "splice-tonet"
  reap "$RPID" "splice-fromnet"
  status 0 "$REAPED" "splice-fromnet"
  same a got
  same b back
  tail -n 1 ferr | grep -q '^2097152 bytes .*, done 100%$' ||
    { cat ferr >&2; fail "the last line does not count the 2 MiB the peer sent"; }
  [ "$(lines_with ferr ", done 100%")" -eq 1 ] || { cat ferr >&2; fail "100% before the end"; }
  awk '/ bytes / { if ($1 + 0 > 2097152) bad = 1 } END { exit bad }' ferr ||
    { cat ferr >&2; fail "a line counted what was sent to the peer"; }
}

tcase --timing t_tonet_progress_counts_sent "splice-tonet --progress and -L count what is sent, not what an echo peer replies"
t_tonet_progress_counts_sent() {
  need socat
  random_file f 1048576
  start_receiver /dev/null serr socat -d -d TCP-LISTEN:0,bind=127.0.0.1 EXEC:cat
  spid=$RPID port=$PORT
  t0=$(now_ms)
  splice-tonet -L 2M --interval 0.25 --name sent 127.0.0.1 "$port" < f 2> err > back
  echo_ms=$(( $(now_ms) - t0 ))
  wait $spid || :
  # -L against a peer that only reads, in the same run: 1 MiB at 2 MiB/s
  # take as long, not twice as long as if the replies counted too.
  start_receiver /dev/null lerr splice-fromnet -b 127.0.0.1 0
  lpid=$RPID port=$PORT
  t0=$(now_ms)
  splice-tonet -L 2M 127.0.0.1 "$port" < f 2> /dev/null
  sink_ms=$(( $(now_ms) - t0 ))
  wait $lpid || :
  echo "-L 2M, 1 MiB: $echo_ms ms to an echo peer, $sink_ms ms to a sink"
  [ $(( echo_ms * 2 )) -lt $(( sink_ms * 3 )) ] ||
    fail "-L to an echo peer took $echo_ms ms, to a sink $sink_ms ms: the replies count"
  same f back
  mentions err "^     sent: 1048576 bytes .*, done 100%$"
  [ "$(lines_with err ", done 100%")" -eq 1 ] || { cat err >&2; fail "100% before the end"; }
  grep -q "^sent: 2097152 bytes" err && { cat err >&2; fail "the replies counted"; }
  :
}

tcase t_nc_q_d "nc's -q SECS (quit once stdin ended, the peer open or not) on both tools, and -d on splice-tonet (stdin never read)"
t_nc_q_d() {
  # A listener that never closes: its own stdin never ends.
  mkfifo never
  exec 5<> never
  start_receiver -i never got.l lerr timeout 60 splice-fromnet -b 127.0.0.1 0
  printf hello | run_status st timeout 20 splice-tonet -q 0.2 127.0.0.1 "$PORT" > got.c
  status_in 0 st "splice-tonet -q 0.2, a peer that stays"
  wait_until "the listener never got hello" grep -q '^hello$' got.l
  # Without -q it waits for the peer, as nc does: still there after a while.
  start_receiver -i never got.l0 lerr0 timeout 60 splice-fromnet -b 127.0.0.1 0
  printf hi | run_status st timeout 1 splice-tonet 127.0.0.1 "$PORT" > /dev/null
  status_in 124 st "splice-tonet without -q, a peer that stays"
  exec 5>&-
  # The listener's own -q: its stdin ended, a client that never shuts down.
  start_receiver -i /dev/null got.l2 lerr2 sh -c 'printf abc | exec timeout 20 splice-fromnet -q 0.2 -b 127.0.0.1 0'
  lpid=$RPID
  exec 6<> never
  timeout 20 splice-tonet 127.0.0.1 "$PORT" < never > got.c2 &
  cpid=$!
  bg_started
  reap_within "$lpid" 20 "splice-fromnet -q 0.2"
  [ "$REAPED" = 0 ] || fail "splice-fromnet -q ended $REAPED"
  wait_until "the client never got abc" grep -q '^abc$' got.c2
  kill "$cpid"
  exec 6>&-
  # -d: nothing read from stdin (its offset stays for the next reader).
  printf 'stdin stays\n' > in
  start_receiver -i /dev/null got.l3 lerr3 sh -c 'printf xyz | exec timeout 20 splice-fromnet -q 0.2 -b 127.0.0.1 0'
  { timeout 20 splice-tonet -d 127.0.0.1 "$PORT" > got.c3; cat > rest; } < in
  [ "$(cat got.c3)" = xyz ] || fail "splice-tonet -d got '$(cat got.c3)'"
  same in rest
  [ ! -s got.l3 ] || fail "splice-tonet -d sent '$(cat got.l3)'"
}

tcase t_listener_terminal "a listener on a 40- and an 80-column terminal says that nothing typed is sent (nc -l would send it), and drops it at its end"
t_listener_terminal() {
  pty=$(helper pty-screen)
  for cols in 40 80; do
    run_status st "$pty" -s "${cols}x24" -- splice-fromnet --timeout 0.2 -b 127.0.0.1 0 > screen
    status_in 1 st "splice-fromnet --timeout 0.2, no peer"
    tr -d ' \n' < screen | grep -q "standardinputisaterminal:nothingtypedissent" ||
      { cat screen >&2; fail "$cols columns: the listener did not say it sends nothing"; }
  done
  # What is typed while it listens is dropped when it ends: the shell after
  # it finds no line to run (nc -l would have sent it, cat would leave it).
  # Enter sends a carriage return, which the terminal makes a newline.
  "$pty" -s 80x24 -i "echo TYPED$(printf '\r')" -- sh -c \
    'splice-fromnet --timeout 0.5 -b 127.0.0.1 0; dd bs=100 count=1 iflag=nonblock > left 2> /dev/null' \
    > screen || :
  [ -e left ] && [ ! -s left ] || { cat screen left >&2; fail "typed text left for the shell"; }
  # Not a terminal: no word of it.
  splice-fromnet --timeout 0.2 -b 127.0.0.1 0 < /dev/null > /dev/null 2> err || :
  ! grep -q "terminal" err || fail "a note with no terminal"
}

run_area "$@"
