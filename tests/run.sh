#!/bin/sh
# The splice-tools test harness: runs every case of every area script
# (tests/*.sh but this one, lib.sh and vm.sh), each in a private temp dir and
# process group under a timeout, N at a time; prints TAP in the cases' order,
# where the time went, and ends with "N passed, N failed, N skipped".  The
# plan line comes first: a run cut short (a virtual machine that died)
# still shows which cases never reported.
#
#   tests/run.sh [-j N] [--bindir DIR] [--helpers DIR] [--strict] [--valgrind]
#                [--timeout SECS] [--kernel-timeout SECS] [--grace SECS]
#                [--times FILE] [--tap | --ktap] [AREA|CASE]...
#   tests/run.sh --list-areas
#   tests/run.sh --list [AREA|CASE]...
#
# -j N       run N cases at once (default: the online CPUs plus two);
#            the cases an area names with `tcase --timing` (they time a
#            rate, and mostly sleep) run after the others, beside each
#            other only; then those named with `tcase --alone`, one at a
#            time, with nothing beside them
# --bindir   where the tools are (default: ./build beside tests/)
# --helpers  where the test helpers are (default: BINDIR/tests)
# --strict   pass --strict to every tool: the kernel smoke test mode; cases
#            that exist to test a fallback are skipped, named.
# --valgrind run every tool under valgrind --leak-check=full; an error or a
#            definite leak makes the tool exit 1.
# --timeout  end a case still running after SECS (default 300).  A case
#            that runs out of time is "not ok ... (timed out after N s)"
#            whatever timeout(1) the system has, with what each of its
#            processes waited in (wchan, the system call, the stack).
# --kernel-timeout  the same for the kernel area's cases, which take a
#            second or two: a case that waits for ever in the kernel costs
#            seconds, not minutes (default 20, or --timeout's SECS)
# --grace    past a case's time, how long timeout(1) waits before it ends
#            the case itself (if the runner could not), and as long again
#            before a case that no signal ends is called stuck (default 5)
# --tap      nothing but TAP (version 13) on stdout, for a TAP consumer
#            (meson test): the cases' results as --ktap gives them (named by
#            id, "#" lines, SKIP and TIMEOUT), one flat list; the closing
#            count is a "# " comment line, a failed case's log goes to stderr
#            too, and failed cases leave the exit status 0 (the consumer
#            counts them).
# --ktap     KTAP version 1 (the kernel's Documentation/dev-tools/ktap.rst,
#            what kselftest, KernelCI and LAVA read): the version line and
#            the plan of areas first, then each area a subtest (indented 4),
#            each case a result named by its id (k_splice01) alone, its
#            sentence and seconds in "#" lines before it, "# SKIP reason",
#            "# TIMEOUT N seconds"; "# Totals:" last; exit 1 when one failed
# --list-areas  print the areas, one a line, and exit (meson.build reads it)
# --list     print the cases that would run, "N AREA KIND NAME WHAT" a line,
#            and exit
# --as NAME  the name its messages give (splice-selftest passes its own)
# --times FILE  write every case's seconds, CPU seconds, number and name
#            to FILE, slowest first, "WALL CPU N NAME" a line
# AREA|CASE  run only these areas (cat, man, ...) or cases (t_to_pipe, ...);
#            a name that is neither is a usage error, and nothing runs.
#
# The order, and so each case's number, is the same whatever -j: the shared
# cases area by area, then the timing ones, then the alone ones, area by
# area.  The cases start in another order: those an area names with
# `tcase --long` first, then the other shared ones taking the areas in
# turn, a case of each.
set -u

TESTS=$(cd "$(dirname "$0")" && pwd)
BINDIR=
HELPERS=
STRICT=
VALGRIND=
# Set when given: a given empty one is a usage error.
CASE_TIMEOUT='' CASE_TIMEOUT_GIVEN=''
KERNEL_TIMEOUT='' KERNEL_TIMEOUT_GIVEN=''
GRACE=5
FILTER=
TAP_ONLY=
KTAP=
JOBS=
LIST=
PROG=run.sh
TIMES_FILE=

usage() {
  echo "usage: $0 [-j N] [--bindir DIR] [--helpers DIR] [--strict] [--valgrind]" \
    "[--timeout SECS] [--kernel-timeout SECS] [--grace SECS] [--times FILE] [--tap|--ktap]" \
    "[AREA|CASE]..."
  echo "       $0 --list-areas"
  echo "       $0 --list [AREA|CASE]..."
}

