#!/bin/sh
# bench/run.sh: the splice-tools benchmark suite (not run by CI).
#
# Builds the tools in release mode, then runs each tool against what a user
# would run instead, in one session: for every case, the commands alternate,
# each round starting one later (A B C, B C A, C A B, ...), and each figure
# is the median of the rounds.  Prints a
# markdown table (GiB/s, ratios against the peers measured in the same run
# and against this machine's pipe limit from splice-bench --sweep, the target beside
# each ratio, CPU seconds per GiB of each process, peak RSS of each process)
# that can be pasted into bench/README.md.
#
#   bench/run.sh [--quick] [--case NAME]... [--runs N] [--builddir DIR] [--dir DIR] [--list]
#
# --quick     smaller sizes: the whole suite in under a minute (a smoke test of
#             the suite: the fast rows then measure process start-up too)
# --case      run only that case (repeatable); --list names them
# --runs      rounds per case, 3 or more (default 3)
# --builddir  the release build to make and use (default: build-release)
# --dir       where the test files go (default: $TMPDIR or /tmp); needs
#             2 GiB free for the input file and as much for the copy
#
# Cases whose tool does not build, and peers that are not installed, are
# skipped, named.  CPU time and peak RSS need GNU time (/usr/bin/time).
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/lib.sh"
BUILD=$ROOT/build-release
QUICK=
ONLY=
RUNS=3
DIR=${TMPDIR:-/tmp}
ALL_CASES="gen gen-busy-huge gen-seq pipe copy tee tee-file tcp buffer buffer-burst buffer-memfd"
# splice-bench's TCP rows whose receiver splices into a pipe, as
# splice-fromnet does: the TCP case's limit is the best of their sweeps.
TCP_LIMIT_CASES="tcp-vmsplice-pipe tcp-splice-pipe tcp-sendfile-pipe"

usage() {
  echo "usage: $0 [--quick] [--case NAME]... [--runs N] [--builddir DIR] [--dir DIR] [--list]"
}

while [ $# -gt 0 ]; do
  case $1 in
  --quick) QUICK=1; shift ;;
  --case) ONLY="$ONLY ${2:?--case needs a name}"; shift 2 ;;
  --runs) RUNS=${2:?--runs needs a number}; shift 2 ;;
  --builddir) BUILD=${2:?--builddir needs a directory}; shift 2 ;;
  --dir) DIR=${2:?--dir needs a directory}; shift 2 ;;
  --list) echo "$ALL_CASES" | tr ' ' '\n'; exit 0 ;;
  -h|--help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
  esac
done
case $RUNS in
''|*[!0-9]*) echo "$0: --runs: not a number: $RUNS" >&2; exit 2 ;;
esac
[ "$RUNS" -ge 3 ] || { echo "$0: --runs: 3 or more" >&2; exit 2; }
for c in $ONLY; do
  case " $ALL_CASES " in
  *" $c "*) ;;
  *) echo "$0: --case: no such case: $c (see --list)" >&2; exit 2 ;;
  esac
done

say() {
  echo "bench: $*" >&2
}

# ---- build ------------------------------------------------------------------

# meson.build builds the tools whose source exists when meson runs: a tool
# that landed since the last setup needs a reconfigure to be known.
reconfigure=
[ ! -f "$BUILD/build.ninja" ] || reconfigure=--reconfigure
meson setup $reconfigure "$BUILD" "$ROOT" --buildtype=release -Dwerror=true \
  > "$DIR/bench-setup.log" 2>&1 ||
  { cat "$DIR/bench-setup.log" >&2; say "meson setup failed"; exit 1; }
rm -f "$DIR/bench-setup.log"
BUILD=$(cd "$BUILD" && pwd)
# Tool by tool (the test suite's list): one that does not build is
# skipped, named, not fatal.
for tool in $TOOLS; do
  if ! ninja -C "$BUILD" "$tool" > "$BUILD/bench-$tool.log" 2>&1; then
    say "$tool does not build (see $BUILD/bench-$tool.log): its cases are skipped"
    rm -f "$BUILD/$tool"
  fi
