# shellcheck shell=sh
# Sourced by every area script, and by tests/run.sh, tests/vm.sh and
# bench/run.sh for the tool list and their own helpers (the last section).
# An area script defines its cases as shell
# functions, names each with `tcase [--alone|--long] FUNCTION "what it checks"`, and ends with
# `run_area "$@"`.  tests/run.sh runs `sh AREA.sh list` to learn the cases and
# `sh AREA.sh run FUNCTION` in a fresh temp dir to run one: exit 0 passes,
# 77 skips (the last "SKIP: reason" line says why), anything else fails.
#
# The rules of the harness:
# - One home per behaviour.  A case lives in its tool's area (cat.sh for
#   splice-cat, tee.sh, vmsplice.sh for vmsplice and vmsplice-touser, net.sh
#   for splice-fromnet and splice-tonet, buffer.sh, bench.sh), so that
#   `meson test --suite AREA` covers the tool.  The cross-tool areas
#   (edges.sh, faults.sh, man.sh, install.sh, fuzz.sh; progress.sh for the
#   status line the tools share) hold only cases that loop over the tools;
#   kernel.sh and static.sh check the kernel and the source.  A case is
#   named by the behaviour it checks, not by a bug's number, and its name is
#   unique over every area (tests/run.sh CASE runs it by name).
# - One helper per idiom: one way to run in the background and be ended at
#   exit (bg_started), one receiver starter (start_receiver), one port reader
#   (listen_port), one way to get a pipeline member's status (run_status).
# - Helpers that more than one area uses live here, nowhere else.

# Every tool of the suite.  tests/run.sh and tests/vm.sh refuse to run
# unless BINDIR has each (find_tools); bench/run.sh builds each.
# shellcheck disable=SC2034 # read by the scripts that source this file
TOOLS="splice-cat splice-tee vmsplice vmsplice-touser splice-fromnet splice-tonet splice-buffer splice-bench"
# The tools that watch and move no data: never run with --strict, and
# optional in BINDIR (a guest of the kernel area has none).
# shellcheck disable=SC2034 # read by the scripts that source this file
WATCHERS="splice-top"

# tcase [--alone|--long|--timing] [--source PATH] FUNCTION "what it checks":
# the case's line of `list` is FUNCTION, its kind (shared, long, timing or
# alone) and what it checks.
# --source PATH: the case needs PATH of the source tree (its pages, its
# sources, the fuzz corpora): where the harness runs installed, without it,
# the case is not listed nor run, only counted.
# --long: a case of 7 s or more on a quiet machine, most of it waiting;
# tests/run.sh starts it before the others, so that it does not hold the
# run's end, numbered as a shared case.  --timing: the case times a rate
# or an ETA and mostly sleeps, so that another case's load would break its
# bound but one like it would not: tests/run.sh runs it after the shared
# ones, beside the other timing ones only.  --alone: the case needs the
# whole machine (a busy loop, many threads), or changes what every process
# shares (a sysctl such as pipe-max-size; the pipe pages of the user
# nobody, which pipe-user-pages-soft counts for all of that user's
# processes): tests/run.sh runs it after the others, with nothing beside it.
CASES=
tcase() {
  _kind=shared _source=
  while :; do
    case $1 in
    --alone | --long | --timing) _kind=${1#--}; shift ;;
    --source) _source=$2; shift 2 ;;
    *) break ;;
    esac
  done
  # A case that needs a part of the source tree is no case of an installed
  # run: listed as "- source NAME", the runner counts it and runs nothing.
  if [ -n "$_source" ] && [ ! -e "$TESTS/../$_source" ]; then
    CASES="$CASES
- source $1"
    return
  fi
  CASES="$CASES
$1 $_kind $2"
}

run_area() {
  case ${1:-} in
  list) echo "$CASES" ;;
  run) set -e; "$2" ;;
  *) echo "usage: $0 list | run CASE" >&2; exit 2 ;;
  esac
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

skip() {
  echo "SKIP: $*"
  exit 77
}