usage_error() {
  echo "$PROG: $*" >&2
  if [ "$PROG" = run.sh ]; then
    usage >&2
  else
    echo "Try '$PROG --help'." >&2
  fi
  exit 2
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

# positive WHAT VALUE: VALUE is a whole number above 0, or a usage error.
positive() {
  case $2 in
  '' | *[!0-9]*) usage_error "$1: not a positive whole number: '$2'" ;;
  esac
  [ "$2" -gt 0 ] || usage_error "$1: not a positive whole number: '$2'"
}

while [ $# -gt 0 ]; do
  case $1 in
  -j) [ $# -ge 2 ] || usage_error "-j needs a number"; JOBS=$2; shift 2 ;;
  -j*) JOBS=${1#-j}; shift ;;
  --jobs=*) JOBS=${1#*=}; shift ;;
  --bindir) [ $# -ge 2 ] || usage_error "--bindir needs a directory"; BINDIR=$2; shift 2 ;;
  --bindir=*) BINDIR=${1#*=}; shift ;;
  --helpers) [ $# -ge 2 ] || usage_error "--helpers needs a directory"; HELPERS=$2; shift 2 ;;
  --helpers=*) HELPERS=${1#*=}; shift ;;
  --strict) STRICT=1; shift ;;
  --valgrind) VALGRIND=1; shift ;;
  --timeout)
    [ $# -ge 2 ] || usage_error "--timeout needs seconds"
    CASE_TIMEOUT=$2 CASE_TIMEOUT_GIVEN=1
    shift 2
    ;;
  --timeout=*) CASE_TIMEOUT=${1#*=} CASE_TIMEOUT_GIVEN=1; shift ;;
  --kernel-timeout)
    [ $# -ge 2 ] || usage_error "--kernel-timeout needs seconds"
    KERNEL_TIMEOUT=$2 KERNEL_TIMEOUT_GIVEN=1
    shift 2
    ;;
  --kernel-timeout=*) KERNEL_TIMEOUT=${1#*=} KERNEL_TIMEOUT_GIVEN=1; shift ;;
  --grace) [ $# -ge 2 ] || usage_error "--grace needs seconds"; GRACE=$2; shift 2 ;;
  --grace=*) GRACE=${1#*=}; shift ;;
  --tap) TAP_ONLY=1; shift ;;
  --ktap) KTAP=1; shift ;;
  --list-areas) areas; exit 0 ;;
  --list) LIST=1; shift ;;
  --as) [ $# -ge 2 ] || usage_error "--as needs a name"; PROG=$2; shift 2 ;;
  --times) [ $# -ge 2 ] || usage_error "--times needs a file"; TIMES_FILE=$2; shift 2 ;;
  --times=*) TIMES_FILE=${1#*=}; shift ;;
  -h|--help) usage; exit 0 ;;
  -*) usage_error "unknown option: $1" ;;
  '') usage_error "an empty name of an area or case" ;;
  *) FILTER="$FILTER $1"; shift ;;
  esac
done
[ -z "$CASE_TIMEOUT_GIVEN" ] || positive --timeout "$CASE_TIMEOUT"
[ -z "$KERNEL_TIMEOUT_GIVEN" ] || positive --kernel-timeout "$KERNEL_TIMEOUT"
positive --grace "$GRACE"
KERNEL_TIMEOUT=${KERNEL_TIMEOUT:-${CASE_TIMEOUT:-20}}
CASE_TIMEOUT=${CASE_TIMEOUT:-300}
if [ -z "$JOBS" ]; then
  # Two beyond the CPUs: a case often waits (a peer, a rate limit, a
  # timeout), and then another can have its CPU.
  JOBS=$(( $(getconf _NPROCESSORS_ONLN 2> /dev/null || nproc 2> /dev/null || echo 1) + 2 ))
fi
positive -j "$JOBS"

. "$TESTS/lib.sh"
[ -n "$LIST" ] || find_tools "$PROG"

work_dir "${TMPDIR:-/tmp}/splice-tests.XXXXXX"
# Readable by all: a case may run a tool as another user.
chmod 755 "$WORK"