done
[ -x "$BUILD/splice-bench" ] || { say "splice-bench is needed"; exit 1; }

# ---- sizes, work dir, helpers ----------------------------------------------------

GiB=1073741824
MiB=1048576
if [ -n "$QUICK" ]; then
  GEN=$((512 * MiB)); FILE=$((128 * MiB))
else
  GEN=$((8 * GiB)); FILE=$((2 * GiB))
fi
# Four passes of the file make a stream as long as GEN; two make the TCP stream.
TCP=$((2 * FILE))

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
work_dir "$DIR/splice-bench-suite.XXXXXX"
W=$WORK
mkdir "$W/bin" "$W/res"

# t NAME CMD...: runs CMD, recording its exit status, CPU seconds and peak RSS in $RUN/NAME.
if [ -x /usr/bin/time ] && /usr/bin/time -f '%x' -o /dev/null true 2> /dev/null; then
  HAVE_TIME=1
  cat > "$W/bin/t" << 'EOF'
#!/bin/sh
n=$1
shift
exec /usr/bin/time -f '%x %U %S %M' -o "$RUN/$n" "$@"
EOF
else
  HAVE_TIME=
  say "GNU time (/usr/bin/time) is not installed: no CPU time or peak RSS"
  printf '#!/bin/sh\nshift\nexec "$@"\n' > "$W/bin/t"
fi
# waitport FILE: the port a listener printed on its line about listening
# (the test suite's port reader).
cat > "$W/bin/waitport" << EOF
#!/bin/sh
. "$ROOT/tests/lib.sh"
listen_port "\$1"
EOF
# burst BYTES: BYTES of zeros on stdout, as head -c does; the clock starts
# with it ($RUN/t0) and stops when it is done ($RUN/rate): the producer's time.
cat > "$W/bin/burst" << 'EOF'
#!/bin/sh
date +%s.%N > "$RUN/t0"
head -c "$1" /dev/zero || exit 1
awk -v t0="$(cat "$RUN/t0")" -v now="$(date +%s.%N)" -v b="$1" \
  'BEGIN { printf "%.9f\n", b / 1073741824 / (now - t0) }' > "$RUN/rate"
EOF
# gated CMD...: runs CMD once a line comes on the FIFO $RUN/go (the producer
# is done): a reader that takes the buffer's whole content at once.
cat > "$W/bin/gated" << 'EOF'
#!/bin/sh
read -r _ < "$RUN/go"
exec "$@"
EOF
chmod +x "$W/bin/t" "$W/bin/waitport" "$W/bin/burst" "$W/bin/gated"
PATH=$W/bin:$BUILD:$PATH
export PATH

have() {
  command -v "$1" > /dev/null 2>&1
}
built() {
  [ -x "$BUILD/$1" ]
}
now() {
  date +%s.%N
}

F=$W/f
G=$W/g
make_file() {
  [ -f "$F" ] && return 0
  say "making a cached $((FILE / MiB)) MiB input file"
  head -c $((64 * MiB)) /dev/urandom > "$W/chunk" || exit 1
  # Written 2 MiB at a time, as splice-bench writes its file: the page
  # cache keeps what one write(2) brings in large folios, and a file
  # written by cat's 128 KiB went 1.3-1.4 x slower through a pipe.
  i=0
  while [ $i -lt $((FILE / (64 * MiB))) ]; do
    dd if="$W/chunk" bs=2M status=none
    i=$((i + 1))
  done > "$F" || exit 1
  rm -f "$W/chunk"
  cat "$F" > /dev/null
}

# ---- measuring --------------------------------------------------------------------

# Each case declares its commands with `cmd LABEL DISPLAY SCRIPT`; LABEL A is
# the tool, the others its peers.  SCRIPT is sh; each process in it runs
# under `t sN`, numbered from the left.  `short LABEL NAME`: what A's ratio
# against LABEL calls it.  Each is a file of $W/cmd, read back by cmd_field.
CMDS=
cmd() {
  CMDS="$CMDS $1"
  printf '%s\n' "$2" > "$W/cmd/$1.display"
  printf '%s\n' "$3" > "$W/cmd/$1.script"
}
short() {
  printf '%s\n' "$2" > "$W/cmd/$1.short"
}
# cmd_field LABEL display|script|short: what the case declared, or nothing.
cmd_field() {
  cat "$W/cmd/$1.$2" 2> /dev/null || :
}
skip_cmd() {
  SKIPPED="$SKIPPED
$1"
}