# The case exists to show a fallback; in strict mode there is none.
needs_fallback() {
  [ -z "${STRICT:-}" ] || skip "exercises the read/write fallback, which --strict forbids"
}

need() {
  for cmd in "$@"; do
    command -v "$cmd" > /dev/null 2>&1 || skip "$cmd is not installed"
  done
}

# A test helper built with the tools (tests/*.c); skip when absent.
helper() {
  [ -x "$HELPERS/$1" ] || skip "test helper $1 not built in $HELPERS"
  echo "$HELPERS/$1"
}

# need_source PATH: a file or directory of the source tree, beside tests/;
# skip when the harness runs installed (splice-selftest), without it.
need_source() {
  [ -e "$TESTS/../$1" ] || skip "needs $1 from the source tree; the harness runs installed"
}

# same FILE1 FILE2: byte for byte.
same() {
  cmp "$1" "$2" || fail "$1 and $2 differ"
}

# same_sparse A B: as same, for files with holes (tests/same-sparse.c):
# only where either holds data is read; a 1 GiB hole cmp reads costs
# seconds of the kernel's zeroing.  Without the helper, cmp.
same_sparse() {
  [ -x "$HELPERS/same-sparse" ] || { same "$1" "$2"; return; }
  "$HELPERS/same-sparse" "$1" "$2" || fail "$1 and $2 differ"
}

# status EXPECTED ACTUAL WHAT
status() {
  [ "$2" -eq "$1" ] || fail "$3: exit status $2, expected $1"
}

# status_in EXPECTED FILE WHAT: status, of the status run_status stored in
# FILE, read by the shell: a "$(cat st)" a call, thousands in a run, cost
# seconds of CPU in forks.  A FILE empty or missing is a failure too.
status_in() {
  _sin=
  { read -r _sin < "$2"; } 2> /dev/null || :
  case $_sin in '' | *[!0-9]*) fail "$3: no exit status in $2" ;; esac
  status "$1" "$_sin" "$3"
}

# counted FILE BYTES WHAT: FILE holds the count BYTES (vmsplice-touser -c,
# wc -c).  An empty or garbled FILE (the step that wrote it failed) fails the
# case with WHAT, never with a shell error from the comparison.
counted() {
  _count=
  { read -r _count < "$1"; } 2> /dev/null || :
  case $_count in
  '' | *[!0-9]*) fail "$3: no byte count (${_count:-empty})" ;;
  esac
  [ "$_count" -eq "$2" ] || fail "$3: $_count bytes, expected $2"
}

# mentions FILE TEXT: the message in FILE says TEXT.
mentions() {
  grep -q -- "$2" "$1" || { cat "$1" >&2; fail "message does not mention '$2'"; }
}

# help_lists TOOL [OPTION...]: TOOL --help exits 0, says "Usage: TOOL" and
# names every OPTION (a grep pattern) on stdout; TOOL -V exits 0 with
# "TOOL (splice-tools) X.Y.Z".
help_lists() {
  _tool=$1
  shift
  "$_tool" --help > out || fail "$_tool --help exit"
  mentions out "Usage: $_tool"
  for _opt in "$@"; do
    mentions out "$_opt"
  done
  "$_tool" -V > out || fail "$_tool -V exit"
  grep -qx "$_tool (splice-tools) [0-9]*\.[0-9]*\.[0-9]*" out || fail "version line: $(cat out)"
}

# seq_ref NAME BYTES: NAME holds BYTES of vmsplice's seq pattern (through a
# pipe: vmsplice --strict writes nothing else).
seq_ref() {
  vmsplice -p seq -s "$2" | cat > "$1"
  [ "$(wc -c < "$1")" -eq "$2" ] || fail "could not make $1"
}

# count_is FILE N: what vmsplice-touser -c wrote into FILE is N.
count_is() {
  [ "$(cat "$1")" = "$2" ] || fail "$1: counted '$(cat "$1")' bytes, expected $2"
}

