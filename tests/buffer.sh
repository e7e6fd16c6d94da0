#!/bin/sh
# splice-buffer: a ring of pipes, and a memfd past what pipes hold, between
# two stages.  Every byte exact in every shape (pipes, files, TCP, behind
# readers that pass pages on, sizes at the ring's edges); the burst it
# absorbs; -P, -p and -L; the status line's fill level and rates; signals;
# and its edges: closed descriptors, pipes resized by the other end, EMFILE
# and ENOMEM while the ring is built, an unprivileged user's pipe budget
# spent, /dev/full, O_APPEND, a reader that leaves, and the memfd's regions,
# which must be punched out before they are written again.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

MIB=1048576

# wait_text FILE ERE [N]: until N lines (default 1) of FILE match ERE, at
# most 20 s.
wait_text() {
  _i=0
  until [ "$(grep -c -E -- "$2" "$1" 2> /dev/null)" -ge "${3:-1}" ]; do
    _i=$((_i + 1))
    [ $_i -le 400 ] || { cat "$1" >&2 2> /dev/null || :; fail "no ${3:-1} lines '$2' in $1 in 20 s"; }
    sleep 0.05
  done
}

# wait_file FILE: until FILE exists, at most 20 s; false if it never does.
wait_file() {
  _i=0
  until [ -e "$1" ]; do
    _i=$((_i + 1))
    [ $_i -le 400 ] || return 1
    sleep 0.05
  done
}

# fills FILE [FROM]: the fill levels of the status lines in FILE from line
# FROM on (default 1), one a line.
fills() {
  tail -n +"${2:-1}" "$1" | sed -n 's/.*, buffer *\([0-9][0-9]*\)% full\(, .*\)\{0,1\}$/\1/p'
}

# wait_fill FILE PCT [FROM]: until a status line of FILE from line FROM on
# shows the buffer PCT% full or more, at most 20 s.
wait_fill() {
  _i=0
  until [ "$(fills "$1" "${3:-1}" | awk -v p="$2" '$1 >= p { f = 1 } END { print f + 0 }')" = 1 ]; do
    _i=$((_i + 1))
    [ $_i -le 400 ] || { cat "$1" >&2; fail "$1: never $2% full"; }
    sleep 0.05
  done
}

# size_is FILE BYTES
size_is() {
  [ "$(wc -c < "$1")" -eq "$2" ] || fail "$1 holds $(wc -c < "$1") bytes, expected $2"
}

# has_size FILE BYTES: FILE holds BYTES now.
has_size() {
  [ "$(wc -c < "$1")" -eq "$2" ]
}

# has_lines FILE N: FILE has N lines or more now.
has_lines() {
  [ "$(wc -l < "$1")" -ge "$2" ]
}

# ---- every byte, every shape ------------------------------------------------

tcase b_seq_3g "vmsplice -p seq -s 3G | splice-buffer -m 256M | vmsplice-touser --verify seq"
b_seq_3g() {
  vmsplice -p seq -s 3G | { run_status st splice-buffer -m 256M; } |
    vmsplice-touser --verify seq -c > n
  status_in 0 st "splice-buffer -m 256M"
  count_is n 3221225472
}

tcase b_random "random pattern through -m 16M, a 64 KiB ring, a one-page ring: exact"
b_random() {
  for args in "-m 16M" "-m 1M --pipe-size 64K" "-m 4K"; do
    # shellcheck disable=SC2086 # one word per option
    vmsplice -p random:7 -s 64M | { run_status st splice-buffer $args; } |
      vmsplice-touser --verify random:7 -c > n
    status_in 0 st "splice-buffer $args"
    count_is n 67108864
  done
}

tcase b_file "a regular file in, a file or a pipe out: exact; --progress counts to the file's size"
b_file() {
  random_file f 10000001
  splice-buffer -m 4M < f > o
  same f o
  splice-buffer -m 4M < f | cat > o
  same f o
  vmsplice -p seq -s 8M | splice-buffer -m 4M > o
  cat o | vmsplice-touser --verify seq -c > n
  count_is n 8388608
  splice-buffer --progress < f > o 2> err
  same f o
  mentions err "^10000001 bytes .*, in .* @ .*, buffer   0% full, done 100%$"
}

tcase b_tcp_chain "splice-fromnet | splice-buffer and splice-buffer | splice-tonet: exact"
b_tcp_chain() {
  mkfifo net
  { run_status st splice-buffer -m 16M < net; } | vmsplice-touser --verify seq -c > n &
  vpid=$!
  start_receiver net lerr splice-fromnet -b 127.0.0.1 0
  lpid=$RPID port=$PORT
  vmsplice -p seq -s 64M | splice-tonet 127.0.0.1 "$port"
  wait "$lpid" || fail "splice-fromnet"
  wait "$vpid" || fail "vmsplice-touser --verify seq after splice-fromnet | splice-buffer"
  status_in 0 st "splice-fromnet | splice-buffer"
  count_is n 67108864
  start_receiver got lerr2 splice-fromnet -b 127.0.0.1 0
  lpid=$RPID port=$PORT
  vmsplice -p seq -s 64M | { run_status st splice-buffer -m 16M; } |
    splice-tonet 127.0.0.1 "$port"
  wait "$lpid" || fail "splice-fromnet"
  status_in 0 st "splice-buffer | splice-tonet"
  cat got | vmsplice-touser --verify seq -c > n
  count_is n 67108864
}