# run_round CASE LABEL ROUND PRE BYTES: one timed run.
run_round() {
  RUN=$W/run/$1.$2.$3
  export RUN
  mkdir -p "$RUN"
  script=$(cmd_field "$2" script)
  [ -z "$4" ] || sh -c "$4"
  t0=$(now)
  sh -c "$script" < /dev/null
  status=$?
  t1=$(now)
  [ ! -s "$RUN/t0" ] || t0=$(cat "$RUN/t0")
  # A command that measures itself (splice-bench) leaves its GiB/s in $RUN/rate.
  [ ! -s "$RUN/rate" ] ||
    t1=$(awk -v t0="$t0" -v b="$5" '{ printf "%.9f", t0 + b / 1073741824 / $1 }' "$RUN/rate")
  res=$W/res/$1.$2
  if [ $status -ne 0 ]; then
    say "$1: $2 failed (exit $status): $script"
    echo "$status" >> "$res.failed"
    return
  fi
  echo "$t0 $t1" | awk '{ printf "%.6f\n", $2 - $1 }' >> "$res.wall"
  for s in "$RUN"/s*; do
    [ -f "$s" ] || continue
    tail -n 1 "$s" | awk -v s="${s##*/}" '{ print s, $2 + $3, $4 }' >> "$res.stages"
  done
}

median() {
  sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2];
    else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# rate CASE LABEL BYTES: median GiB/s, empty when it failed.
rate() {
  [ -f "$W/res/$1.$2.failed" ] && return
  [ -f "$W/res/$1.$2.wall" ] || return
  awk -v b="$3" '{ print b / 1073741824 / $1 }' "$W/res/$1.$2.wall" | median
}

# stage_names CASE LABEL: the processes measured (s1 s2 ...), one a line;
# none without GNU time.
stage_names() {
  [ -n "$HAVE_TIME" ] && [ -f "$W/res/$1.$2.stages" ] || return 0
  awk '{ print $1 }' "$W/res/$1.$2.stages" | sort -u
}

# stage_cpu CASE LABEL BYTES: "0.05 + 0.02" CPU s/GiB per process; stage_rss: peak MiB.
stage_cpu() {
  out=
  for s in $(stage_names "$1" "$2"); do
    v=$(awk -v s="$s" -v b="$3" '$1 == s { print $2 / (b / 1073741824) }' \
      "$W/res/$1.$2.stages" | median)
    out="$out${out:+ + }$(printf '%.3f' "$v")"
  done
  echo "${out:--}"
}
stage_rss() {
  out=
  for s in $(stage_names "$1" "$2"); do
    v=$(awk -v s="$s" '$1 == s && $3 > m { m = $3 } END { printf "%.1f", m / 1024 }' \
      "$W/res/$1.$2.stages")
    out="$out${out:+, }$v"
  done
  echo "${out:--}${out:+ MiB}"
}

# verdict RATIO TARGET: "PASS" or "MISS".
verdict() {
  awk -v r="$1" -v t="$2" 'BEGIN { print (r >= t ? "PASS" : "MISS") }'
}
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

# A markdown cell: a | inside it is escaped.
cell() {
  printf '%s' "$1" | sed 's/|/\\|/g'
}
ROWS=
row() {
  ROWS="$ROWS
| $1 | $(cell "$2") | $3 | $(cell "$4") | $5 | $6 |"
}
SKIPPED=