# random_file NAME BYTES
random_file() {
  head -c "$2" /dev/urandom > "$1"
  [ "$(wc -c < "$1")" -eq "$2" ] || fail "could not make $1"
}

# run_status FILE CMD...: runs CMD (stdin, stdout and stderr kept) and
# stores its exit status in FILE; the one way to get the status of a
# pipeline's member: `run_status st splice-cat f | head -c 1`.
run_status() {
  _status_file=$1
  shift
  set +e
  "$@"
  echo $? > "$_status_file"
  set -e
}

# wait_until WHAT CMD...: runs CMD every 0.05 s until it succeeds; after
# 20 s the case fails, saying WHAT did not happen.  A case waits for a
# condition this way, never for a fixed time: the machine may be loaded.
wait_until() {
  _what=$1
  shift
  _i=0
  until "$@"; do
    [ $_i -lt 400 ] || fail "$_what"
    sleep 0.05
    _i=$((_i + 1))
  done
}

# state_of PID: the one-letter state of PID's main thread ('' when gone).
# Shell builtins alone (the name in parentheses may hold ") "): the wait
# loops call it 20 times a second, and a sed and a cut each time cost more
# CPU than many a case.
state_of() {
  _stat=
  { read -r _stat < "/proc/$1/stat"; } 2> /dev/null || :
  [ -z "$_stat" ] || { _stat=${_stat##*) }; echo "${_stat%% *}"; }
}

# stat_field PID N: field N of /proc/PID/stat counted after the name's
# parenthesis (1 the state, 2 the parent, 3 the process group, 4 the
# session), by shell builtins; nothing when PID is gone.
stat_field() {
  _stat=
  { read -r _stat < "/proc/$1/stat"; } 2> /dev/null || :
  [ -n "$_stat" ] || return 0
  # shellcheck disable=SC2086 # the fields, one a word
  set -- $2 ${_stat##*) }
  shift "$1"
  echo "$1"
}

# sleeping PID: PID's main thread sleeps, which a tool does only when it
# waits: for room in a pipe, for input, for a peer, between retries.
sleeping() {
  [ "$(state_of "$1")" = S ]
}

# watching PID: PID runs its watcher thread (a second thread), which takes
# SIGINT, SIGTERM, SIGHUP and SIGUSR1 from then on; before that (a slow
# start under valgrind) a signal's default action would end it, as it
# would end dd.
watching() {
  _threads=0
  while read -r _key _value; do
    [ "$_key" != Threads: ] || { _threads=$_value; break; }
  done < "/proc/$1/status" 2> /dev/null || :
  [ "$_threads" -ge 2 ]
}

# nonempty FILE: FILE has a byte in it.
nonempty() {
  [ -s "$1" ]
}

# has_bytes FILE N: FILE holds N bytes or more.
has_bytes() {
  [ "$(wc -c < "$1" 2> /dev/null || echo 0)" -ge "$2" ]
}

# exists FILE: FILE is there (a go-ahead one step of a case gives another).
exists() {
  [ -e "$1" ]
}

# waits_or_stuck PID: PID's main thread sleeps, or is stuck (D) in the
# kernel.
waits_or_stuck() {
  case $(state_of "$1") in S | D) return 0 ;; esac
  return 1
}

# child_sleeps PID: the first child of PID (timeout(1)'s tool) sleeps.
child_sleeps() {
  _child=$(cut -d' ' -f1 "/proc/$1/task/$1/children" 2> /dev/null)
  [ -n "$_child" ] && sleeping "$_child"
}

# ---- background processes, listeners --------------------------------------

# Background pids of the case (timeout(1), setsid'd tools, feeders, sinks):
# at exit each is ended with its children, by pid, if still there.
BG=
# Paths outside the case's directory (memory_dir's) go at exit too.
GONE_AT_EXIT=
end_background() {
  for _p in $BG; do
    # shellcheck disable=SC2046 # one pid per word
    kill $(cat "/proc/$_p/task/$_p/children" 2> /dev/null) "$_p" 2> /dev/null || :
  done
  # shellcheck disable=SC2086 # one path per word, made by mktemp
  [ -z "$GONE_AT_EXIT" ] || rm -rf $GONE_AT_EXIT
}
trap end_background EXIT

# memory_dir: MEM, a new directory of the case's on a tmpfs (/dev/shm),
# removed at exit, or "." where there is none.  A hole there reads as zeros
# without filling the page cache: the first read of 5 GiB of holes on ext4
# cost 12 s and 21 s of CPU, where the size, not the file system, is the point.
memory_dir() {
  MEM=
  [ -d /dev/shm ] && [ -w /dev/shm ] && MEM=$(mktemp -d /dev/shm/splice-case.XXXXXX 2> /dev/null)
  if [ -n "$MEM" ]; then
    GONE_AT_EXIT="$GONE_AT_EXIT $MEM"
  else
    MEM=.
  fi
}

# bg_started [PID...]: the case's exit ends PID (default $!, the last
# background command) if still running.
# shellcheck disable=SC2120 # areas pass pids; most take $!
bg_started() {
  BG="$BG ${*:-$!}"
}

# listen_port ERR [PID]: the port of the first "listening on" line in the
# file ERR (splice-fromnet's "listening on ADDR port N", socat -d -d's
# "listening on AF=2 ADDR:N", nc -l -v's "Listening on ADDR N": the line's
# last number), waiting for it at most 20 s, and no longer than PID runs.
listen_port() {
  _i=0
  until grep -q -i 'listening on .*[0-9]$' "$1" 2> /dev/null; do
    if { [ -n "${2:-}" ] && [ ! -d "/proc/$2" ]; } || [ $_i -ge 400 ]; then
      cat "$1" >&2 2> /dev/null || :
      fail "no 'listening on' line in $1"
    fi
    sleep 0.05
    _i=$((_i + 1))
  done
  grep -i -m 1 'listening on .*[0-9]$' "$1" | sed 's/.*[^0-9]\([0-9][0-9]*\)$/\1/'
}

# start_receiver [-i IN] OUT ERR CMD...: the listener CMD (splice-fromnet
# ... 0, under timeout(1), inject or sh -c as the case needs) in the
# background, stdin IN (default /dev/null), stdout OUT, stderr ERR; ended
# at exit.  Sets RPID (CMD's pid) and PORT (listen_port).
start_receiver() {
  _rin=/dev/null
  if [ "$1" = -i ]; then
    _rin=$2
    shift 2
  fi
  _rout=$1 _rerr=$2
  shift 2
  rm -f "$_rerr"
  "$@" < "$_rin" > "$_rout" 2> "$_rerr" &
  RPID=$!
  bg_started
  PORT=$(listen_port "$_rerr" "$RPID")
}

# requests TRACE ERE: the sizes that the calls in strace's record TRACE
# asked for, each once, in order: the number right after ERE at a line's start.
requests() {
  sed -E -n "s/^$2([0-9]+).*/\\1/p" "$1" | sort -nu | tr '\n' ' '
}

# writer_waits PIDFILE: the process whose pid is in PIDFILE sleeps (on
# its full pipe, for a writer).
writer_waits() {
  [ -s "$1" ] && sleeping "$(cat "$1")"
}

# reader_asks PIPE WANT SYSCALL ERE CMD...: fails unless every SYSCALL call
# of CMD asked for WANT bytes (the number after ERE, see requests) of a pipe
# of PIPE bytes, which vmsplice grew, then filled (of 8 MiB in all), before
# CMD started.  CMD's stdout, a pipe, goes to asks.out.
reader_asks() {
  _pipe=$1 _want=$2 _sys=$3 _ere=$4
  shift 4
  rm -f asks.wpid
  { vmsplice --pipe-size "$_pipe" -s 8M & echo $! > asks.wpid; wait; } |
    { wait_until "vmsplice never filled its pipe" writer_waits asks.wpid
      run_status asks.st traced -o asks.trace -e trace="$_sys" "$@"; } |
    cat > asks.out
  [ "$(cat asks.st)" -eq 0 ] || fail "vmsplice --pipe-size $_pipe | $*: exit $(cat asks.st)"
  _got=$(requests asks.trace "$_ere")
  [ "$_got" = "$_want " ] ||
    { cat asks.trace >&2; fail "pipe $_pipe, $*: asked $_got, not $_want"; }
}

# traced STRACE-ARGS... CMD...: CMD under strace, with LeakSanitizer off (it
# cannot run under ptrace) and under timeout 10, so a hang fails quickly.
traced() {
  # Traced with -f and a -e trace= set: stopped for those calls alone.
  _bpf=
  case " $* " in *" -f "*" -e trace="* | *" -e trace="*" -f "*) seccomp_bpf && _bpf=$SECCOMP_BPF ;; esac
  # shellcheck disable=SC2086 # an option or none
  timeout 10 env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace $_bpf "$@"
}

# seccomp_bpf: SECCOMP_BPF is "--seccomp-bpf" where this strace has it
# (5.3 on), else empty.  With it, strace -f stops a process only at the
# calls it traces: a case that injects into splice(2) does not pay a ptrace
# stop for every other call of every process (ten times the time of a
# pipeline).
seccomp_bpf() {
  if [ -z "${SECCOMP_BPF+set}" ]; then
    SECCOMP_BPF=
    [ -n "$(strace -f --seccomp-bpf -e trace=getpid -o /dev/null true 2>&1)" ] ||
      SECCOMP_BPF=--seccomp-bpf
  fi
}

# inject [-o LOG [-t SYSCALLS]] SYSCALL:ERRNO[:WHEN]... CMD...: runs CMD
# under strace -f, stdin, stdout and stderr kept, each SYSCALL failing with
# ERRNO on every call or on the WHEN-th (3) or from the WHEN-th on (3+);
# SYSCALL:retval=N[:WHEN] is not made at all and returns N (a faked success).
# -o LOG: strace's record of every call (-t: of these, comma-separated) goes
# to LOG.  A case that injects starts with `need strace`: a skip from
# inside a pipeline would end only that member.
inject() {
  _log=/dev/null
  _trace=
  if [ "$1" = -o ]; then
    _log=$2
    shift 2
  fi
  if [ "$1" = -t ]; then
    _trace="-e trace=$2"
    shift 2
  fi
  _faults='' _injected=''
  while :; do
    case $1 in *:*) ;; *) break ;; esac
    _sys=${1%%:*}
    _injected=$_injected${_injected:+,}$_sys
    _err=${1#*:}
    _when=
    case $_err in *:*) _when=:when=${_err#*:} ;; esac
    case $_err in
    retval=*) _faults="$_faults -e inject=$_sys:${_err%%:*}$_when" ;;
    *) _faults="$_faults -e inject=$_sys:error=${_err%%:*}$_when" ;;
    esac
    shift
  done
  # No record asked for: only the calls injected into are traced, and
  # with seccomp-bpf no other call stops (strace injects into traced calls
  # only, so the -t set takes them too).
  _bpf=
  if [ "$_log" = /dev/null ] && [ -z "$_trace" ]; then
    _trace="-e trace=$_injected"
  elif [ -n "$_trace" ]; then
    _trace="$_trace,$_injected"
  fi
  [ -z "$_trace" ] || { seccomp_bpf && _bpf=$SECCOMP_BPF; }
  # LeakSanitizer cannot run under ptrace: off, for sanitized builds.
  # shellcheck disable=SC2086 # one word per option
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f $_bpf -o "$_log" $_trace $_faults "$@"
}