# centis: sets centis to the hundredths of a second since boot, without a
# process: under an emulated CPU (tests/vm.sh) each one a case costs is felt.
centis() {
  read -r centis _ < /proc/uptime
  centis=${centis%.*}${centis#*.}
  centis=${centis#"${centis%%[!0]*}"}
  centis=${centis:-0}
}
centis
run_start=$centis

export TESTS
# The plan: one line a case, "N AREA KIND NAME WHAT", shared cases first.
# An operand that names no area and no case stops the run before any case.
for area in $(areas); do
  sh "$TESTS/$area.sh" list > "$WORK/list.$area" ||
    { echo "$PROG: $TESTS/$area.sh list failed" >&2; exit 1; }
done
# A case's id names it alone: one used twice is the harness's error.
twice=$(awk 'NF { print $1 == "-" ? $3 : $1 }' "$WORK"/list.* | sort | uniq -d | tr '\n' ' ')
[ -z "$twice" ] || { echo "$PROG: case ids used twice: ${twice% }" >&2; exit 1; }
for f in $FILTER; do
  [ -f "$WORK/list.$f" ] ||
    awk -v f="$f" '$1 == f || ($1 == "-" && $3 == f) { found = 1 } END { exit !found }' \
    "$WORK"/list.* || usage_error "no such area or case: '$f'"
done
selected() {
  [ -z "$FILTER" ] && return 0
  for f in $FILTER; do
    [ "$f" = "$1" ] || [ "$f" = "$2" ] && return 0
  done
  return 1
}
total=0
for pass in shared timing alone; do
  for area in $(areas); do
    while read -r name kind desc; do
      [ -n "$name" ] || continue
      # A case of the source tree's, in an installed run: counted below.
      [ "$name" != - ] || continue
      case $pass:$kind in shared:shared | shared:long | timing:timing | alone:alone) ;;
      *) continue ;;
      esac
      selected "$area" "$name" || continue
      total=$((total + 1))
      echo "$total $area $kind $name $desc"
    done < "$WORK/list.$area"
  done
done > "$WORK/plan"
# The cases an installed run has not: those named, or all of the areas named.
not_here=0
for area in $(areas); do
  while read -r name kind case_name; do
    [ "$name" = - ] || continue
    selected "$area" "$case_name" && not_here=$((not_here + 1))
  done < "$WORK/list.$area"
done
if [ -n "$LIST" ]; then
  cat "$WORK/plan"
  exit 0
fi

# Every tool the cases run comes from here: a copy of the build's (or
# --bindir's), with --strict added in strict mode.  A copy, because a case
# may run a tool as another user, who cannot reach a build in a private
# directory (a checkout under /root or in a mktemp -d).
mkdir "$WORK/bin" "$WORK/bin/build"
for name in $TOOLS $WATCHERS; do
  # A watcher moves no data: no --strict for it, and none built is no error
  # (its cases find none and fail, or in a guest are not run).
  watcher=
  case " $WATCHERS " in *" $name "*) watcher=1 ;; esac
  [ -z "$watcher" ] || [ -x "$BINDIR/$name" ] || continue
  tool=$WORK/bin/build/$name
  # By dd, read(2) and write(2): busybox's cp copies with sendfile(2), and
  # a kernel whose sendfile never moves on (a mutant) filled the disk here
  # before k_sendfile06 could say so.
  dd if="$BINDIR/$name" of="$tool" bs=65536 2> /dev/null && chmod 755 "$tool" ||
    { echo "$PROG: cannot copy $BINDIR/$name to $tool" >&2; exit 1; }
  if [ -n "$STRICT$VALGRIND" ]; then
    {
      echo '#!/bin/sh'
      printf 'exec'
      [ -z "$VALGRIND" ] || printf ' valgrind -q --error-exitcode=1 --leak-check=full'
      [ -z "$VALGRIND" ] || printf ' --errors-for-leak-kinds=definite'
      printf ' "%s"' "$tool"
      [ -z "$STRICT" ] || [ -n "$watcher" ] || printf ' --strict'
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
  echo "$PROG: --valgrind: valgrind is not installed" >&2
  exit 2
fi

# KTAP: an area a subtest; ka_N and ks_N, case N's area (by its first
# case in the plan) and its number there; kn_A, kname_A, kleft_A (cases
# still to report), kbad_A and kskip_A, area A's.
kareas=0
if [ -n "$KTAP" ]; then
  [ -z "$TAP_ONLY" ] || usage_error "--tap and --ktap: one or the other"
  eval "$(awk '{
      if (!($2 in idx)) { idx[$2] = ++n; printf "kname_%d=%s kbad_%d=0 kskip_%d=0\n", n, $2, n, n }
      a = idx[$2]; k[a]++
      printf "ka_%d=%d ks_%d=%d\n", $1, a, $1, k[a]
    }
    END {
      for (a = 1; a <= n; a++) printf "kn_%d=%d kleft_%d=%d\n", a, k[a], a, k[a]
      printf "kareas=%d\n", n
    }' "$WORK/plan")"
  echo "KTAP version 1"
  echo "1..$kareas"
  knext=1