tcase b_socket_stdio "a TCP socket as standard input and output (socat exec): every byte echoed"
b_socket_stdio() {
  need socat
  seq_ref ref $((64 * MIB))
  # socat execs splice-buffer with the accepted socket as its stdin and stdout.
  start_receiver /dev/null slog timeout 60 socat -d -d TCP-LISTEN:0,bind=127.0.0.1 \
    EXEC:"splice-buffer -m 4M",nofork
  spid=$RPID port=$PORT
  splice-tonet 127.0.0.1 "$port" < ref > got
  wait "$spid" || { cat slog >&2; fail "socat exec splice-buffer"; }
  same ref got
}

tcase b_behind_passers "behind splice-tee and a second pipe (readers that pass pages on): exact"
b_behind_passers() {
  vmsplice -p seq -s 256M | { run_status st splice-buffer -m 32M; } | splice-tee copy |
    splice-cat | vmsplice-touser --verify seq -c > n
  status_in 0 st "splice-buffer | splice-tee | splice-cat"
  count_is n 268435456
  cat copy | vmsplice-touser --verify seq -c > n
  count_is n 268435456
}

tcase b_behind_pv "behind pv, a reader that passes pages on: exact"
b_behind_pv() {
  need pv
  vmsplice -p seq -s 256M | { run_status st splice-buffer -m 32M; } | pv -q |
    vmsplice-touser --verify seq -c > n
  status_in 0 st "splice-buffer | pv"
  count_is n 268435456
}

tcase b_waiting_reader "a reader that waits until the producer is done, then takes everything: exact"
b_waiting_reader() {
  { vmsplice -p seq -s 24M; : > produced; } | { run_status st splice-buffer -m 32M; } |
    { wait_file produced && : > was_first; vmsplice-touser --verify seq -c > n; }
  status_in 0 st "splice-buffer -m 32M"
  count_is n 25165824
  [ -e was_first ] || fail "the producer of 24 MiB did not finish before its reader began"
}

# through SIZE ARGS...: the first SIZE bytes of "ref" through splice-buffer
# ARGS to a reader that waits until the producer is done, so the buffer
# fills to its edge; every byte checked.
through() {
  _n=$1
  shift
  head -c "$_n" ref > part
  { splice-cat part; : > produced; } | { run_status st "$@"; } |
    { wait_file produced || :; cat > out; }
  status_in 0 st "$* with $_n bytes"
  same part out
  rm -f produced
}

tcase b_sizes "0 and 1 byte, and a 4 MiB ring's capacity -1, 0, +1: exact"
b_sizes() {
  seq_ref ref $((6 * MIB))
  for n in 0 1 $((4 * MIB - 1)) $((4 * MIB)) $((4 * MIB + 1)); do
    through "$n" splice-buffer -m 4M
  done
}

tcase b_sizes_memfd "a memfd-only buffer (pipe2 EMFILE): 0, 1 byte, its capacity -1, 0, +1: exact"
b_sizes_memfd() {
  need strace
  needs_fallback
  seq_ref ref $((6 * MIB))
  for n in 0 1 $((4 * MIB - 1)) $((4 * MIB)) $((4 * MIB + 1)); do
    through "$n" inject pipe2:EMFILE splice-buffer -m 4M
  done
}

tcase b_m_sizes "-m 1, 4097, 1M-1, 1M+1, 3M+1: the pipes hold at least that much (-v), exact"
b_m_sizes() {
  seq_ref ref $((5 * MIB))
  for m in 1 4097 $((MIB - 1)) $((MIB + 1)) $((3 * MIB + 1)); do
    splice-buffer -v -m "$m" < ref 2> err | cat > out
    same ref out
    got=$(sed -n 's/.*buffer: \([0-9]*\) bytes in [0-9]* pipes*$/\1/p' err)
    [ -n "$got" ] && [ "$got" -ge "$m" ] || { cat err >&2; fail "-m $m: buffer of '$got' bytes"; }
  done
}