# limit_cmd LABEL "ROW..." [BYTES [OPTIONS]]: the best configuration splice-bench
# --sweep finds for the ROWs (pipe and request sizes searched, every
# configuration verified), BYTES (default GEN) a run, as one more command of
# the rotation, so that the tool and the limit share each moment's load.
# The cases with a target against the limit have one (label L); a sweep
# takes about 15 s, so the others do not.  One whole-pipe request per call
# is not that limit: the two ends take turns (splice-tools(7)).
limit_cmd() {
  lb=${3:-$GEN}
  cases=
  for c in $2; do cases="$cases -c $c"; done
  cases="$cases${4:+ $4}"
  cmd "$1" "splice-bench --sweep$cases -s $(size_label "$lb") (best configuration, medians of 3 runs)" \
    "splice-bench --sweep --csv$cases -s $lb -r 3 |
      awk -F, 'NR > 1 && \$11 != \"yes\" { bad = 1 }
        NR > 1 && \$6 > best { best = \$6 }
        END { if (bad || best <= 0) exit 1; print best }' > \"\$RUN/rate\""
  short "$1" "$(echo "$2" | tr ' ' '/') limit"
}

# run_case CASE BYTES PRE TARGETS: alternates the declared commands, then
# adds their rows.  TARGETS: "LABEL:MIN ..." (A's ratio against LABEL); A's
# fraction of the pipe limit is added unless a limit is in the rotation (L).
run_case() {
  name=$1 bytes=$2 pre=$3 targets=$4
  round=1
  while [ "$round" -le "$RUNS" ]; do
    # Each round starts one command later (A B L, B L A, L A B, ...): which
    # command runs first after the last one counts here (measured: cp run in
    # the first slot of the copy case was 4 x slower than cp in the second).
    order=$(echo $CMDS | awk -v r="$round" '{ for (i = 0; i < NF; i++)
      printf "%s ", $((i + r - 1) % NF + 1) }')
    for label in $order; do
      say "$name: round $round/$RUNS: $label"
      run_round "$name" "$label" "$round" "$pre" "$bytes"
    done
    round=$((round + 1))
  done
  a_rate=$(rate "$name" A "$bytes")
  for label in $CMDS; do
    display=$(cmd_field "$label" display)
    r=$(rate "$name" "$label" "$bytes")
    if [ -z "$r" ]; then
      row "$name" "\`$display\`" "FAILED" "-" "-" "-"
      FAILED=1
      continue
    fi
    rtxt=
    if [ "$label" = A ]; then
      for tg in $targets; do
        peer=${tg%%:*} min=${tg#*:}
        base=$(rate "$name" "$peer" "$bytes")
        what=$(cmd_field "$peer" short)
        if [ -z "$base" ]; then
          rtxt="$rtxt${rtxt:+; }$what not measured"
          continue
        fi
        x=$(ratio "$a_rate" "$base")
        rtxt="$rtxt${rtxt:+; }$x x $what (target >= $min: $(verdict "$x" "$min"))"
      done
      l_rate=$(rate "$name" L "$bytes")
      case " $targets " in
      *" L:"*) ;;
      *) [ -z "$l_rate" ] || rtxt="$rtxt${rtxt:+; }$(ratio "$a_rate" "$l_rate") x pipe limit" ;;
      esac
    elif [ "$label" = L ] && [ -n "$a_rate" ]; then
      rtxt="this machine's limit: A is $(ratio "$a_rate" "$r") x this"
    elif [ -n "$a_rate" ]; then
      rtxt="peer: A is $(ratio "$a_rate" "$r") x this"
    fi
    row "$name" "\`$display\`" "$(printf '%.2f' "$r")" "$rtxt" \
      "$(stage_cpu "$name" "$label" "$bytes")" "$(stage_rss "$name" "$label")"
  done
}

selected() {
  [ -z "$ONLY" ] && return 0
  case " $ONLY " in *" $1 "*) return 0 ;; esac
  return 1
}

# new_case: forget the previous case's commands.
new_case() {
  CMDS=
  rm -rf "$W/cmd"
  mkdir "$W/cmd"
}

# peer LABEL SHORT CMD DISPLAY SCRIPT: a peer, when CMD is installed.
peer() {
  short "$1" "$2"
  if have "$3"; then
    cmd "$1" "$4" "$5"
  else
    skip_cmd "$CASE: $4 (skipped: $3 is not installed)"
  fi
}

