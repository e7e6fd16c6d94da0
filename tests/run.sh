#!/bin/sh
# The splice-tools test harness: runs every case of every area script
# (tests/*.sh but this one, lib.sh and vm.sh), each in a private temp dir under a
# timeout, prints TAP, and ends with "N passed, N failed, N skipped".
#
#   tests/run.sh [--bindir DIR] [--helpers DIR] [--strict] [--valgrind] [--timeout SECS]
#                [--tap] [AREA|CASE]...
#   tests/run.sh --list-areas
#
# --bindir   where the tools are (default: ./build beside tests/)
# --helpers  where the test helpers are (default: BINDIR/tests)
# --strict   pass --strict to every tool: the kernel smoke test mode; cases
#            that exist to test a fallback are skipped, named.
# --valgrind run every tool under valgrind --leak-check=full; an error or a
#            definite leak makes the tool exit 1.
# --tap      nothing but TAP on stdout, for a TAP consumer (meson test): the
#            closing count is a "# " comment line, a failed case's log goes
#            to stderr, and failed cases leave the exit status 0 (the
#            consumer counts them).
# --list-areas  print the areas, one a line, and exit (meson.build reads it)
# AREA|CASE  run only these areas (cat, man, ...) or cases (t_to_pipe, ...)
set -u

TESTS=$(cd "$(dirname "$0")" && pwd)
BINDIR=
HELPERS=
STRICT=
VALGRIND=
CASE_TIMEOUT=300
FILTER=
TAP_ONLY=

usage() {
  echo "usage: $0 [--bindir DIR] [--helpers DIR] [--strict] [--valgrind] [--timeout SECS]" \
    "[--tap] [AREA|CASE]..."
  echo "       $0 --list-areas"
}

# The areas: every tests/*.sh but this runner, lib.sh and vm.sh (which runs
# this runner in a virtual machine), in name order.
areas() {
  for area_script in "$TESTS"/*.sh; do
    area=${area_script##*/}
    area=${area%.sh}
    case $area in run|lib|vm) ;; *) echo "$area" ;; esac
  done
}

while [ $# -gt 0 ]; do
  case $1 in
  --bindir) BINDIR=${2:?--bindir needs a directory}; shift 2 ;;
  --bindir=*) BINDIR=${1#*=}; shift ;;
  --helpers) HELPERS=${2:?--helpers needs a directory}; shift 2 ;;
  --strict) STRICT=1; shift ;;
  --valgrind) VALGRIND=1; shift ;;
  --timeout) CASE_TIMEOUT=${2:?}; shift 2 ;;
  --tap) TAP_ONLY=1; shift ;;
  --list-areas) areas; exit 0 ;;
  -h|--help) usage; exit 0 ;;
  -*) usage >&2; exit 2 ;;
  *) FILTER="$FILTER $1"; shift ;;
  esac
done

. "$TESTS/lib.sh"
find_tools run.sh

work_dir "${TMPDIR:-/tmp}/splice-tests.XXXXXX"
# Readable by all: a case may run a tool as another user.
chmod 755 "$WORK"

# Interrupted (a ^C, or a runner that ends the harness's process group),
# the loop ends the case that runs: it leads a process group of its own.
case_pid=
end_case() {
  [ -z "$case_pid" ] || kill -TERM "-$case_pid" 2> /dev/null
}

# Every tool the cases run comes from here: a copy of the build's (or
# --bindir's), with --strict added in strict mode.  A copy, because a case
# may run a tool as another user, who cannot reach a build in a private
# directory (a checkout under /root or in a mktemp -d).
mkdir "$WORK/bin" "$WORK/bin/build"
for name in $TOOLS; do
  tool=$WORK/bin/build/$name
  cp "$BINDIR/$name" "$tool"
  if [ -n "$STRICT$VALGRIND" ]; then
    {
      echo '#!/bin/sh'
      printf 'exec'
      [ -z "$VALGRIND" ] || printf ' valgrind -q --error-exitcode=1 --leak-check=full'
      [ -z "$VALGRIND" ] || printf ' --errors-for-leak-kinds=definite'
      printf ' "%s"' "$tool"
      [ -z "$STRICT" ] || printf ' --strict'
      printf ' "$@"\n'
    } > "$WORK/bin/$name"
    chmod +x "$WORK/bin/$name"
  else
    ln -s "$tool" "$WORK/bin/$name"
  fi