tcase b_pipe_size "--pipe-size past pipe-max-size or below the default: the ring counted by what pipes get (-v), no memfd, exact, --strict too"
b_pipe_size() {
  max=$(cat /proc/sys/fs/pipe-max-size)
  page=$("$(helper splice-probe)" page-size) || fail "splice-probe page-size"
  # Asked past pipe-max-size, a pipe gets pipe-max-size: 8 of them hold
  # 8 of it; a byte more takes a 9th pipe of a page; the note is said once.
  seq_ref ref $((9 * max + 2))
  for m in $((8 * max)):8:$((8 * max)) $((8 * max + 1)):9:$((8 * max + page)); do
    ring=${m##*:} pipes=${m#*:} m=${m%%:*}
    pipes=${pipes%:*}
    for strict in "" --strict; do
      # The reader waits for the producer: the ring fills to its edge.
      through $((m + 1)) splice-buffer $strict -v -m "$m" --pipe-size $((64 * max)) 2> err
      grep -q "asked for $((64 * max)) bytes, got $max: /proc/sys/fs/pipe-max-size" err ||
        { cat err >&2; skip "this user's pipes may grow past pipe-max-size"; }
      [ "$(grep -c -- "--pipe-size: asked for" err)" -eq 1 ] ||
        { cat err >&2; fail "--pipe-size's note not said once"; }
      mentions err "buffer: $ring bytes in $pipes pipes$"
    done
  done
  # Below the default: 16 KiB pipes; 20 KiB, which the kernel rounds up to
  # 8 pages (32 KiB).
  for ps in 16K:16384 20K:32768; do
    for strict in "" --strict; do
      through $((MIB + 1)) splice-buffer $strict -v -m 1M --pipe-size "${ps%:*}" 2> err
      mentions err "buffer: $MIB bytes in $((MIB / ${ps#*:})) pipes$"
    done
  done
}

# ---- what a buffer is for ----------------------------------------------------

tcase --timing b_burst "a 32 MiB producer before a -L 16M reader: done with most of it still to read"
b_burst() {
  # The reader takes 8 MiB at 16 MiB/s, then waits for the producer to
  # end: without a buffer it never would, two pipes (2 MiB) from the end.
  : > out
  { vmsplice -p seq -s 32M; wc -c < out > at_end; } | { run_status st splice-buffer -m 64M; } |
    {
      splice-cat -L 16M --count 8M
      wait_file at_end && : > was_first
      splice-cat
    } > out
  status_in 0 st "splice-buffer -m 64M"
  cat out | vmsplice-touser --verify seq -c > n
  count_is n 33554432
  [ -e was_first ] || fail "the producer of 32 MiB did not end while its reader had 8 MiB"
  [ "$(cat at_end)" -le $((8 * MIB)) ] ||
    fail "the producer ended when the reader had $(cat at_end) of 33554432 bytes"
}

tcase --timing b_rate "-L 8M: 8 MiB go out in 1 s (not under 0.925 s) while the producer ends at once"
b_rate() {
  : > out
  t0=$(date +%s%N)
  { vmsplice -p seq -s 8M; wc -c < out > at_end; } | splice-buffer -L 8M -m 16M > out
  ms=$((($(date +%s%N) - t0) / 1000000))
  cat out | vmsplice-touser --verify seq -c > n
  count_is n 8388608
  [ "$ms" -ge 925 ] || fail "-L 8M: 8 MiB out in $ms ms"
  [ "$(cat at_end)" -lt $((4 * MIB)) ] ||
    fail "-L 8M: the producer ended when $(cat at_end) bytes were out"
}

tcase b_start_threshold "-P 50: nothing out before half full, again after it ran empty; EOF flushes"
b_start_threshold() {
  seq_ref ref $((12 * MIB))
  mkfifo go1 go2 go3
  # 6 MiB, then 2 more, then 1, then the last 3 and the end, each on a word.
  {
    splice-cat --count 6M ref
    read -r _ < go1
    splice-cat --skip 6M --count 2M ref
    read -r _ < go2
    splice-cat --skip 8M --count 1M ref
    read -r _ < go3
    splice-cat --skip 9M ref
  } | { run_status st splice-buffer -m 16M -P 50 --interval 0.05 2> err; } |
    splice-cat > out &
  pid=$!
  bg_started $pid
  wait_fill err 37
  size_is out 0
  echo > go1
  # 8 of 16 MiB, 50% with the last byte of them: out it goes, all of it,
  # and nothing follows until the next word.
  wait_until "-P 50 at 50%: $(wc -c < out) bytes out, not 8 MiB" has_size out $((8 * MIB))
  from=$(($(wc -l < err) + 1))
  echo > go2
  # Run empty, the buffer waits for 50% again: 1 MiB stays in.
  wait_fill err 6 "$from"
  size_is out $((8 * MIB))
  echo > go3
  wait "$pid"
  status_in 0 st "splice-buffer -P 50"
  same ref out
}

# fill_lines FILE FROM N: until FILE has N status lines from line FROM on,
# at most 20 s; then prints their fill levels' highest.
fill_lines() {
  wait_until "no $3 status lines in $1 from line $2 on" has_lines "$1" $(($2 + $3 - 1))
  fills "$1" "$2" | head -n "$3" | sort -n | tail -n 1
}

tcase b_resume_threshold "-p 25: once full, no input until drained to 25%; by default, input at once"
b_resume_threshold() {
  seq_ref ref $((40 * MIB))
  for p in 25 100; do
    rm -f err go1 go2 go3 took1
    mkfifo go1 go2 go3
    # The reader takes 10 MiB on the first word, 3 more on the second,
    # the rest on the third; the pipe to it holds 1 MiB more at most.
    splice-cat ref | { run_status st splice-buffer -m 16M -p "$p" --interval 0.05 2> err; } |
      {
        read -r _ < go1
        splice-cat --count 10M
        : > took1
        read -r _ < go2
        splice-cat --count 3M
        read -r _ < go3
        splice-cat
      } | vmsplice-touser --verify seq -c > n &
    pid=$!
    bg_started $pid
    wait_fill err 100
    echo > go1
    wait_until "the reader never took 10 MiB" test -e took1
    from=$(($(wc -l < err) + 1))
    # 16 MiB less 10 to 11 out: 31 to 37% full.
    if [ "$p" = 25 ]; then
      # Above 25%, input waits: 5 lines (a quarter of a second) say so.
      high=$(fill_lines err "$from" 5)
      [ "$high" -le 37 ] || { tail -n +"$from" err >&2; fail "-p 25: refilled at $high% full"; }
      from=$(($(wc -l < err) + 1))
      echo > go2
      # 16 less 13 to 14 MiB: below 25%, input again, until full (but
      # for what the head pipe gave: the ring fills whole pipes, 1 MiB).
      wait_fill err 90 "$from"
    else
      # Input again at once, until full, while the reader waits.
      wait_fill err 90 "$from"
      echo > go2
    fi
    echo > go3
    wait "$pid"
    status_in 0 st "splice-buffer -p $p"
    count_is n 41943040
  done
}

# ---- the status line and signals ----------------------------------------------

tcase b_progress "--progress: each line ends with the bytes in, both rates and the fill level; the summary at the end, -q without"
b_progress() {
  # The reader waits for the producer's end and for 3 lines, one of them
  # written since the end: the buffer holds all but the pipes' 2 MiB.
  { vmsplice -p seq -s 8M; : > produced; } | splice-buffer -m 8M --interval 0.2 2> err |
    {
      wait_file produced || :
      lines=$(wc -l < err)
      wait_until "no status line after the producer's end" has_lines err $((lines + 1))
      wait_until "fewer than 3 status lines" has_lines err 3
      tail -n 1 err > at_end
      vmsplice-touser --verify seq -c > n
    }
  count_is n 8388608
  [ "$(grep -c -E ', in +[0-9.]+ ([KMGT]i)?B @ +[0-9.]+ ([KMGT]i)?B/s, out @ +[0-9.]+ ([KMGT]i)?B/s, buffer +[0-9]+% full$' err)" -ge 3 ] ||
    { cat err >&2; fail "fewer than 3 status lines with the buffer's fields"; }
  # The producer is done at once: the buffer is full of it.
  [ "$(fills at_end)" -ge 50 ] || { cat err >&2; fail "not half full once the producer ended"; }
  mentions err "^8388608 bytes .*, buffer   0% full$"
  # mbuffer's summary, last: the whole, and the most the buffer held, over half.
  tail -n 1 err | grep -q -E '^splice-buffer: 8388608 bytes \(8\.0 MiB\) in [0-9.]+ s, avg .+/s, buffer at most ([5-9][0-9]|100)% full \(.+ of 8\.0 MiB\)$' ||
    { cat err >&2; fail "no summary that says the whole and a buffer over half full"; }
  vmsplice -p seq -s 1M | splice-buffer --numeric 2> num > /dev/null
  [ "$(cat num)" = 1048576 ] || fail "--numeric: '$(cat num)'"
  # Without --progress the summary alone; -q (and --quiet) leave stderr empty.
  # Pipes in and out, and room in the one out: spliced straight through, the
  # bytes were never in the buffer.
  vmsplice -s 3000 | splice-buffer 2> sum | cat > /dev/null
  mentions sum "^splice-buffer: 3000 bytes (2.9 KiB) in [0-9.]* s, avg .*, buffer at most 0% full (0 B of 32 MiB)$"
  [ "$(wc -l < sum)" -eq 1 ] || { cat sum >&2; fail "more than the summary"; }
  for q in -q --quiet; do
    vmsplice -s 3000 | splice-buffer $q 2> quiet > /dev/null
    [ ! -s quiet ] || { cat quiet >&2; fail "$q: stderr not empty"; }
  done
}

# drawn_buffer COLS [OPTS]...: splice-buffer --name buf OPTS of 3 MiB at
# 4 MiB/s on a terminal COLS wide; the rows it drew go to "lines", 4 or more.
drawn_buffer() {
  _cols=$1
  shift
  TERM=xterm "$pty" -s "${_cols}x24" -o raw -- sh -c \
    'vmsplice -s 3M | splice-buffer -m 4M -L 4M --interval 0.1 --name buf "$@" > /dev/null' \
    sh "$@" > /dev/null || fail "pty-screen"
  # A row ends where the cursor goes back (ESC 8) to where messages go.
  sed 's/\x1b\[[0-9;]*[A-Za-z]//g; s/\x1b7//g; s/\x1b8/\n/g' raw | tr '\r' '\n' |
    grep 'buf: ' > lines || :
  [ "$(wc -l < lines)" -ge 4 ] || { cat -v raw >&2; fail "$_cols columns $*: fewer than 4 lines"; }
}

tcase b_narrow "a 40- or 80-column terminal: the buffer's fill stays when the rates go; with a total, the part done and the ETA stay whole before it"
b_narrow() {
  pty=$(helper pty-screen)
  # No total: at 40 columns the count and the fill, no rate.  A tick before
  # the first byte (a slow start) still has room for the name's padding.
  drawn_buffer 40
  grep -v -E '^(buf: +[0-9]+ (B|bytes)| *buf: 0 bytes), buffer +[0-9]+% full$' lines > without || :
  [ ! -s without ] || { cat lines >&2; fail "40 columns: a line not the count and the fill"; }
  # A total: at 80 columns the fill beside the part done and the ETA.
  drawn_buffer 80 --size 3M
  grep -v -E ', buffer +[0-9]+% full, done +[0-9]+%(, ETA ([0-9]:[0-9]{2}:[0-9]{2}|-:--:--))?$' lines \
    > without || :
  [ ! -s without ] || { cat lines >&2; fail "80 columns: a line without the fill, the part done or the ETA"; }
  # At 40 columns the fill goes; the name, count, part done and ETA stay whole.
  drawn_buffer 40 --size 3M
  grep -v -E '^(buf: +[0-9]+ B, done +[0-9]+%(, ETA [0-9]:[0-9]{2}:[0-9]{2})?| *buf: +0 bytes, done +0%, ETA -:--:--)$' \
    lines > without || :
  [ ! -s without ] || { cat lines >&2; fail "40 columns: a line cut"; }
  tail -n 1 lines | grep -q '^buf: 3145728 B, done 100%$' || { cat lines >&2; fail "40 columns: the last row"; }
}

tcase b_usr1 "SIGUSR1 (3 times): a status line with the fill level each time, the bytes exact"
b_usr1() {
  mkfifo a b go
  # The input ends only once the signals are answered.
  { vmsplice -p seq -s 24M; read -r _ < go; } > a &
  bg_started $!
  splice-buffer -v -m 32M -L 12M < a > b 2> err &
  pid=$!
  bg_started $pid
  cat b | vmsplice-touser --verify seq -c > n &
  vpid=$!
  # -v's note on the ring (not "splice-buffer: pipe capacity") comes once
  # the status lines have the ring's fill level.
  wait_text err ": buffer: [0-9]+ bytes in "
  for i in 1 2 3; do
    kill -USR1 "$pid"
    wait_text err "% full$" "$i"
  done
  echo > go
  wait "$pid" || fail "splice-buffer after SIGUSR1: status $?"
  wait "$vpid" || fail "vmsplice-touser --verify seq"
  count_is n 25165824
  [ "$(grep -c -E '^[0-9]+ bytes? .*copied, .*, buffer +[0-9]+% full$' err)" -eq 3 ] ||
    { cat err >&2; fail "not 3 status lines"; }
}

tcase b_signals "SIGINT, SIGTERM, SIGHUP mid-stream: the last line, -v totals, 128+N"
b_signals() {
  for sig in INT TERM HUP; do
    rm -f a b err
    mkfifo a b
    vmsplice -s inf -L 64M > a 2> /dev/null &
    gen=$!
    splice-cat < b > /dev/null &
    sink=$!
    env --default-signal=INT,TERM,HUP splice-buffer -v --progress -m 16M < a > b 2> err &
    pid=$!
    bg_started $gen $sink $pid
    wait_text err ": buffer: [0-9]+ bytes in "
    # A line that counts a byte: -v's totals name a method only once it moved one.
    wait_counted splice-buffer err
    kill -"$sig" "$pid"
    st=0
    wait "$pid" || st=$?
    case $sig in HUP) n=1 ;; INT) n=2 ;; TERM) n=15 ;; esac
    status $((128 + n)) "$st" "splice-buffer after SIG$sig"
    # The last status line, then only the -v totals and the summary.
    awk '/copied, .*% full$/ { n = NR } END { exit !n }' err &&
      awk '/copied, .*% full$/ { n = NR; bad = 0; next } n && !/^splice-buffer: / { bad = 1 }
        END { exit bad }' err ||
      { cat err >&2; fail "SIG$sig: no last status line before the totals"; }
    [ "$(grep -c "^splice-buffer: [0-9]* bytes (.*) in [0-9.]* s, avg .*/s, buffer at most [0-9]*% full (.* of .*)$" err)" -eq 1 ] ||
      { cat err >&2; fail "SIG$sig: not one summary"; }
    mentions err ": [0-9]* bytes by splice(2) in [0-9.]* s"
    wait "$gen" || :
    wait "$sink" || :
  done
}