# ---- receivers: splice-fromnet with a reader, a perl listener -------------------

# reap PID WHAT: waits for PID (bounded by its timeout(1)); REAPED = status.
reap() {
  set +e
  wait "$1"
  REAPED=$?
  set -e
  [ "$REAPED" -ne 124 ] || fail "$2: hung (killed by timeout)"
}

have_ipv6() {
  grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2> /dev/null
}

# receive HOST KIND [OPTS]...: splice-fromnet -b HOST OPTS 0 in the
# background, stdout the file "out" (KIND file) or a FIFO that cat drains
# into "out" (KIND pipe).  Sets RPID, CPID (or empty) and PORT.
receive() {
  _host=$1 _kind=$2
  shift 2
  _reader=
  [ "$_kind" = file ] || _reader='exec cat'
  receive_through "$_reader" "$_host" "$@"
}

# receive_through READER HOST [OPTS]...: receive HOST pipe with the sh
# command READER, not cat, reading the FIFO into "out"; READER "": receive
# HOST file.
receive_through() {
  _reader=$1 _host=$2
  shift 2
  rm -f out err fifo
  CPID=
  _stdout=out
  if [ -n "$_reader" ]; then
    mkfifo fifo
    timeout 60 sh -c "$_reader" < fifo > out &
    CPID=$!
    bg_started
    _stdout=fifo
  fi
  start_receiver "$_stdout" err timeout 60 splice-fromnet -b "$_host" "$@" 0
}

