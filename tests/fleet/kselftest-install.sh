#!/bin/sh
# kselftest-install.sh [--selftest PATH] DIR: adds the splice-tools smoke
# test to DIR, a kselftest install (the kernel's tools/testing/selftests,
# "make install"): the collection splice-tools, its test
# splice-selftest.sh (splice-selftest --ktap --strict kernel, the
# installed one, or PATH), its settings (the timeout), and its line in
# DIR/kselftest-list.txt.  Then, in DIR:
#
#   ./run_kselftest.sh -c splice-tools
#
# The timeout: the kernel area took 117 to 182 s in QEMU TCG guests of
# 2 CPUs (tests/KERNELS.md), 10 to 25 s on hardware; 600 s covers the
# emulated ones with room.
set -u
selftest=splice-selftest
if [ "${1:-}" = --selftest ]; then
  selftest=${2:?--selftest needs a path}
  shift 2
fi
dir=${1:?usage: kselftest-install.sh [--selftest PATH] DIR}
[ -d "$dir" ] || { echo "kselftest-install.sh: $dir: no such directory" >&2; exit 2; }
mkdir -p "$dir/splice-tools" || exit 1
cat > "$dir/splice-tools/splice-selftest.sh" << EOF
#!/bin/sh
# The splice-tools kernel smoke test, in KTAP (one result a case).
exec "$selftest" --ktap --strict kernel
EOF
chmod 755 "$dir/splice-tools/splice-selftest.sh"
echo "timeout=600" > "$dir/splice-tools/settings"
touch "$dir/kselftest-list.txt"
grep -qx 'splice-tools:splice-selftest.sh' "$dir/kselftest-list.txt" ||
  echo 'splice-tools:splice-selftest.sh' >> "$dir/kselftest-list.txt"