# ---- edges ------------------------------------------------------------------

tcase b_closed "0 or 1 closed: named, exit 1; 2 closed: exact, none of its pipes on 2 (strace)"
b_closed() {
  random_file in 3000000
  run_status st timeout 10 sh -c 'exec splice-buffer <&-' > out 2> err
  status_in 1 st "splice-buffer <&-"
  mentions err "standard input: Bad file descriptor"
  run_status st timeout 10 sh -c 'exec splice-buffer >&-' < in 2> err
  status_in 1 st "splice-buffer >&-"
  mentions err "standard output: Bad file descriptor"
  run_status st timeout 10 sh -c 'exec splice-buffer <&- >&- 2>&-'
  status_in 1 st "splice-buffer <&- >&- 2>&-"
  splice-cat in | { run_status st timeout 10 sh -c 'exec splice-buffer -m 4M 2>&-'; } | cat > out
  status_in 0 st "splice-buffer 2>&-"
  same in out
  need strace
  splice-cat in | { run_status st traced -f -o trace -e trace=pipe2,memfd_create \
    sh -c 'exec splice-buffer -m 4M 2>&-'; } | cat > out
  status_in 0 st "splice-buffer 2>&- under strace"
  same in out
  ! grep -E 'pipe2\(\[([0-2],|[0-9]+, [0-2]\])|memfd_create\(.*\) = [0-2]$' trace ||
    fail "a pipe or the memfd of splice-buffer landed on 0-2"
  grep -q 'pipe2(' trace || fail "no pipe2 in the trace: the check checked nothing"
}