# needs CASE TOOL...: true when every tool is built, else the case is skipped, named.
needs() {
  c=$1
  shift
  for tool in "$@"; do
    if ! built "$tool"; then
      skip_cmd "$c (skipped: $tool does not build)"
      return 1
    fi
  done
}

FAILED=

# ---- the cases ----------------------------------------------------------------------

# Sizes as the commands are shown: 8G, 512M.
size_label() {
  if [ $(($1 % GiB)) -eq 0 ]; then echo $(($1 / GiB))G; else echo $(($1 / MiB))M; fi
}
g=$(size_label "$GEN")
CASE=gen
if selected gen && needs gen vmsplice splice-cat; then
  new_case
  cmd A "vmsplice -s $g | splice-cat > /dev/null" \
    "t s1 vmsplice -s $GEN | t s2 splice-cat > /dev/null"
  peer B "head|cat" head "head -c $g /dev/zero | cat > /dev/null" \
    "t s1 head -c $GEN /dev/zero | t s2 cat > /dev/null"
  peer C "yes|head" yes "yes | head -c $g > /dev/null" \
    "t s1 yes | t s2 head -c $GEN > /dev/null"
  peer P "pv" pv "vmsplice -s $g | pv -q > /dev/null" \
    "t s1 vmsplice -s $GEN | t s2 pv -q > /dev/null"
  limit_cmd L vmsplice-splice
  run_case gen "$GEN" "" "L:0.9 P:1.1 B:5"
fi

CASE=gen-busy-huge
if selected gen-busy-huge && needs gen-busy-huge vmsplice splice-cat; then
  new_case
  cmd A "vmsplice --busy --huge -s $g | splice-cat > /dev/null" \
    "t s1 vmsplice --busy --huge -s $GEN | t s2 splice-cat > /dev/null"
  peer B "head|cat" head "head -c $g /dev/zero | cat > /dev/null" \
    "t s1 head -c $GEN /dev/zero | t s2 cat > /dev/null"
  limit_cmd L vmsplice-busy
  run_case gen-busy-huge "$GEN" "" "L:0.9 B:12"
fi

CASE=gen-seq
if selected gen-seq && needs gen-seq vmsplice splice-cat; then
  new_case
  cmd A "vmsplice -p seq -s $g | splice-cat > /dev/null" \
    "t s1 vmsplice -p seq -s $GEN | t s2 splice-cat > /dev/null"
  cmd B "vmsplice -p seq --reuse -s $g | splice-cat > /dev/null" \
    "t s1 vmsplice -p seq --reuse -s $GEN | t s2 splice-cat > /dev/null"
  short B "seq --reuse"
  # The other safe ways (vmsplice(1), --refill), for bench/README.md's table.
  for way in stream:C memfd:D write:E; do
    cmd "${way#*:}" "vmsplice -p seq --refill ${way%:*} -s $g | splice-cat > /dev/null" \
      "t s1 vmsplice -p seq --refill ${way%:*} -s $GEN | t s2 splice-cat > /dev/null"
    short "${way#*:}" "--refill ${way%:*}"
  done
  run_case gen-seq "$GEN" "" "B:0.5 C:1 D:1 E:1"
fi

f=$((FILE / MiB))
CASE=pipe
if selected pipe && needs pipe splice-cat; then
  make_file
  new_case
  # The cached file four times: a stream as long as GEN, so that starting
  # the processes (about 3 ms) is not 5-10 % of a 50 ms run.
  f4="$F $F $F $F"
  cmd A "splice-cat f f f f | splice-cat > /dev/null" \
    "t s1 splice-cat $f4 | t s2 splice-cat > /dev/null"
  peer B "cat|cat" cat "cat f f f f | cat > /dev/null" "t s1 cat $f4 | t s2 cat > /dev/null"
  peer C "dd|dd" dd "dd if=f bs=1M (4 times) | dd bs=1M of=/dev/null" \
    "t s1 sh -c 'for i in 1 2 3 4; do dd if=$F bs=1M status=none; done' |
     t s2 dd bs=1M of=/dev/null status=none"
  peer D "pv|cat" pv "pv -q f f f f | cat > /dev/null" "t s1 pv -q $f4 | t s2 cat > /dev/null"
  # The limit moves a file as large as the tool's: a 64 MiB one and the
  # kernel's records of its pages stay in the CPU caches (1.4 x faster).
  limit_cmd L file-pipe-splice "$GEN" "--file-size $(size_label "$FILE")"
  run_case "pipe" $((4 * FILE)) "" "B:30 L:0.9"
