#!/bin/sh
# lava-run.sh [-s true|false] [-a AREAS]: what the LAVA test definition
# (splice-tools.yaml, beside this) runs on the device, from the top of a
# splice-tools checkout: installs the build tools (unless -s true), builds
# and installs splice-tools, runs splice-selftest --ktap --strict AREAS
# (default: kernel), and writes output/ktap.txt and output/result.txt,
# one "NAME RESULT" a line, as Linaro's test-definitions do.
set -u
skip_install=false
areas=kernel
while getopts 's:a:' opt; do
  case $opt in
  s) skip_install=$OPTARG ;;
  a) areas=$OPTARG ;;
  *) echo "usage: lava-run.sh [-s true|false] [-a AREAS]" >&2; exit 2 ;;
  esac
done
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/output
mkdir -p "$out"
if [ "$skip_install" != true ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq meson ninja-build gcc libc6-dev > /dev/null ||
    { echo "lava-run.sh: apt-get install failed" >&2; exit 1; }
fi
cd "$top" || exit 1
{ [ -d build ] || meson setup build > /dev/null; } && ninja -C build > /dev/null &&
  meson install -C build --quiet > /dev/null || { echo "lava-run.sh: build failed" >&2; exit 1; }
# shellcheck disable=SC2086 # one area a word
splice-selftest --ktap --strict $areas > "$out/ktap.txt"
sh "$top/tests/fleet/ktap-results.sh" "$out/ktap.txt" > "$out/result.txt"