tcase b_resize "the writer resizes stdin's pipe, the reader stdout's, mid-stream: exact"
b_resize() {
  seq_ref ref $((16 * MIB))
  for size in 4K 64K 4M; do
    # The writer: 4 MiB, then the rest from splice-cat, which resizes the pipe.
    { splice-cat --count 4M ref; splice-cat --pipe-size "$size" --skip 4M ref; } |
      { run_status st splice-buffer -m 8M; } | vmsplice-touser --verify seq -c > n
    status_in 0 st "writer resizes to $size"
    count_is n 16777216
    # The reader, once the buffer holds everything: resizes as it starts.
    { splice-cat ref; : > produced; } | { run_status st splice-buffer -m 32M; } |
      { wait_file produced || :; vmsplice-touser --pipe-size "$size" --verify seq -c > n; }
    status_in 0 st "reader resizes to $size"
    count_is n 16777216
    rm -f produced
  done
}

tcase b_poll_splice_faults "poll(2) and splice(2) failing EINTR or EIO at the 1st, 2nd or 3rd call: no hang; exact, or exit 1 naming the error"
b_poll_splice_faults() {
  need strace
  seq_ref ref 4194304
  for sys in poll splice; do
    for err in EINTR EIO; do
      for when in 1 2 3; do
        what="splice-buffer, $sys $err at call $when"
        { cat ref | run_status st inject "$sys:$err:$when" timeout 20 splice-buffer -m 1M \
          2> err; } | cat > out
        hung "$what"
        case $(cat st) in
        0) same ref out ;;
        1)
          [ "$err" = EIO ] || { cat err >&2; fail "$what: EINTR is asked again, not an error"; }
          mentions err ": Input/output error$"
          ;;
        *) cat err >&2; fail "$what: exit $(cat st)" ;;
        esac
      done
    done
  done
}