fi

CASE=copy
if selected copy && needs copy splice-cat; then
  make_file
  new_case
  cmd A "splice-cat f > g" "t s1 splice-cat $F > $G"
  peer B "cp" cp "cp f g" "t s1 cp $F $G"
  # Each copy starts from nothing, with the last one's pages written back.
  # Disk writes swing most: at least 7 rounds.
  runs_saved=$RUNS
  [ "$RUNS" -ge 7 ] || RUNS=7
  run_case copy "$FILE" "rm -f $G; sync" "B:1.0"
  RUNS=$runs_saved
fi

# A fast zero-copy source for the tee cases: vmsplice, or the cached file.
tee_source() {
  if built vmsplice; then
    echo "vmsplice -s $1"
  else
    n=$(($1 / FILE))
    echo "splice-cat$(i=0; while [ $i -lt $n ]; do printf ' %s' "$F"; i=$((i + 1)); done)"
  fi
}
tee_display() {
  if built vmsplice; then echo "vmsplice -s $1"; else echo "splice-cat f (x$2)"; fi
}

CASE="tee"
if selected tee && needs tee splice-tee splice-cat; then
  make_file
  new_case
  src=$(tee_source "$GEN")
  dsrc=$(tee_display "$g" $((GEN / FILE)))
  cmd A "$dsrc | splice-tee /dev/null | splice-cat > /dev/null" \
    "t s1 $src | t s2 splice-tee /dev/null | t s3 splice-cat > /dev/null"
  peer B "tee" tee "$dsrc | tee /dev/null | cat > /dev/null" \
    "t s1 $src | t s2 tee /dev/null | t s3 cat > /dev/null"
  run_case tee "$GEN" "" "B:10"
fi

CASE=tee-file
if selected tee-file && needs tee-file splice-tee splice-cat; then
  make_file
  new_case
  src=$(tee_source "$FILE")
  dsrc=$(tee_display "${f}M" 1)
  cmd A "$dsrc | splice-tee g | splice-cat > /dev/null" \
    "t s1 $src | t s2 splice-tee $G | t s3 splice-cat > /dev/null"
  peer B "tee" tee "$dsrc | tee g | cat > /dev/null" \
    "t s1 $src | t s2 tee $G | t s3 cat > /dev/null"
  run_case tee-file "$FILE" "rm -f $G; sync" "B:1.5"
fi

