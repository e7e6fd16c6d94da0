#!/bin/sh
# The fuzz corpora (fuzz/corpus/TARGET/) replayed through ordinary builds of
# the fuzz targets: every input once found interesting, or once a crash,
# stays a regression test.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

CORPUS=$TESTS/../fuzz/corpus

# replay TARGET: runs every input of fuzz/corpus/TARGET through the replayer.
replay() {
  need_source fuzz/corpus
  bin=$BINDIR/fuzz/fuzz-$1-replay
  [ -x "$bin" ] || skip "fuzz replayer $1 not built in $BINDIR/fuzz"
  ls "$CORPUS/$1"/* > /dev/null 2>&1 || fail "no corpus in fuzz/corpus/$1"
  # exit() is a longjmp that skips the tool's cleanup: no leak checking here.
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$bin" "$CORPUS/$1"/* > /dev/null 2> err || { tail -n 20 err >&2; fail "replay of $1"; }
}

tcase --source fuzz/corpus t_size "size parser: the fuzz corpus parses or fails cleanly, and reads back"
t_size() {
  replay size
}

tcase --source fuzz/corpus t_tool_options "every tool's option parsing: the fuzz corpus exits 0, 1 or 2, no crash"
t_tool_options() {
  for tool in $TOOLS; do
    # splice-bench forks workers, so it has no fuzz target (fuzz/meson.build).
    [ "$tool" != splice-bench ] || continue
    replay "$tool"
  done
}

run_area "$@"