else
  [ -z "$TAP_ONLY" ] || echo "TAP version 13"
  echo "1..$total"
fi
if [ -n "$STRICT" ]; then
  echo "# strict mode: every tool runs with --strict (kernel smoke test)"
fi
echo "# kernel $(uname -r), tools from $BINDIR"
# The machine and its page size (tests/fleet/matrix.sh heads its columns
# with them): from the probe, as busybox has no getconf.
echo "# machine $(uname -m), pages of $("$HELPERS/splice-probe" page-size 2> /dev/null ||
  echo unknown) bytes"
echo "# $JOBS cases at a time"
echo "# a case that runs $CASE_TIMEOUT s ($KERNEL_TIMEOUT s in the kernel area) is ended, timed out"
[ "$not_here" -eq 0 ] || echo "# $not_here case$([ "$not_here" -eq 1 ] || echo s) need$(
  [ "$not_here" -ne 1 ] || echo s) the source tree (its pages, sources, fuzz corpora), which an" \
  "installed run has not: not run"

# The machine's harness lock: every shared (and timing) case runs holding
# it shared, an alone case holding it alone, so that an alone case is alone
# beside other harnesses on this machine too (one that lowers pipe-max-size for a
# moment, or fills the user nobody's pipe pages, would fail their cases).
# Where flock(1) is missing, or the file cannot be opened, cases run
# without it.
# A harness a case runs inside this one (tests/install.sh) is given a lock
# of its own in SPLICE_TOOLS_HARNESS_LOCK: its alone cases would wait for
# the case that runs it.
HARNESS_LOCK=${SPLICE_TOOLS_HARNESS_LOCK:-/tmp/splice-tools-harness.lock}
command -v flock > /dev/null 2>&1 || HARNESS_LOCK=
# Open to every user (a harness run as another): once, not a chmod a case.
[ -z "$HARNESS_LOCK" ] || { : >> "$HARNESS_LOCK" && chmod 666 "$HARNESS_LOCK"; } 2> /dev/null || :

# run_case N AREA NAME KIND SECS: the case in the background, in case.N,
# under timeout(1), in a session and process group of its own: whatever the
# case left running (a listener of a case that failed) is named and ended
# by that group's id.  The runner ends it after SECS (timed_out);
# timeout(1) only when the runner could not, --grace s later.  This subshell
# holds the harness lock (shared, or alone for KIND alone) while the case
# runs.  The case's output goes to res.N.log, when it started (after the
# lock) to res.N.began, its pid to res.N.pid, its CPU times to res.N.times, then
# "STATUS CENTISECONDS" to res.N.result, and last N to the descriptor 3,
# the runner's FIFO: the runner reads a result only once told.  What the
# case left in case.N goes at once (a finished case may wait a while for
# its turn to be reported).
run_case() {
  _dir=$WORK/case.$1 _res=$WORK/res.$1
  if [ -n "$HARNESS_LOCK" ] && { exec 9>> "$HARNESS_LOCK"; } 2> /dev/null; then
    # Waited for as long as a case may run: then the case runs without it.
    if [ "$4" = alone ]; then _lock=-x; else _lock=-s; fi
    flock "$_lock" -w "$5" 9 || echo "NOTE: ran without the harness lock" >> "$_res.log"
  fi
  centis
  _start=$centis
  # setsid: a process group of its own whatever timeout(1) does (busybox's
  # makes none).
  (cd "$_dir" && exec setsid timeout -k "$GRACE" "$(($5 + GRACE))" sh "$TESTS/$2.sh" run "$3") \
    >> "$_res.log" 2>&1 < /dev/null 3>&- 9>&- &
  _pid=$!
  echo "$_pid" > "$_res.pid"
  echo "$_start" > "$_res.began"
  wait "$_pid"
  _status=$?
  if kill -0 "-$_pid" 2> /dev/null; then
    # Dead ones waiting for init to reap them are not worth a note.
    ps -e -o pgid= -o stat= -o args= |
      awk -v g="$_pid" '$1 == g && $2 !~ /^Z/ { $1 = ""; $2 = ""; print "NOTE: left running:" $0 }' \
      >> "$_res.log"
    kill -TERM "-$_pid" 2> /dev/null
    sleep 1
    kill -KILL "-$_pid" 2> /dev/null
  fi
  centis
  # CPU seconds: the user and system time of the case's processes that
  # were waited for, from the second line of times.
  times > "$_res.times"
  rm -rf "$_dir"
  echo "$_status $((centis - _start))" > "$_res.result"
  echo "$1" >&3
}

