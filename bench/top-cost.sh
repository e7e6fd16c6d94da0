#!/bin/sh
# bench/top-cost.sh: the CPU one refresh of splice-top costs (not run by CI).
#
#   bench/top-cost.sh [--builddir DIR] [--others N] [--refreshes N] [--runs N]
#
# Two rows, each the median of --runs runs (default 3) of `splice-top
# --numeric -d 0.01 -n REFRESHES` (default 200) under GNU time, user plus
# system CPU divided by the samples it took (REFRESHES + 1):
#   - a 10-stage pipeline (sleep | sleep | ... , every pipe between two
#     stages), the machine as it is;
#   - the same with N other processes (default 5000, sleeps in a session of
#     their own) on the machine, each of whose /proc/PID/stat splice-top
#     reads at every refresh to find the watched sessions.
# Beside each, procps' top -b over the same refreshes (every process, a
# peer that reads /proc as splice-top does), where top is installed.
# The targets (issue "splice-top"): at most 2 ms and 50 ms a refresh.
# Needs GNU time (/usr/bin/time).  The processes it starts are ended by pid.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
OTHERS=5000
REFRESHES=200
RUNS=3

while [ $# -gt 0 ]; do
  case $1 in
  --builddir) BUILD=${2:?--builddir needs a directory}; shift 2 ;;
  --others) OTHERS=${2:?--others needs a number}; shift 2 ;;
  --refreshes) REFRESHES=${2:?--refreshes needs a number}; shift 2 ;;
  --runs) RUNS=${2:?--runs needs a number}; shift 2 ;;
  -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: $0 [--builddir DIR] [--others N] [--refreshes N] [--runs N]" >&2; exit 2 ;;
  esac
done
TOP=$BUILD/splice-top
[ -x "$TOP" ] || { echo "$0: $TOP not built (ninja -C $BUILD)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "$0: needs GNU time (apt-get install time)" >&2; exit 2; }
DIR=$(mktemp -d) || exit 1
PIPELINE=
OTHERS_SH=

finish() {
  # The pipeline's sh and its stages, the others' sh and its sleeps: by pid.
  for p in $PIPELINE $OTHERS_SH; do
    # shellcheck disable=SC2046 # one pid a word
    kill $(cat "/proc/$p/task/$p/children" 2> /dev/null) "$p" 2> /dev/null
  done
  rm -rf "$DIR"
}
trap finish EXIT
trap 'exit 1' INT TERM HUP

# children PID N: PID has N children or more.
children() {
  [ "$(wc -w < "/proc/$1/task/$1/children" 2> /dev/null || echo 0)" -ge "$2" ]
}

# wait_children PID N WHAT
wait_children() {
  i=0
  until children "$1" "$2"; do
    i=$((i + 1))
    [ $i -lt 6000 ] || { echo "$0: $3 never started" >&2; exit 1; }
    sleep 0.05
  done
}

# row NAME: the median CPU ms a refresh over RUNS runs, and each run's.
row() {
  runs=
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%U %S' -o "$DIR/time" "$TOP" --numeric -d 0.01 -n "$REFRESHES" \
      "$FIRST" > "$DIR/out" || { echo "$0: splice-top failed" >&2; exit 1; }
    grep -q '^stage ' "$DIR/out" || { echo "$0: splice-top saw no stage" >&2; exit 1; }
    runs="$runs $(awk -v n=$((REFRESHES + 1)) '{ printf "%.3f", ($1 + $2) * 1000 / n }' \
      "$DIR/time")"
  done
  # shellcheck disable=SC2086 # one figure a word
  median=$(printf '%s\n' $runs | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  peer=-
  if command -v top > /dev/null; then
    /usr/bin/time -f '%U %S' -o "$DIR/time" top -b -d 0.01 -n "$REFRESHES" > /dev/null &&
      peer="$(awk -v n="$REFRESHES" '{ printf "%.3f", ($1 + $2) * 1000 / n }' "$DIR/time") ms"
  fi
  stages=$(awk '$1 == "frame" { s = $3 } END { sub(/stages=/, "", s); print s }' "$DIR/out")
  procs=$(ls -d /proc/[0-9]* 2> /dev/null | wc -l)
  printf '| %s | %s | %s | %s ms | %s | %s |\n' "$1" "$stages" "$procs" "$median" "${runs# }" \
    "$peer"
}

setsid sh -c 'sleep 300 | sleep 300 | sleep 300 | sleep 300 | sleep 300 | sleep 300 |
  sleep 300 | sleep 300 | sleep 300 | sleep 300' < /dev/null > /dev/null 2>&1 &
PIPELINE=$!
wait_children "$PIPELINE" 10 "the 10-stage pipeline"
FIRST=$(cut -d' ' -f1 "/proc/$PIPELINE/task/$PIPELINE/children")

echo "splice-top $("$TOP" --version | cut -d' ' -f3), $(nproc) CPUs, $(uname -r)," \
  "$REFRESHES refreshes at -d 0.01, median of $RUNS runs"
echo
echo '| case | stages | processes on the machine | CPU a refresh | the runs | top -b |'
echo '|---|---|---|---|---|---|'
row "10-stage pipeline"
setsid sh -c "i=0; while [ \$i -lt $OTHERS ]; do sleep 300 & i=\$((i + 1)); done; wait" \
  < /dev/null > /dev/null 2>&1 &
OTHERS_SH=$!
wait_children "$OTHERS_SH" "$OTHERS" "the $OTHERS other processes"
row "10-stage pipeline, $OTHERS other processes"