# Loopback TCP, port 0: the receiver says which port it got.  The stream
# comes from vmsplice (from two passes of the cached file without it).
CASE=tcp
if selected tcp && needs tcp splice-fromnet splice-tonet splice-cat; then
  make_file
  new_case
  tg=$(size_label "$TCP")
  src=$(tee_source "$TCP")
  dsrc=$(tee_display "$tg" $((TCP / FILE)))
  # The clock starts once the receiver listens (run_round reads $RUN/t0).
  # shellcheck disable=SC2016 # expanded by the sh that runs the case
  recv='st=0; port=$(waitport "$RUN/port") || { kill $r; exit 1; }; date +%s.%N > "$RUN/t0"'
  # shellcheck disable=SC2016
  done_='wait $r || st=1; exit $st'
  cmd A "splice-fromnet -b 127.0.0.1 0 > /dev/null & $dsrc | splice-tonet 127.0.0.1 PORT" \
    "t s1 splice-fromnet -b 127.0.0.1 0 > /dev/null 2> \"\$RUN/port\" & r=\$!; $recv;
     t s2 $src | t s3 splice-tonet 127.0.0.1 \$port || st=1; $done_"
  peer B "nc" nc "nc -l -v 127.0.0.1 0 > /dev/null & $dsrc | nc -N 127.0.0.1 PORT" \
    "t s1 nc -l -v 127.0.0.1 0 > /dev/null 2> \"\$RUN/port\" & r=\$!; $recv;
     t s2 $src | t s3 nc -N 127.0.0.1 \$port || st=1; $done_"
  shown="socat -u TCP-LISTEN:0,bind=127.0.0.1 STDOUT > /dev/null &"
  shown="$shown $dsrc | socat -u STDIN TCP:127.0.0.1:PORT"
  peer C "socat" socat "$shown" \
    "t s1 socat -d -d -u TCP-LISTEN:0,bind=127.0.0.1 STDOUT > /dev/null 2> \"\$RUN/port\" &
     r=\$!; $recv;
     t s2 $src | t s3 socat -u STDIN TCP:127.0.0.1:\$port || st=1; $done_"
  # Three sweeps of about 18 configurations: 1 GiB a run is enough.
  limit_cmd L "$TCP_LIMIT_CASES" $((TCP < GiB ? TCP : GiB))
  run_case tcp "$TCP" "" "B:3 L:0.9"
fi

# A buffer between a fast producer and a reader: splice-buffer moves page
# references (pipe to pipe, or straight across while the reader keeps up),
# mbuffer copies every byte in and out.
CASE=buffer
if selected buffer && needs buffer vmsplice splice-buffer splice-cat; then
  new_case
  cmd A "vmsplice -s $g | splice-buffer -m 256M | splice-cat > /dev/null" \
    "t s1 vmsplice -s $GEN | t s2 splice-buffer -m 256M | t s3 splice-cat > /dev/null"
  cmd B "vmsplice -s $g | splice-cat > /dev/null" \
    "t s1 vmsplice -s $GEN | t s2 splice-cat > /dev/null"
  short B "no buffer"
  peer C "mbuffer" mbuffer "vmsplice -s $g | mbuffer -q -m 256M | splice-cat > /dev/null" \
    "t s1 vmsplice -s $GEN | t s2 mbuffer -q -m 256M | t s3 splice-cat > /dev/null"
  run_case buffer "$GEN" "" "B:0.9 C:5"
fi

# The burst a buffer is for: a 32 MiB producer before a reader limited to
# 16 MiB/s; the figure is the producer's rate, from its start to its end.
BURST=$((32 * MiB))
CASE=buffer-burst
if selected buffer-burst && needs buffer-burst splice-buffer splice-cat; then
  new_case
  cmd A "head -c 32M /dev/zero | splice-buffer -m 64M | splice-cat -L 16M > /dev/null" \
    "t s1 burst $BURST | t s2 splice-buffer -m 64M | t s3 splice-cat -L 16M > /dev/null"
  peer B "mbuffer" mbuffer \
    "head -c 32M /dev/zero | mbuffer -q -m 64M | splice-cat -L 16M > /dev/null" \
    "t s1 burst $BURST | t s2 mbuffer -q -m 64M | t s3 splice-cat -L 16M > /dev/null"
  cmd C "head -c 32M /dev/zero | splice-cat -L 16M > /dev/null" \
    "t s1 burst $BURST | t s2 splice-cat -L 16M > /dev/null"
  short C "no buffer"
  run_case buffer-burst "$BURST" "" "B:1"
fi

