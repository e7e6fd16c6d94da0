# shellcheck shell=sh
# Sourced by every area script.  An area script defines its cases as shell
# functions, names each with `tcase FUNCTION "what it checks"`, and ends with
# `run_area "$@"`.  tests/run.sh runs `sh AREA.sh list` to learn the cases and
# `sh AREA.sh run FUNCTION` in a fresh temp dir to run one: exit 0 passes,
# 77 skips (the last "SKIP: reason" line says why), anything else fails.

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

# mentions FILE TEXT: the message in FILE says TEXT.
mentions() {
  grep -q -- "$2" "$1" || { cat "$1" >&2; fail "message does not mention '$2'"; }
}

# random_file NAME BYTES
random_file() {
  head -c "$2" /dev/urandom > "$1"
  [ "$(wc -c < "$1")" -eq "$2" ] || fail "could not make $1"
}

# run_status FILE CMD...: runs CMD (stdout kept), stores its status in FILE.
run_status() {
  _f=$1
  shift
  set +e
  "$@"
  echo $? > "$_f"
  set -e
}

# strace with LeakSanitizer off (it cannot run under ptrace) for sanitized builds.
strace_run() {
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace "$@"
}