# receive_done WHAT: reaps the receiver (and its cat); it must exit 0.
receive_done() {
  reap "$RPID" "splice-fromnet ($1)"
  [ "$REAPED" -eq 0 ] || { cat err >&2; fail "splice-fromnet ($1): exit $REAPED"; }
  if [ -n "$CPID" ]; then
    reap "$CPID" "cat"
  fi
}

# perl_listener BACKLOG CODE: a listener on 127.0.0.1, port 0, with BACKLOG,
# in perl: the socket is $s, CODE runs once it listens, at most 60 s.
# Sets NPORT.
perl_listener() {
  need perl
  start_receiver /dev/null nport timeout 60 perl -e '
    use Socket;
    socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
    bind($s, pack_sockaddr_in(0, inet_aton("127.0.0.1"))) or die "bind: $!";
    listen($s, $ARGV[0]) or die "listen: $!";
    print STDERR "listening on ", (unpack_sockaddr_in(getsockname($s)))[0], "\n";'"$2" "$1"
  NPORT=$PORT
}

# ---- processes: an end within a time, a session, a signal ------------------

# hung WHAT: fails when the last run_status (file "st") was ended by timeout(1).
hung() {
  [ "$(cat st)" -ne 124 ] || fail "$1: hung (killed by timeout 10)"
}

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
    _s=
    { read -r _s < "$_d/stat"; } 2> /dev/null || continue
    # shellcheck disable=SC2086 # fields: state ppid pgrp session ...
    set -- ${_s##*) }
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
  [ "$(stat_field "$1" 4)" = "$1" ]
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

# ---- status lines and the ending signals -------------------------------------

# Put before a background job: this shell has it ignore SIGINT, and a signal
# ignored at start stays ignored, by design.  A command, not a function, so
# that $! is the tool's pid.
# shellcheck disable=SC2034 # read by the scripts that source this file
SIGNALS_BACK="env --default-signal=INT,TERM,HUP"

# now_ms: milliseconds since boot, to the hundredth of a second
# (/proc/uptime, read without a process: loops call it 100 times a second).
now_ms() {
  read -r _up _ < /proc/uptime
  _up=${_up%.*}${_up#*.}
  _up=${_up#"${_up%%[!0]*}"}
  echo $(( ${_up:-0} * 10 ))
}

# lines_with FILE TEXT: how many lines of FILE hold TEXT.
lines_with() {
  grep -c -- "$2" "$1" || :
}

# wait_watcher PID: until PID runs its watcher thread (see watching).
wait_watcher() {
  wait_until "pid $1 never started its watcher thread" watching "$1"
}

# has_lines_with FILE N TEXT: FILE has N lines or more with TEXT.
has_lines_with() {
  [ "$(lines_with "$1" "$3")" -ge "$2" ]
}

# marked_sink FIFO: reads FIFO to its end in the background, its first byte
# into FIFO.got, which says that bytes flow; SINK is its pid.
marked_sink() {
  rm -f "$1.got"
  sh -c 'dd bs=1 count=1 of="$1.got" 2> /dev/null; exec cat > /dev/null' sh "$1" < "$1" &
  SINK=$!
}

# wait_counted WHAT ERR: until a status line of WHAT in ERR counts a byte. A
# byte at the sink is not enough: a tool counts bytes once every output has them.
wait_counted() {
  wait_until "$1 counted no byte" has_lines_with "$2" 1 "^ *[1-9][0-9]* bytes.* copied, "
}

# ends_by SIG WHAT PID ERR: PID ended by SIG (128+N) after its last status
# line and, but for splice-bench, its -v totals.
ends_by() {
  _st=0
  wait "$3" || _st=$?
  case $1 in HUP) _n=1 ;; INT) _n=2 ;; TERM) _n=15 ;; esac
  status $((128 + _n)) "$_st" "$2 after SIG$1"
  mentions "$4" "[0-9] bytes.* copied, "
  case $2 in splice-bench*) ;; *) mentions "$4" ": [0-9]* bytes \(by [a-zA-Z_/() 0-9]*\|read\) in [0-9.]* s" ;; esac
}