# Interrupted (a ^C, or a runner that ends the harness's process group),
# the runner ends every case that runs: each leads a process group.
end_cases() {
  for _pidfile in "$WORK"/res.*.pid; do
    [ -f "$_pidfile" ] || continue
    _pg=
    { read -r _pg < "$_pidfile"; } 2> /dev/null || continue
    [ -f "${_pidfile%.pid}.result" ] || kill -TERM "-$_pg" 2> /dev/null
  done
}
trap 'end_cases; exit 130' INT
trap 'end_cases; exit 143' TERM
# Its reader gone (splice-selftest | head): the cases end too, and nothing
# more is written.
trap 'trap "" PIPE; end_cases; kill "$ticker" 2> /dev/null; wait; exit 141' PIPE

# report N: the TAP line of the finished case N (its log after it when it
# failed), counted.
passed=0 failed=0 skipped=0 failed_ids=

# outcome N: case N's result, counted, its times line written: _how (pass,
# skip, stuck, timeout or fail), _status, _cs (its hundredths of a second),
# _title, _limit (its timeout), _reason (a skip's), _res (its files' stem).
outcome() {
  _res=$WORK/res.$1
  if [ -f "$_res.stuck" ]; then
    read -r _status _cs < "$_res.stuck"
    _user=0m0s _sys=0m0s
  else
    read -r _status _cs < "$_res.result"
    { read -r _ _; read -r _user _sys; } < "$_res.times"
  fi
  _title='' _limit='' _name=''
  eval "_title=\$title_$1 _limit=\$timeout_$1 _name=\$name_$1"
  echo "$_cs $1 $_user $_sys $_title" >> "$WORK/times"
  if [ "$_status" -eq 0 ]; then
    _how=pass
    passed=$((passed + 1))
  elif [ "$_status" -eq 77 ]; then
    _how=skip
    _reason=$(sed -n 's/^SKIP: //p' "$_res.log" | tail -n 1)
    _reason=${_reason:-no reason given}
    skipped=$((skipped + 1))
  else
    # timeout(1) ends with 124 (coreutils) or 143 (busybox, SIGTERM).
    if [ -f "$_res.stuck" ]; then
      _how=stuck
    elif [ -f "$_res.timeout" ] || [ "$_status" -eq 124 ] ||
      { [ "$_status" -eq 143 ] && [ "$_cs" -ge $((_limit * 100)) ]; }; then
      _how=timeout
    else
      _how=fail
    fi
    failed=$((failed + 1))
    failed_ids="$failed_ids $_name"
  fi
}

report() {
  outcome "$1"
  if [ -n "$KTAP" ]; then
    ktap_report "$1"
    return
  fi
  if [ -n "$TAP_ONLY" ]; then
    case_lines '' "$1"
    if [ "$_how" != pass ] && [ "$_how" != skip ]; then
      # meson test shows a TAP test's stderr (--print-errorlogs), not its comments.
      { echo "not ok $1 $_name"; sed 's/^/#   /' "$_res.log" | tail -n 40; } >&2
    fi
    return
  fi
  # Each result line names the case by its id, what one passes back to
  # rerun it (the same name as --ktap's).
  case $_how in
  pass)
    echo "ok $1 $_name - $_title ($((_cs / 100))s)"
    # Informational findings of a passing case, e.g. the vmsplice reuse hazard.
    while IFS= read -r line; do
      case $line in "NOTE: "*) echo "#   ${line#NOTE: }" ;; esac
    done < "$_res.log"
    ;;
  skip) echo "ok $1 $_name - $_title # SKIP $_reason" ;;
  *)
    case $_how in
    stuck) echo "not ok $1 $_name - $_title (stuck)" ;;
    timeout) echo "not ok $1 $_name - $_title (timed out after $_limit s)" ;;
    *) echo "not ok $1 $_name - $_title (exit $_status)" ;;
    esac
    sed 's/^/#   /' "$_res.log" | tail -n 40
    ;;
  esac
}