# Every byte through the buffer: 1 GiB in while the reader waits, then out.
# As an unprivileged user past /proc/sys/fs/pipe-user-pages-soft (another
# splice-buffer of that user holds its pipe pages), the ring is a memfd:
# one copy in, in the kernel, and out by reference; mbuffer copies twice.
FILL=$GiB
[ -z "$QUICK" ] || FILL=$((256 * MiB))
CASE=buffer-memfd
if selected buffer-memfd && needs buffer-memfd vmsplice splice-buffer splice-cat; then
  new_case
  fm=$((FILL / MiB + 64))M
  fd=$(size_label "$FILL")
  # HOME: mbuffer reads ~/.mbuffer.rc, and root's is not nobody's to read.
  as_user="setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=$W"
  if [ "$(id -u)" -ne 0 ] || ! have setpriv || ! id nobody > /dev/null 2>&1; then
    skip_cmd "buffer-memfd (skipped: needs root, setpriv and the user nobody)"
  else
    # The user's pipe pages, spent by a buffer that waits on an idle FIFO.
    mkfifo -m 666 "$W/idle"
    exec 8<> "$W/idle"
    $as_user "$BUILD/splice-buffer" -v -m 64M < "$W/idle" > /dev/null 2> "$W/eater" &
    EATER=$!
    i=0
    until grep -q 'buffer:' "$W/eater" 2> /dev/null || [ $i -ge 500 ]; do
      sleep 0.01
      i=$((i + 1))
    done
    $as_user "$BUILD/splice-buffer" -v -m "$fm" < /dev/null 2> "$W/probe" || :
    if ! grep -q 'bytes in a memfd' "$W/probe"; then
      skip_cmd "buffer-memfd (skipped: nobody's buffer is not a memfd here: $(cat "$W/probe"))"
    else
      go="rm -f \"\$RUN/go\"; mkfifo \"\$RUN/go\";"
      fill="{ t s1 vmsplice -s $FILL; echo > \"\$RUN/go\"; }"
      cmd A "vmsplice -s $fd | splice-buffer -m $fm | (all in, then) splice-cat > /dev/null, as nobody: a memfd" \
        "$go $fill | t s2 $as_user $BUILD/splice-buffer -m $fm | gated t s3 splice-cat > /dev/null"
      peer B "mbuffer" mbuffer \
        "vmsplice -s $fd | mbuffer -m $fm | (all in, then) splice-cat > /dev/null, as nobody" \
        "$go $fill | t s2 $as_user mbuffer -q -m $fm | gated t s3 splice-cat > /dev/null"
      cmd C "vmsplice -s $fd | splice-buffer -m $fm | (all in, then) splice-cat > /dev/null, as root: pipes" \
        "$go $fill | t s2 splice-buffer -m $fm | gated t s3 splice-cat > /dev/null"
      short C "pipe ring"
      run_case buffer-memfd "$FILL" "" "B:1.5"
    fi
    kill "$EATER" 2> /dev/null
    wait "$EATER" 2> /dev/null
    exec 8>&-
  fi
fi

# ---- the table ----------------------------------------------------------------------

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
cmdline="bench/run.sh${QUICK:+ --quick}"
for c in $ONLY; do cmdline="$cmdline --case $c"; done
echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on Linux $(uname -r), $cpu," \
  "$(nproc) CPUs; medians of $RUNS alternating runs; reproduce with \`$cmdline\`."
echo "Sizes: generators and tee $g; cached file $f MiB (four times in a row in the pipe"
echo "case), copy and tee-file $f MiB;"
echo "TCP $((TCP / MiB)) MiB over 127.0.0.1.  CPU: seconds per GiB of each process, in"
echo "the order the command names them; peak RSS likewise.  The pipe limit is the best"
echo "pipe and request size splice-bench --sweep finds for its row, $g a run, measured"
echo "in the rotation of the cases that have a target against it."
echo "Load average (1, 5, 15 min) before: $LOAD_START; after: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "(The suite itself keeps about 2 busy.)  Above 0.5 before the run, other work was sharing"
echo "the CPUs: re-measure on a quiet machine."
if [ -n "$QUICK" ]; then
  echo "--quick: at these sizes starting the processes costs as much as a fast transfer;"
  echo "the ratios against the limit mean something only in the full run."
fi
echo
echo "| case | command | GiB/s | ratio (target) | CPU s/GiB | peak RSS |"
echo "|---|---|---|---|---|---|"
echo "$ROWS" | sed '/^$/d'
if [ -n "$SKIPPED" ]; then
  echo
  echo "Not run here:"
  echo "$SKIPPED" | sed '/^$/d; s/^/- /'
fi
[ -z "$FAILED" ]