# injected_exact SPEC BYTES TEXT: BYTES of seq through splice-buffer -v -m 16M
# with strace's fault SPEC: exit 0, every byte verified, -v says TEXT.
injected_exact() {
  vmsplice -p seq -s "$2" | { run_status st inject "$1" splice-buffer -v -m 16M 2> err; } |
    vmsplice-touser --verify seq -c > n
  status_in 0 st "splice-buffer, $1"
  count_is n "$2"
  mentions err "$3"
}

tcase b_emfile "pipe2 EMFILE from the 3rd call, ulimit -n 16: the rest a memfd, exact; -v says why"
b_emfile() {
  need strace
  needs_fallback
  injected_exact pipe2:EMFILE:3+ 67108864 \
    "buffer: 2097152 bytes in 2 pipes (pipe2: Too many open files), 14680064 bytes in a memfd"
  # All of it in the buffer, most in the memfd, while the reader waits.
  { vmsplice -p seq -s 24M; : > produced; } |
    { run_status st sh -c 'ulimit -n 16 && exec splice-buffer -v -m 32M' 2> err; } |
    { wait_file produced || :; vmsplice-touser --verify seq -c > n; }
  status_in 0 st "ulimit -n 16; splice-buffer -m 32M"
  count_is n 25165824
  mentions err "pipes (pipe2: Too many open files), [0-9]* bytes in a memfd"
}

