# shellcheck shell=sh
# Sourced by every area script.  An area script defines its cases as shell
# functions, names each with `tcase FUNCTION "what it checks"`, and ends with
# `run_area "$@"`.  tests/run.sh runs `sh AREA.sh list` to learn the cases and
# `sh AREA.sh run FUNCTION` in a fresh temp dir to run one: exit 0 passes,
# 77 skips (the last "SKIP: reason" line says why), anything else fails.

# Every tool of the suite.  tests/run.sh refuses to run unless BINDIR has
# each; it and bench/run.sh read this list from here.
# shellcheck disable=SC2034 # read by the scripts that source this file
TOOLS="splice-cat splice-tee vmsplice vmsplice-touser splice-fromnet splice-tonet splice-buffer splice-bench"

CASES=
tcase() {
  CASES="$CASES
$1 $2"
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

# status EXPECTED ACTUAL WHAT
status() {
  [ "$2" -eq "$1" ] || fail "$3: exit status $2, expected $1"
}

# counted FILE BYTES WHAT: FILE holds the count BYTES (vmsplice-touser -c,
# wc -c).  An empty or garbled FILE (the step that wrote it failed) fails the
# case with WHAT, never with a shell error from the comparison.
counted() {
  _count=$(cat "$1" 2> /dev/null) || _count=
  case $_count in
  '' | *[!0-9]*) fail "$3: no byte count (${_count:-empty})" ;;
  esac
  [ "$_count" -eq "$2" ] || fail "$3: $_count bytes, expected $2"
}

# mentions FILE TEXT: the message in FILE says TEXT.
mentions() {
  grep -q -- "$2" "$1" || { cat "$1" >&2; fail "message does not mention '$2'"; }
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
state_of() {
  sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1
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
  _threads=$(sed -n 's/^Threads:[^0-9]*//p' "/proc/$1/status" 2> /dev/null)
  [ "${_threads:-0}" -ge 2 ]
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

# listen_port ERR PID: the port N of splice-fromnet's "listening on ADDR port
# N" line in the file ERR, waiting for it while PID runs, at most 10 s.
listen_port() {
  _i=0
  while ! grep -q '^splice-fromnet: listening on .* port [0-9][0-9]*$' "$1" 2> /dev/null; do
    if [ ! -d "/proc/$2" ] || [ $_i -ge 100 ]; then
      cat "$1" >&2 2> /dev/null || :
      fail "no 'listening on' line from splice-fromnet"
    fi
    sleep 0.1
    _i=$((_i + 1))
  done
  sed -n 's/^splice-fromnet: listening on .* port \([0-9][0-9]*\)$/\1/p' "$1" | head -n 1
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
  timeout 10 env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace "$@"
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
  _faults=
  while :; do
    case $1 in *:*) ;; *) break ;; esac
    _sys=${1%%:*}
    _err=${1#*:}
    _when=
    case $_err in *:*) _when=:when=${_err#*:} ;; esac
    case $_err in
    retval=*) _faults="$_faults -e inject=$_sys:${_err%%:*}$_when" ;;
    *) _faults="$_faults -e inject=$_sys:error=${_err%%:*}$_when" ;;
    esac
    shift
  done
  # LeakSanitizer cannot run under ptrace: off, for sanitized builds.
  # shellcheck disable=SC2086 # one word per option
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -o "$_log" $_trace $_faults "$@"
}