# case_lines INDENT N: the case's (outcome read) result as KTAP and --tap
# give it, each line after INDENT: its sentence and seconds, what it noted
# or logged, as "#" lines, then the result, named by the case's id, number N.
case_lines() {
  if [ -n "$1" ]; then
    echo "$1# ${_title#*: } ($((_cs / 100)) s)"
  else
    echo "# $_title ($((_cs / 100)) s)"
  fi
  case $_how in
  pass)
    sed -n "s/^NOTE: /$1# /p" "$_res.log"
    echo "$1ok $2 $_name"
    ;;
  skip) echo "$1ok $2 $_name # SKIP $_reason" ;;
  *)
    sed "s/^/$1# /" "$_res.log" | tail -n 40
    if [ "$_how" = fail ]; then
      echo "$1# exit $_status"
      echo "$1not ok $2 $_name"
    else
      echo "$1not ok $2 $_name # TIMEOUT $_limit seconds"
    fi
    ;;
  esac
}

# ktap_report N: case N's KTAP lines (outcome read), under its area's
# file; then every area whose cases have all reported, in order, as a
# subtest.
ktap_report() {
  _a='' _s=''
  eval "_a=\$ka_$1 _s=\$ks_$1"
  case_lines '    ' "$_s" >> "$WORK/ktap.$_a"
  case $_how in
  pass) ;;
  skip) eval "kskip_$_a=\$((kskip_$_a + 1))" ;;
  *) eval "kbad_$_a=1" ;;
  esac
  eval "kleft_$_a=\$((kleft_$_a - 1))"
  while [ "$knext" -le "$kareas" ]; do
    _left='' _n='' _area='' _bad='' _skips=''
    eval "_left=\$kleft_$knext _n=\$kn_$knext _area=\$kname_$knext _bad=\$kbad_$knext" \
      "_skips=\$kskip_$knext"
    [ "$_left" -eq 0 ] || break
    echo "    KTAP version 1"
    echo "    # Subtest: $_area"
    echo "    1..$_n"
    cat "$WORK/ktap.$knext"
    if [ "$_bad" -ne 0 ]; then
      echo "not ok $knext $_area"
    elif [ "$_skips" -eq "$_n" ]; then
      echo "ok $knext $_area # SKIP every case skipped"
    else
      echo "ok $knext $_area"
    fi
    knext=$((knext + 1))
  done
}

# The loop: start cases while fewer than JOBS run (an alone case only when
# none runs, and nothing beside it), print every finished case whose turn
# has come, then wait on the FIFO for the next to finish.
mkfifo "$WORK/finished"
exec 3<> "$WORK/finished"
: > "$WORK/times"
while read -r i area kind name desc; do
  eval "area_$i=\$area kind_$i=\$kind name_$i=\$name title_$i=\"\$area: \$desc\""
  if [ "$area" = kernel ]; then
    eval "timeout_$i=$KERNEL_TIMEOUT"
  else
    eval "timeout_$i=$CASE_TIMEOUT"
  fi