tcase b_strict_refusals "--strict: a memfd part, EMFILE for a file's stage, O_APPEND: exit 1, no byte out"
b_strict_refusals() {
  random_file f 3000000
  run_status st sh -c 'ulimit -n 16 && exec splice-buffer --strict -m 32M' < f > out 2> err
  status_in 1 st "ulimit -n 16; splice-buffer --strict -m 32M"
  mentions err "buffer: [0-9]* of 33554432 bytes in pipes (pipe2: Too many open files); --strict refuses"
  size_is out 0
  : > app
  run_status st splice-buffer --strict < f >> app 2> err
  status_in 1 st "splice-buffer --strict >> app"
  mentions err "--strict"
  size_is app 0
  need strace
  # A file on stdin needs a stage pipe of its own: none, no byte moves.
  run_status st inject pipe2:EMFILE splice-buffer < f > out 2> err
  status_in 1 st "splice-buffer < f, EMFILE from every pipe2"
  mentions err "buffer: pipe2: Too many open files"
  size_is out 0
}

tcase --alone b_enomem "ENOMEM: from pipe2 (the memfd part), from memfd_create (pipes enough, or exit 1 first)"
b_enomem() {
  need strace
  needs_fallback
  injected_exact pipe2:ENOMEM:5+ 33554432 "(pipe2: Cannot allocate memory), [0-9]* bytes in a memfd"
  vmsplice -p seq -s 32M | { run_status st inject memfd_create:ENOMEM splice-buffer -m 16M; } |
    vmsplice-touser --verify seq -c > n
  status_in 0 st "splice-buffer, ENOMEM from memfd_create, pipes enough"
  count_is n 33554432
  vmsplice -p seq -s 32M |
    { run_status st inject pipe2:EMFILE memfd_create:ENOMEM splice-buffer -m 16M 2> err; } |
    cat > out
  status_in 1 st "splice-buffer, no pipe and no memfd"
  mentions err "buffer: memfd_create: Cannot allocate memory; 0 of 16777216 bytes in pipes"
  size_is out 0
}