done
PATH=$WORK/bin:$PATH
export PATH TESTS BINDIR HELPERS STRICT VALGRIND

if [ -n "$VALGRIND" ] && ! command -v valgrind > /dev/null; then
  echo "run.sh: --valgrind: valgrind is not installed" >&2
  exit 2
fi

if [ -n "$STRICT" ]; then
  echo "# strict mode: every tool runs with --strict (kernel smoke test)"
fi
echo "# kernel $(uname -r), tools from $BINDIR"

# now_secs: sets now to the seconds since boot, without a process: under an
# emulated CPU (tests/vm.sh) each one a case costs is felt.
now_secs() {
  read -r now _ < /proc/uptime
  now=${now%%.*}
}

selected() {
  [ -z "$FILTER" ] && return 0
  for f in $FILTER; do
    [ "$f" = "$1" ] || [ "$f" = "$2" ] && return 0
  done
  return 1
}

n=0 passed=0 failed=0 skipped=0
for area in $(areas); do
  area_script=$TESTS/$area.sh
  list=$(sh "$area_script" list) || { echo "run.sh: $area_script list failed" >&2; exit 1; }
  # Each line of the list: NAME DESCRIPTION...
  echo "$list" | {
    trap 'end_case; exit 130' INT
    trap 'end_case; exit 143' TERM
    while read -r name desc; do
      [ -n "$name" ] || continue
      selected "$area" "$name" || continue
      n=$((n + 1))
      dir=$WORK/case.$n
      mkdir "$dir"
      now_secs
      start=$now
      # timeout(1) leads a process group of its own: whatever the case left
      # running in the background (a listener of a case that failed) is
      # ended with it, by that group's id.
      (cd "$dir" && exec timeout -k 10 "$CASE_TIMEOUT" sh "$area_script" run "$name") \
        > "$dir/.log" 2>&1 < /dev/null &
      case_pid=$!
      wait "$case_pid"
      status=$?
      if kill -0 "-$case_pid" 2> /dev/null; then
        # Dead ones waiting for init to reap them are not worth a note.
        ps -e -o pgid= -o stat= -o args= |
          awk -v g="$case_pid" '$1 == g && $2 !~ /^Z/ { $1 = ""; $2 = ""; print "NOTE: left running:" $0 }' \
          >> "$dir/.log"
        kill -TERM "-$case_pid" 2> /dev/null
        sleep 1
        kill -KILL "-$case_pid" 2> /dev/null
      fi
      now_secs
      secs=$((now - start))
      title="$area: $desc"
      if [ $status -eq 0 ]; then
        echo "ok $n - $title (${secs}s)"
        # Informational findings of a passing case, e.g. the vmsplice reuse hazard.
        while IFS= read -r line; do
          case $line in "NOTE: "*) echo "#   ${line#NOTE: }" ;; esac
        done < "$dir/.log"
        passed=$((passed + 1))
      elif [ $status -eq 77 ]; then
        reason=$(sed -n 's/^SKIP: //p' "$dir/.log" | tail -n 1)
        echo "ok $n - $title # SKIP ${reason:-no reason given}"
        skipped=$((skipped + 1))
      else
        [ $status -eq 124 ] && echo "timed out after ${CASE_TIMEOUT}s" >> "$dir/.log"
        echo "not ok $n - $title (exit $status)"
        if [ -n "$TAP_ONLY" ]; then
          # meson test shows a TAP test's stderr (--print-errorlogs), not its comments.
          { echo "not ok $n - $title"; sed 's/^/#   /' "$dir/.log" | tail -n 40; } >&2
        else
          sed 's/^/#   /' "$dir/.log" | tail -n 40
        fi
        failed=$((failed + 1))
      fi
      rm -rf "$dir"
    done
    echo "$n $passed $failed $skipped" > "$WORK/count.$area"
  }
  read -r n p f s < "$WORK/count.$area"
  passed=$p failed=$f skipped=$s
done

echo "1..$n"
summary="$passed passed, $failed failed"
[ "$skipped" -eq 0 ] || summary="$summary, $skipped skipped"
if [ -n "$TAP_ONLY" ]; then
  # The consumer counts the "not ok" lines: a failing exit status would tell
  # it the harness broke (meson test: ERROR instead of FAIL).
  echo "# $summary"
  [ "$n" -gt 0 ]
else
  echo "$summary"
  [ "$failed" -eq 0 ] && [ "$n" -gt 0 ]
fi