done < "$WORK/plan"
# start_K: the case started K-th.  The long ones first; then the other
# shared ones one area at a time in turn, so that the cases that mostly
# wait (progress, net) run beside ones that compute, not beside each other;
# the timing ones, then the alone ones, last.
k=0
for i in $(awk '
    $3 == "long" { print $1 }
    $3 == "shared" {
      if (!($2 in n)) areas[++na] = $2
      list[$2, ++n[$2]] = $1
      if (n[$2] > rounds) rounds = n[$2]
    }
    $3 == "timing" { timing[++nt] = $1 }
    $3 == "alone" { alone[++nl] = $1 }
    END {
      for (r = 1; r <= rounds; r++)
        for (a = 1; a <= na; a++)
          if (r <= n[areas[a]]) print list[areas[a], r]
      for (j = 1; j <= nt; j++) print timing[j]
      for (j = 1; j <= nl; j++) print alone[j]
    }' "$WORK/plan"); do
  k=$((k + 1))
  eval "start_$k=$i"
done
# waits_of PGID WORD: a line for each process of group PGID, after WORD:
# its pid, its state, the kernel function it waits in (wchan), its system
# call (the number /proc/PID/syscall gives, or "running") and its command;
# then its kernel stack, where readable.
waits_of() {
  _wpg=$1 _word=$2
  for _d in /proc/[0-9]*; do
    _s=
    { read -r _s < "$_d/stat"; } 2> /dev/null || continue
    # shellcheck disable=SC2086 # fields: state ppid pgrp ...
    set -- ${_s##*) }
    [ "${3:-}" = "$_wpg" ] || continue
    _pid=${_d#/proc/}
    # (Gone between the two reads: the shell's word of the failed < hushed.)
    wait_of "$_d" "$_word pid $_pid" "$1" ": $({ tr '\0' ' ' < "$_d/cmdline"; } 2> /dev/null)"
    # Its other threads: the main one may wait in a join for a thread
    # asleep in the kernel (two pipes locked in the wrong order).
    for _t in "$_d"/task/[0-9]*; do
      [ "${_t##*/}" != "$_pid" ] || continue
      _s=
      { read -r _s < "$_t/stat"; } 2> /dev/null || continue
      # shellcheck disable=SC2086 # fields: state ...
      set -- ${_s##*) }
      wait_of "$_t" "$_word   thread ${_t##*/} of $_pid" "$1" ""
    done
  done
}

# wait_of DIR WHO STATE TAIL: "WHO state STATE in WCHAN, system call
# N" and TAIL, then the kernel stack, of the task DIR (/proc/PID or a
# thread's /proc/PID/task/TID).
wait_of() {
  _call=
  { read -r _call _ < "$1/syscall"; } 2> /dev/null || _call='?'
  # (wchan ends with no newline: read says false, having read it.)
  _wchan=
  { read -r _wchan < "$1/wchan"; } 2> /dev/null || :
  echo "$2 state $3 in ${_wchan:-?}, system call $_call$4"
  sed "s/^/$_word   /" "$1/stack" 2> /dev/null || :
}

# timed_out N SECS: case N has run SECS: what each of its processes waits
# in goes to its log, and its process group gets SIGTERM (timeout(1) and
# the case in it); the report says "timed out".
timed_out() {
  # Read by the shell: a busybox cat copies with sendfile(2), which the
  # kernel under test may have broken (a mutant's never ended).
  _pg=
  { read -r _pg < "$WORK/res.$1.pid"; } 2> /dev/null || return 0
  {
    echo "TIMEOUT: still running after its $2 s"
    waits_of "$_pg" TIMEOUT:
  } >> "$WORK/res.$1.log"
  : > "$WORK/res.$1.timeout"
  kill -TERM "-$_pg" 2> /dev/null
}

# stuck N SECS: case N still runs STUCK_SECS (twice --grace: timeout(1)'s
# SIGKILL came and went) after its SECS: a process
# asleep in the kernel where no signal reaches it (D state: a pipe's lock
# taken and never given back), or a timeout(1) that cannot act.  Its
# processes' states, kernel functions and stacks go to its log, it is
# ended as far as it can be, and it counts as failed; the run goes on
# without it.
STUCK_SECS=$((GRACE * 2))
stuck() {
  _pg=
  { read -r _pg < "$WORK/res.$1.pid"; } 2> /dev/null || _pg=
  {
    echo "STUCK: still running ${STUCK_SECS} s after its $2 s timeout"
    [ -z "$_pg" ] || waits_of "$_pg" STUCK:
  } >> "$WORK/res.$1.log"
  [ -z "$_pg" ] || kill -KILL "-$_pg" 2> /dev/null
  # Its own file: run_case may still write the others, should it end after all.
  echo "1 $(( (STUCK_SECS + $2) * 100 ))" > "$WORK/res.$1.stuck"
}

# A tick on the FIFO every second: the runner looks for cases out of time
# even when no case ends.  It ends with the runner, however that ended
# (it holds the FIFO open itself: its writes would never fail).
runner=$$
while sleep 1 && kill -0 "$runner" 2> /dev/null; do echo tick; done >&3 &
ticker=$!

running=0 next_start=1 next_report=1 alone_runs='' c='' running_list='' _began=0 _limit=0
timing_runs=0
while [ "$next_report" -le "$total" ]; do
  while [ "$next_start" -le "$total" ] && [ "$running" -lt "$JOBS" ] && [ -z "$alone_runs" ]; do
    eval "c=\$start_$next_start"
    eval "kind=\$kind_$c area=\$area_$c name=\$name_$c"
    if [ "$kind" = alone ]; then
      [ "$running" -eq 0 ] || break
      alone_runs=1
    elif [ "$kind" = timing ]; then
      # Only once no other kind runs: a rate is timed beside sleepers.
      [ "$running" -eq "$timing_runs" ] || break
      timing_runs=$((timing_runs + 1))
    fi
    mkdir "$WORK/case.$c"
    eval "_limit=\$timeout_$c"
    # Its stderr too: nothing but TAP on stdout (busybox's sh says
    # "Terminated" of a child that SIGTERM ended).
    run_case "$c" "$area" "$name" "$kind" "$_limit" 2>> "$WORK/res.$c.log" &
    running_list="$running_list $c "
    running=$((running + 1))
    next_start=$((next_start + 1))
  done
  while [ "$next_report" -le "$total" ]; do
    eval "c=\${done_$next_report:-}"
    [ -n "$c" ] || break
    report "$next_report"
    next_report=$((next_report + 1))
  done
  [ "$next_report" -le "$total" ] || break
  read -r _finished <&3
  if [ "$_finished" = tick ]; then
    centis
    _ended=
    for c in $running_list; do
      # Counted from its start: a case may first wait for the harness lock.
      _began=
      { read -r _began < "$WORK/res.$c.began"; } 2> /dev/null || continue
      eval "_limit=\$timeout_$c"
      [ $((centis - _began)) -ge $((_limit * 100)) ] || continue
      [ -f "$WORK/res.$c.timeout" ] || timed_out "$c" "$_limit"
      [ $((centis - _began)) -gt $(( (_limit + STUCK_SECS) * 100 )) ] || continue
      stuck "$c" "$_limit"
      _ended="$_ended $c"
    done
    [ -n "$_ended" ] || continue
  else
    _ended=$_finished
  fi
  for c in $_ended; do
    # A stuck case that ends after all was counted already.
    case $running_list in *" $c "*) ;; *) continue ;; esac
    running_list=${running_list%%" $c "*}${running_list#*" $c "}
    eval "done_$c=1"
    running=$((running - 1))
    eval "[ \"\$kind_$c\" != timing ]" || timing_runs=$((timing_runs - 1))
    alone_runs=
  done
done
# The ticker and the sleep it waits in, by their pids.
# shellcheck disable=SC2046 # one pid a word
_children=
{ read -r _children < "/proc/$ticker/task/$ticker/children"; } 2> /dev/null || :
kill "$ticker" $_children 2> /dev/null
exec 3>&-

centis
# Where the time went: the whole run, its CPU seconds, the ten slowest
# cases (seconds of wall clock, then of CPU).
awk -v total="$total" -v wall=$(( (centis - run_start) / 100 )) -v jobs="$JOBS" '
  function secs(t, m) { m = t; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", t); return m * 60 + t }
  { cpu += secs($3) + secs($4) }
  END { printf "# %d cases in %d s, %d at a time, %.0f s of CPU; the slowest:\n", total, wall, jobs, cpu }
' "$WORK/times"
sort -rn "$WORK/times" |
  awk '
    function secs(t, m) { m = t; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", t); return m * 60 + t }
    { t = $1; n = $2; c = secs($3) + secs($4); sub(/^[^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "")
      printf "%.1f %.1f %d %s\n", t / 100, c, n, $0 }' > "$WORK/times.sorted"
awk 'NR <= 10 { w = $1; c = $2; n = $3; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "")
  printf "#   %5.1f s (CPU %5.1f s)  %d - %s\n", w, c, n, $0 }' "$WORK/times.sorted"
if [ -n "$TIMES_FILE" ]; then
  cp "$WORK/times.sorted" "$TIMES_FILE" || echo "$PROG: --times: cannot write $TIMES_FILE" >&2
fi
summary="$passed passed, $failed failed"
[ "$skipped" -eq 0 ] || summary="$summary, $skipped skipped"
if [ -n "$KTAP" ]; then
  # kselftest's closing line, then ours.
  echo "# Totals: pass:$passed fail:$failed xfail:0 xpass:0 skip:$skipped error:0"
  echo "# $summary"
  [ "$failed" -eq 0 ] && { [ "$total" -gt 0 ] || [ "$not_here" -gt 0 ]; }
elif [ -n "$TAP_ONLY" ]; then
  # The consumer counts the "not ok" lines: a failing exit status would tell
  # it the harness broke (meson test: ERROR instead of FAIL).
  echo "# $summary"
  [ "$total" -gt 0 ] || [ "$not_here" -gt 0 ]
else
  # What reruns exactly the failed cases, with the options that matter.
  if [ "$failed" -gt 0 ]; then
    # As run: splice-selftest names its own tools; run.sh needs them named.
    rerun=$PROG
    [ "$PROG" != run.sh ] || rerun="sh $0 --bindir $BINDIR"
    [ -z "$CASE_TIMEOUT_GIVEN" ] || rerun="$rerun --timeout $CASE_TIMEOUT"
    [ -z "$KERNEL_TIMEOUT_GIVEN" ] || rerun="$rerun --kernel-timeout $KERNEL_TIMEOUT"
    echo "# rerun the failed: $rerun${STRICT:+ --strict}${VALGRIND:+ --valgrind}$failed_ids"
  fi
  echo "$summary"
  [ "$failed" -eq 0 ] && { [ "$total" -gt 0 ] || [ "$not_here" -gt 0 ]; }
fi