# as_nobody CMD...: CMD as the user nobody, who may read and write here.
as_nobody() {
  setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

need_nobody() {
  [ "$(id -u)" -eq 0 ] || skip "needs root to run a tool as another user"
  need setpriv
  id nobody > /dev/null 2>&1 || skip "no user 'nobody' to become"
  chmod 777 .
}

tcase --alone b_unprivileged "as nobody, past pipe-user-pages-soft: the memfd part (-v), exact behind a waiting reader"
b_unprivileged() {
  needs_fallback
  need_nobody
  soft=$(cat /proc/sys/fs/pipe-user-pages-soft)
  [ "$soft" -gt 0 ] || skip "pipe-user-pages-soft is 0: no soft limit here"
  m=$((soft * 4096 * 2))
  # More than the soft limit in the buffer at once: the reader waits.
  { vmsplice -p seq -s "$((soft * 4096 * 3 / 2))"; : > produced; } |
    { run_status st as_nobody "$(command -v splice-buffer)" -v -m "$m" 2> err; } |
    { wait_file produced || :; vmsplice-touser --verify seq -c > n; }
  cat err >&2
  status_in 0 st "splice-buffer -m $m as nobody"
  count_is n $((soft * 4096 * 3 / 2))
  mentions err "(F_SETPIPE_SZ granted the last one [0-9]* bytes), [0-9]* bytes in a memfd"
}

tcase --alone b_unprivileged_strict "as nobody, past pipe-user-pages-soft, --strict: a clear error, no byte out"
b_unprivileged_strict() {
  need_nobody
  soft=$(cat /proc/sys/fs/pipe-user-pages-soft)
  [ "$soft" -gt 0 ] || skip "pipe-user-pages-soft is 0: no soft limit here"
  m=$((soft * 4096 * 2))
  vmsplice -p seq -s 8M |
    { run_status st as_nobody "$(command -v splice-buffer)" --strict -m "$m" 2> err; } | cat > out
  status_in 1 st "splice-buffer --strict -m $m as nobody"
  mentions err "of $m bytes in pipes (F_SETPIPE_SZ granted the last one [0-9]* bytes); --strict refuses"
  size_is out 0
}

tcase b_dev_full "standard output /dev/full: ENOSPC (or the --strict refusal) named, exit 1"
b_dev_full() {
  vmsplice -s 4M | { run_status st timeout 10 splice-buffer > /dev/full 2> err; }
  status_in 1 st "splice-buffer > /dev/full"
  if [ -n "${STRICT:-}" ]; then
    mentions err "--strict"
  else
    mentions err "standard output: No space left on device"
  fi
}

tcase b_append "an O_APPEND output refuses splice: read/write, exact (-vv says so)"
b_append() {
  needs_fallback
  random_file f 3000000
  printf 'head' > app
  splice-buffer -vv < f >> app 2> err
  { printf 'head'; cat f; } > ref
  same ref app
  mentions err "standard output: splice refused (Invalid argument), using read/write"
}

tcase b_reader_leaves "a reader that leaves: SIGPIPE (141), or exit 1 when ignored; also while input idles"
b_reader_leaves() {
  vmsplice -s 64M | { run_status st timeout 10 env --default-signal=PIPE splice-buffer; } |
    head -c 1000 > /dev/null
  status_in 141 st "splice-buffer | head -c 1000"
  vmsplice -s 64M | { run_status st timeout 10 env --ignore-signal=PIPE splice-buffer 2> err; } |
    head -c 1000 > /dev/null
  status_in 1 st "splice-buffer | head -c 1000, SIGPIPE ignored"
  mentions err "standard output: Broken pipe"
  # The input stays open and idle, the buffer empty: the reader's going ends it.
  mkfifo idle
  exec 3<> idle
  printf x >&3
  { run_status st timeout 10 env --default-signal=PIPE splice-buffer < idle; } | head -c 1 > got
  exec 3>&-
  status_in 141 st "idle input, splice-buffer | head -c 1"
  size_is got 1
}

tcase b_nonblock "O_NONBLOCK standard input and output pipes (with-flags): exact"
b_nonblock() {
  nb=$(helper with-flags)
  vmsplice -p seq -s 64M | { run_status st "$nb" 0:nonblock 1:nonblock -- splice-buffer -m 8M; } |
    vmsplice-touser --verify seq -c > n
  status_in 0 st "splice-buffer, O_NONBLOCK stdin and stdout"
  count_is n 67108864
}

tcase b_punch "the memfd's regions are punched once spliced: exact behind a reader that passes pages on; unpunched, wrong"
b_punch() {
  need strace
  needs_fallback
  # A memfd-only buffer (no pipe2) of two 2 MiB regions; the reader moves
  # pages on through a second pipe at 64 MiB/s, so pages of a region are
  # still in the pipes when the region is written again.
  vmsplice -p seq -s 64M | { run_status st inject pipe2:EMFILE splice-buffer -v -m 4M 2> err; } |
    splice-cat -L 64M | vmsplice-touser --verify seq -c > n
  status_in 0 st "memfd-only splice-buffer"
  count_is n 67108864
  mentions err "buffer: 0 bytes in 0 pipes (pipe2: Too many open files), 4194304 bytes in a memfd"
  # The same with every punch faked: the reader must see bytes written later.
  vmsplice -p seq -s 64M |
    inject pipe2:EMFILE fallocate:retval=0 splice-buffer -m 4M 2> /dev/null |
    splice-cat -L 64M | { run_status st vmsplice-touser --verify seq -c 2> verr; } > n || :
  status_in 1 st "vmsplice-touser behind an unpunched memfd"
  mentions verr "byte [0-9]* is 0x[0-9a-f]*, expected"
}

tcase b_memory "256 MiB in a -m 1G buffer: the tool's RSS stays small, the status says 25% full"
b_memory() {
  [ -z "${VALGRIND:-}" ] || skip "valgrind's own memory is the tool's RSS"
  mkfifo go
  { vmsplice -s 256M; : > produced; } |
    { run_status st sh -c 'echo $$ > pid; exec splice-buffer -m 1G' 2> err; } |
    { read -r _ < go; splice-cat > /dev/null; } &
  reader=$!
  bg_started $reader
  wait_file produced || fail "the producer of 256 MiB never finished"
  pid=$(cat pid)
  rss=$(sed -n 's/^VmRSS:[^0-9]*\([0-9]*\) kB/\1/p' "/proc/$pid/status")
  echo "RSS $rss kB with 256 MiB buffered"
  kill -USR1 "$pid"
  wait_text err "% full$"
  echo > go
  wait "$reader"
  status_in 0 st "splice-buffer -m 1G"
  [ "$rss" -lt 65536 ] || fail "RSS $rss kB with 256 MiB buffered"
  # 256 MiB of 1 GiB, less what the stdout pipe took: 24 or 25%.
  mentions err ", buffer  2[45]% full$"
}

tcase b_usage "bad -m, -P, -p and an operand: exit 2 naming the option, nothing read"
b_usage() {
  for args in "-m 0" "-m -1" "-m 1Q" "-P 101" "-P x" "-p -1" "-p 5%%" "-P ''" "x"; do
    # shellcheck disable=SC2086 # one word per option
    eval "run_status st splice-buffer $args" < /dev/null > out 2> err
    status_in 2 st "splice-buffer $args"
    mentions err "Try 'splice-buffer --help'."
    size_is out 0
  done
  : > empty
  run_status st splice-buffer -P 50% -p 0 < empty > out 2> err
  status_in 0 st "splice-buffer -P 50% -p 0"
}

run_area "$@"
