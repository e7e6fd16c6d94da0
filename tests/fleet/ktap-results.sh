#!/bin/sh
# ktap-results.sh [KTAP-FILE]: the results of splice-selftest --ktap as a
# fleet's test runner takes them, one "NAME RESULT" a line (NAME the case's
# id, k_splice01; RESULT pass, fail or skip; a timeout is a fail), after
# tests/ktap-check.awk has found the KTAP well formed (exit 1 when not).
# Linaro's test-definitions write this as output/result.txt for LAVA.
set -u
here=$(cd "$(dirname "$0")" && pwd)
checked=$(awk -f "$here/../ktap-check.awk" "${1:--}") || exit 1
printf '%s\n' "$checked" | awk '
  /^ktap: / { next }
  {
    kind = $1; path = $NF
    if (kind == "not") kind = "fail"
    else if (kind == "ok") kind = "pass"
    else if (kind == "timeout") kind = "fail"
    sub(/.*\//, "", path)
    print path, kind
  }'
