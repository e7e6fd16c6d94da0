#!/bin/sh
# The mutation runner: how many real kernel bugs the kernel smoke test
# catches.  It builds Debian's linux-source kernel (a small x86-64 guest,
# tests/mutants/config over x86_64_defconfig, with ccache), runs the
# kernel area on it under QEMU (tests/vm.sh, --strict), and stops unless
# that passes; then, one at a time, applies each mutant (a patch here that
# puts back a fixed splice-family bug or makes a plausible regression),
# builds it, runs the kernel area on it, and prints a table: the mutant,
# what it reverts, the case meant to catch it, the cases that failed.
#
#   tests/mutants/run.sh [--version V] [--work DIR] [--bindir DIR]
#                        [--guests N] [--cpus N] [--busybox] [MUTANT...]
#
# --version  the linux-source-V package (default 6.1; 6.12 on trixie)
# --work     where the tree, ccache and the kernels live between runs
#            (default ${TMPDIR:-/tmp}/splice-mutants); the first build
#            takes about 25 min on 2 CPUs, a mutant's about a minute
# --bindir   the built tools and helpers (default ./build)
# --guests   guests run at once (default 2)
# --cpus     each guest's CPUs (default 2: two threads that race, such as
#            k_pipe_cross's, race in the kernel only on two CPUs)
# --busybox  guests of busybox's sh, timeout(1) and other commands, as a
#            kernel tester's (tests/vm.sh --busybox)
# MUTANT     only these (01-dirtypipe or 01 ...)
#
# Opt-in: not part of the harness or CI.  Needs root for apt-get where
# linux-source-V, QEMU, ccache or the build tools are missing.  The
# table goes to stdout and to WORK/table.md; tests/KERNELS.md keeps the
# last one.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
VERSION=6.1
WORK=${TMPDIR:-/tmp}/splice-mutants
BINDIR=$TOP/build
GUESTS=2
CPUS=2
PICK=
BUSYBOX=

die() {
  echo "mutants: $*" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case $1 in
  --version) VERSION=${2:?--version needs a version}; shift 2 ;;
  --work) WORK=${2:?--work needs a directory}; shift 2 ;;
  --bindir) BINDIR=${2:?--bindir needs a directory}; shift 2 ;;
  --guests) GUESTS=${2:?--guests needs a number}; shift 2 ;;
  --cpus) CPUS=${2:?--cpus needs a number}; shift 2 ;;
  --busybox) BUSYBOX=--busybox; shift ;;
  -h|--help) sed -n '2,29s/^# \{0,1\}//p' "$0"; exit 0 ;;
  -*) die "unknown option: $1" ;;
  *) PICK="$PICK $1"; shift ;;
  esac
done
case $GUESTS in '' | *[!0-9]* | 0) die "--guests: not a positive whole number: '$GUESTS'" ;; esac
case $CPUS in '' | *[!0-9]* | 0) die "--cpus: not a positive whole number: '$CPUS'" ;; esac
[ -x "$BINDIR/splice-cat" ] || die "no tools in $BINDIR: build them first (meson setup build && ninja -C build)"

# ---- what it needs ------------------------------------------------------------------------

SOURCE=/usr/src/linux-source-$VERSION.tar.xz
need=
[ -f "$SOURCE" ] || need="$need linux-source-$VERSION"
for tool in ccache:ccache gcc:gcc make:make flex:flex bison:bison bc:bc cpio:cpio \
  qemu-system-x86_64:qemu-system-x86 perl:perl; do
  command -v "${tool%%:*}" > /dev/null || need="$need ${tool#*:}"
done
[ -f /usr/include/libelf.h ] || need="$need libelf-dev"
[ -f /usr/include/openssl/ssl.h ] || need="$need libssl-dev"
if [ -n "$need" ]; then
  [ "$(id -u)" -eq 0 ] || die "missing:$need (apt-get install$need)"
  echo "# installing$need"
  # shellcheck disable=SC2086 # one package a word
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need; } \
    > /dev/null || die "apt-get install$need failed"
fi

mkdir -p "$WORK" || die "cannot make $WORK"
TREE=$WORK/linux-source-$VERSION
export CCACHE_DIR="$WORK/ccache"
if [ ! -f "$TREE/Makefile" ]; then
  echo "# unpacking $SOURCE"
  tar -xJf "$SOURCE" -C "$WORK" || die "cannot unpack $SOURCE"
fi
# A tree a run left patched (interrupted) goes back first.
if [ -f "$WORK/applied" ]; then
  patch -d "$TREE" -p1 -R -s < "$(cat "$WORK/applied")" || die "cannot revert $(cat "$WORK/applied")"
  rm -f "$WORK/applied"
fi
# Configured again when the fragment changed since.
if [ ! -f "$TREE/.config" ] || ! cmp -s "$HERE/config" "$WORK/config.used"; then
  (cd "$TREE" && make -s x86_64_defconfig && scripts/kconfig/merge_config.sh -m -Q .config \
    "$HERE/config" && make -s olddefconfig) > "$WORK/config.log" 2>&1 ||
    die "configuring the kernel failed: $WORK/config.log"
  cp "$HERE/config" "$WORK/config.used"
fi

# build OUT: the tree's bzImage, built, copied to OUT; false on a failed build.
build() {
  _start=$(date +%s)
  if ! (cd "$TREE" && make -j"$(nproc)" CC="ccache gcc" bzImage) > "$WORK/build.log" 2>&1; then
    tail -n 20 "$WORK/build.log" >&2
    return 1
  fi
  cp "$TREE/arch/x86/boot/bzImage" "$1"
  echo "# built ${1##*/} in $(($(date +%s) - _start)) s"
}

