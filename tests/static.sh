#!/bin/sh
# Static analysis of the sources: cppcheck and clang-tidy (bugprone-*,
# cert-*, see .clang-tidy) report nothing; a warning that cannot be fixed
# is silenced where it is, with the reason.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

SRC=$(cd "$TESTS/.." && pwd)

tcase t_cppcheck "cppcheck: no warning, style or portability finding"
t_cppcheck() {
  need_source lib
  need cppcheck
  # variableScope: locals are declared at the top of a block, as style(9) asks.
  (cd "$SRC" && cppcheck --enable=warning,style,performance,portability --std=c11 \
    -D_GNU_SOURCE -D__linux__ --quiet --inline-suppr --error-exitcode=1 \
    --suppress=variableScope \
    ./*.c bench/*.c lib/*.c tests/*.c tests/probe/*.c fuzz/*.c) > out 2>&1 || { cat out >&2; fail "cppcheck"; }
}

tcase t_clang_tidy "clang-tidy bugprone-* and cert-*: no warning"
t_clang_tidy() {
  need_source lib
  need clang-tidy
  for f in "$SRC"/*.c "$SRC"/bench/*.c "$SRC"/lib/*.c; do
    clang-tidy --quiet "$f" -- -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
      -DSPLICE_TOOLS_VERSION='"0"' -I"$SRC" >> out 2>&1 || fail "clang-tidy $f"
  done
  if grep -E 'warning:|error:' out >&2; then
    fail "clang-tidy findings"
  fi
}

tcase t_columns "no line of C passes 100 columns (.editorconfig, tabs of 8)"
t_columns() {
  need_source lib
  (cd "$SRC" && find . \( -name 'build*' -o -name '.*' ! -name . \) -prune -o \
    \( -name '*.c' -o -name '*.h' \) -print) | sort > files
  while read -r f; do
    expand "$SRC/$f" | awk -v f="${f#./}" 'length > 100 { print f ":" NR ": " length " columns" }'
  done < files > long
  if [ -s long ]; then
    cat long >&2
    fail "$(wc -l < long) lines over 100 columns"
  fi
}

run_area "$@"