# ---- signals mid-transfer ------------------------------------------------------

# feed FIFO: vmsplice -s inf -p seq -L 64M into FIFO, in the background.
feed() {
  # At 64 MiB/s: bytes flow, and three processes do not take two CPUs
  # for as long as a case waits.
  timeout 30 vmsplice -s inf -p seq -L 64M > "$1" 2> /dev/null &
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

# ---- descriptors 0, 1 and 2 closed ----------------------------------------------

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

# ---- the other end of a pipe resizing it mid-stream ---------------------------
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
  status_in 0 st "$_what, reader resizes to $_size"
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
  status_in 0 st "$_what, writer resizes to $_size"
  count_is n "$(wc -c < ref)"
}

# ---- resource exhaustion --------------------------------------------------------

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

# ---- the scripts that run the tools: tests/run.sh, tests/vm.sh, bench/run.sh ----

# find_tools PROG: BINDIR (default: the build beside tests/) and HELPERS
# (default BINDIR/tests) made absolute, as cases run in temp dirs; every tool
# of TOOLS must be in BINDIR (none may come from PATH).  Otherwise PROG says
# which is missing, exit 2.  A default HELPERS that is not there (installed
# tools) is kept: helper() skips.
find_tools() {
  BINDIR=${BINDIR:-$TESTS/../build}
  _dir=$(cd "$BINDIR" 2> /dev/null && pwd) || { echo "$1: no such directory: $BINDIR" >&2; exit 2; }
  BINDIR=$_dir
  if [ -n "$HELPERS" ]; then
    _dir=$(cd "$HELPERS" 2> /dev/null && pwd) ||
      { echo "$1: no such directory: $HELPERS" >&2; exit 2; }
    HELPERS=$_dir
  else
    HELPERS=$BINDIR/tests
  fi
  for _tool in $TOOLS; do
    [ -x "$BINDIR/$_tool" ] ||
      { echo "$1: $BINDIR/$_tool not found; build first (meson setup build && ninja -C build)" >&2
        exit 2; }
  done
}

# work_dir TEMPLATE [PIDVAR]: WORK, a directory mktemp -d makes from
# TEMPLATE, removed at exit, after the process whose pid the variable PIDVAR
# holds (when set) is ended; SIGINT and SIGTERM end the script, 130 and 143.
work_dir() {
  WORK=$(mktemp -d "$1") || exit 1
  _work_pidvar=${2:-}
  trap end_work EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

end_work() {
  if [ -n "$_work_pidvar" ]; then
    eval "_work_pid=\${$_work_pidvar:-}"
    [ -z "$_work_pid" ] || kill "$_work_pid" 2> /dev/null
  fi
  rm -rf "$WORK"
}