# smoke IMAGE LOG: the kernel area, --strict, on IMAGE under QEMU, its TAP in LOG.
smoke() {
  # shellcheck disable=SC2086 # no --busybox is no word
  sh "$TOP/tests/vm.sh" --bindir "$BINDIR" --helpers "$BINDIR/tests" --timeout 900 \
    --cpus "$CPUS" $BUSYBOX "$1" --strict kernel > "$2" 2>&1
}

# failed LOG: the names of the cases LOG's TAP failed, by their numbers in
# the kernel area's plan, "(timed out)" or "(stuck)" after one that was;
# "did not finish" when the plan was not done.
failed() {
  _names=$(sed -n 's/^not ok \([0-9]*\) .*(\(timed out\|stuck\).*/\1 \2/p; t; s/^not ok \([0-9]*\) .*/\1/p' \
    "$1" | while read -r _n _how; do
    awk -v n="$_n" -v how="${_how:+ ($_how)}" '$1 == n { print $4 how }' "$WORK/plan"
  done | tr '\n' ' ')
  grep -q '^[0-9]* passed, [0-9]* failed' "$1" || _names="${_names}(did not finish)"
  echo "${_names% }"
}

sh "$TOP/tests/run.sh" --bindir "$BINDIR" --list kernel > "$WORK/plan" ||
  die "cannot list the kernel area"

# ---- the unmodified kernel ----------------------------------------------------------------

echo "# linux-source-$VERSION in $TREE"
build "$WORK/base.bzImage" || die "the unmodified kernel did not build: $WORK/build.log"
smoke "$WORK/base.bzImage" "$WORK/base.log"
base_failed=$(failed "$WORK/base.log")
if [ -n "$base_failed" ]; then
  echo "# the unmodified kernel fails: $base_failed (its log: $WORK/base.log)" >&2
  exit 1
fi
echo "# the unmodified kernel: $(grep -m 1 '^[0-9]* passed' "$WORK/base.log")"

# ---- the mutants --------------------------------------------------------------------------

mutants=
for patch in "$HERE"/*.patch; do
  name=${patch##*/}
  name=${name%.patch}
  if [ -n "$PICK" ]; then
    _hit=
    for p in $PICK; do
      case $name in "$p" | "$p"-*) _hit=1 ;; esac
    done
    [ -n "$_hit" ] || continue
  fi
  mutants="$mutants $name"
done
[ -n "$mutants" ] || die "no mutant matches:$PICK"

# Built one after the other (the tree is one), run GUESTS at a time.
for name in $mutants; do
  patch=$HERE/$name.patch
  rm -f "$WORK/$name.bzImage" "$WORK/$name.log"
  if ! patch -d "$TREE" -p1 -s --forward < "$patch" > "$WORK/$name.patch.log" 2>&1; then
    echo "does not apply" > "$WORK/$name.log"
    patch -d "$TREE" -p1 -R -s < "$patch" > /dev/null 2>&1
    continue
  fi
  echo "$patch" > "$WORK/applied"
  build "$WORK/$name.bzImage" || echo "does not build" > "$WORK/$name.log"
  patch -d "$TREE" -p1 -R -s < "$patch" || die "cannot revert $patch"
  rm -f "$WORK/applied"
done
running=0
for name in $mutants; do
  [ -f "$WORK/$name.bzImage" ] || continue
  smoke "$WORK/$name.bzImage" "$WORK/$name.log" &
  running=$((running + 1))
  if [ "$running" -ge "$GUESTS" ]; then
    wait
    running=0
  fi
done
wait

# ---- the table ----------------------------------------------------------------------------

caught=0 total=0 as_meant=0
{
  echo "Mutation run of $(date -u '+%Y-%m-%d %H:%M UTC'): linux-source-$VERSION" \
    "($(sed -n 's/^VERSION = //p;s/^PATCHLEVEL = //p;s/^SUBLEVEL = //p' "$TREE/Makefile" |
      tr '\n' '.' | sed 's/\.$//')), the unmodified kernel" \
    "$(grep -m 1 '^[0-9]* passed' "$WORK/base.log"), \`--strict kernel\` in each guest ($CPUS CPUs${BUSYBOX:+, busybox})."
  echo
  echo "| mutant | reverts | meant to be caught by | failed |"
  echo "|---|---|---|---|"
  for name in $mutants; do
    patch=$HERE/$name.patch
    reverts=$(sed -n 's/^Reverts: //p' "$patch" | sed 's/|/\\|/g')
    meant=$(sed -n 's/^Caught by: //p' "$patch")
    total=$((total + 1))
    case $(cat "$WORK/$name.log" 2> /dev/null) in
    "does not apply" | "does not build") got=$(cat "$WORK/$name.log") ;;
    *)
      got=$(failed "$WORK/$name.log")
      if [ -n "$got" ]; then
        caught=$((caught + 1))
        # As meant: the first case the patch names is among those that failed.
        first=${meant%%[ ,]*}
        case " $got " in *" $first "* | *" $first ("*) as_meant=$((as_meant + 1)) ;; esac
      else
        got="survived"
      fi
      ;;
    esac
    echo "| $name | $reverts | $meant | $got |"
  done
  echo
  echo "Caught: $caught of $total, $as_meant by the case written for it."
} > "$WORK/table.md"
cat "$WORK/table.md"
