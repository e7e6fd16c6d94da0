#!/bin/sh
# The harness on another kernel: boots KERNEL (an x86-64 bzImage, an arm64
# Image, a ppc64el vmlinux, or a Debian linux-image .deb holding one, from
# which it takes the kernel and the modules the cases use) under QEMU, with an initramfs holding this machine's harness, tools,
# test helpers (in /opt/splice-tools) and the commands they run (with their
# libraries); runs the harness there with the given operands, in a /tmp on
# ext4 where the kernel has a loop device; prints the guest's TAP, then its
# kernel log, and exits with the harness's status.  KVM where it can run
# the kernel, TCG otherwise.  `splice-selftest --kernel KERNEL` runs it.
#
#   tests/vm.sh [--bindir DIR] [--helpers DIR] [--accel kvm|tcg] [--cpus N]
#               [--memory MIB] [--timeout SECS] [--busybox]
#               [--busybox-binary FILE] KERNEL [run.sh option or operand]...
#
# --bindir, --helpers  as tests/run.sh's: the tools and helpers to test
# --accel    kvm or tcg; by default KVM where /dev/kvm can run the kernel
#            (it boots to init), else TCG
# --cpus     the guest's CPUs: by default 2 under KVM, 1 under TCG (each a
#            host thread; two guests at once, as CI runs them, finished
#            sooner with one each)
# --memory   the guest's memory (default 1024 MiB)
# --timeout  give up on a guest still running after SECS (default 1200)
# --busybox  a small system's guest: busybox's sh, timeout(1) and every
#            other command it has (busybox --list); from this machine only
#            what busybox lacks (strace, pv, socat, ...)
# --busybox-binary  the busybox to put in the guest (default: this
#            machine's); a guest of another architecture needs its own
#            (Debian: apt-get download busybox-static:arm64; dpkg-deb -x),
#            the tools and helpers built for it (cross/*.ini), and takes
#            nothing from this machine
# --as NAME  the name its messages give (splice-selftest passes its own)
#
# Exit status: 0 every case passed or was skipped, 1 a case failed or the
# guest did not finish (its console is printed), 2 a usage error or
# nothing to boot with (QEMU, cpio or the image missing).
set -u

TESTS=$(cd "$(dirname "$0")" && pwd)
BINDIR=
HELPERS=
ACCEL=
CPUS=
MEMORY_MIB=1024
TIMEOUT_SECS=1200
PROG=vm.sh
BUSYBOX=

# The modules the guest needs where a kernel builds them as modules: loop,
# for an ext4 /tmp (as this machine's, where a swap file and chattr +i
# work) and copy_file_range02's block device.
MODULES="loop"
# Commands the harness and its cases run, copied where this machine has
# them; a case whose command is missing skips, naming it.
COMMANDS="sh cat chmod cmp cp cut date dd dirname basename du env expr false find getconf
  grep head id kill ln ls mkdir mkfifo mktemp mv nproc od printf readlink realpath rm rmdir
  sed seq sleep sort stat sync tail tee timeout touch tr true truncate uname uniq wc xargs
  yes awk ps setsid unshare mount umount dmesg ip insmod mkfs.ext4 strace pv socat nc
  mbuffer"

usage() {
  echo "usage: $PROG [--bindir DIR] [--helpers DIR] [--accel kvm|tcg] [--cpus N]"
  echo "       [--memory MIB] [--timeout SECS] [--busybox] [--busybox-binary FILE]"
  echo "       KERNEL [run.sh option or operand]..."
  echo "KERNEL: an x86-64 bzImage, an arm64 Image, a ppc64el vmlinux, or a Debian"
  echo "linux-image .deb"
}

die() {
  echo "$PROG: $*" >&2
  exit "${exit_code:-1}"
}

while [ $# -gt 0 ]; do
  case $1 in
  --bindir) BINDIR=${2:?--bindir needs a directory}; shift 2 ;;
  --helpers) HELPERS=${2:?--helpers needs a directory}; shift 2 ;;
  --accel) ACCEL=${2:?--accel needs kvm or tcg}; shift 2 ;;
  --cpus) CPUS=${2:?--cpus needs a number}; shift 2 ;;
  --memory) MEMORY_MIB=${2:?--memory needs MiB}; shift 2 ;;
  --timeout) TIMEOUT_SECS=${2:?--timeout needs seconds}; shift 2 ;;
  --as) PROG=${2:?}; shift 2 ;;
  --busybox) BUSYBOX=1; shift ;;
  --busybox-binary) BUSYBOX=${2:?--busybox-binary needs a file}; shift 2 ;;
  -h|--help) usage; exit 0 ;;
  -*) usage >&2; exit 2 ;;
  *) break ;;
  esac
done
[ $# -gt 0 ] || { usage >&2; exit 2; }
KERNEL=$1
shift
case $ACCEL in ""|kvm|tcg) ;; *) usage >&2; exit 2 ;; esac
case $CPUS$MEMORY_MIB$TIMEOUT_SECS in *[!0-9]*) usage >&2; exit 2 ;; esac

exit_code=2
[ -f "$KERNEL" ] || die "$KERNEL: no such file"
. "$TESTS/lib.sh"
find_tools "$PROG"
KERNEL=$(cd "$(dirname "$KERNEL")" && pwd)/${KERNEL##*/}

qemu_pid=
work_dir "${TMPDIR:-/tmp}/splice-vm.XXXXXX" qemu_pid
ROOT=$WORK/root

# ---- the kernel ---------------------------------------------------------------------

# image_arch FILE: x86_64 for a bzImage ("HdrS" at byte 514, the x86 boot
# protocol's header), aarch64 for an arm64 Image ("ARMd" at byte 56),
# ppc64le for a little-endian ELF of machine 21 (EM_PPC64); else nothing.
image_arch() {
  if [ "$(dd if="$1" bs=1 skip=514 count=4 2> /dev/null)" = HdrS ]; then
    echo x86_64
  elif [ "$(dd if="$1" bs=1 skip=56 count=4 2> /dev/null)" = ARMd ]; then
    echo aarch64
  elif [ "$(dd if="$1" bs=1 skip=1 count=3 2> /dev/null)" = ELF ] &&
    [ "$(od -A n -t u1 -j 5 -N 1 "$1" | tr -d ' ')" = 1 ] &&
    [ "$(od -A n -t u2 -j 18 -N 2 "$1" | tr -d ' ')" = 21 ]; then
    echo ppc64le
  fi
}

MODDIR=
case $KERNEL in
*.deb)
  mkdir "$WORK/deb"
  # Only what the guest needs: the kernel, the module lists, the modules.
  # (Patterns for tar, one word each: no globbing here.)
  set -f
  patterns="./boot/vmlinu[xz]-* */modules/*/modules.*"
  for name in $MODULES; do
    patterns="$patterns */$name.ko*"
  done
  if command -v dpkg-deb > /dev/null; then
    dpkg-deb --fsys-tarfile "$KERNEL" | tar -x -C "$WORK/deb" --wildcards $patterns 2> /dev/null
  else
    (cd "$WORK/deb" && ar x "$KERNEL" && set +f && data=$(echo data.tar.*) && set -f &&
      tar -xf "$data" --wildcards $patterns 2> /dev/null)
  fi
  set +f
  VMLINUZ=$(ls "$WORK"/deb/boot/vmlinu[xz]-* 2> /dev/null | head -n 1)
  [ -n "$VMLINUZ" ] || die "$KERNEL: no boot/vmlinuz-* or vmlinux-* in the package"
  RELEASE=${VMLINUZ##*/vmlinu[xz]-}
  for dir in "$WORK/deb/lib/modules/$RELEASE" "$WORK/deb/usr/lib/modules/$RELEASE"; do
    [ -d "$dir" ] && MODDIR=$dir
  done
  ;;
*)
  VMLINUZ=$KERNEL
  RELEASE=
  ;;
esac
ARCH=$(image_arch "$VMLINUZ")
case $ARCH in
x86_64) QEMU=qemu-system-x86_64 QEMU_PKG=qemu-system-x86 CONSOLE=ttyS0 ;;
aarch64) QEMU=qemu-system-aarch64 QEMU_PKG=qemu-system-arm CONSOLE=ttyAMA0 ;;
ppc64le) QEMU=qemu-system-ppc64 QEMU_PKG=qemu-system-ppc CONSOLE=hvc0 ;;
*) die "$KERNEL: not a bzImage, an arm64 Image or a ppc64el vmlinux (nor a .deb holding one)" ;;
esac
command -v "$QEMU" > /dev/null || die "$QEMU is not installed (Debian: apt-get install $QEMU_PKG)"
# Another architecture's guest: nothing from this machine but busybox's
# binary and the tools built for it.
FOREIGN=
if [ "$ARCH" != "$(uname -m)" ]; then
  FOREIGN=1
  case $BUSYBOX in
  '' | 1) die "a $ARCH guest needs --busybox-binary, a busybox built for $ARCH" ;;
  esac
fi
command -v cpio > /dev/null || die "cpio is not installed (Debian: apt-get install cpio)"
if [ "$BUSYBOX" = 1 ]; then
  BUSYBOX=$(command -v busybox) ||
    die "--busybox: busybox is not installed (Debian: apt-get install busybox-static)"
fi
if [ -n "$BUSYBOX" ]; then
  [ -f "$BUSYBOX" ] || die "$BUSYBOX: no such file"
  BUSYBOX=$(cd "$(dirname "$BUSYBOX")" && pwd)/${BUSYBOX##*/}
  # Its applets, to leave this machine's commands of those names out
  # (another architecture's busybox takes none of them anyway).
  APPLETS=
  [ -n "$FOREIGN" ] || APPLETS=" $("$BUSYBOX" --list | tr '\n' ' ') "
fi
exit_code=1

# ---- the initramfs -----------------------------------------------------------------------

# The same top-level links as here (/bin -> usr/bin on a merged /usr), so
# every path copied below resolves in the guest as it does here; a path
# through such a link is spelt through its target, so none is copied twice.
mkdir -p "$ROOT"
through_links=
for dir in bin sbin lib lib32 lib64; do
  if [ -L "/$dir" ]; then
    target=$(readlink "/$dir")
    case $target in
    /*) ;;
    *)
      mkdir -p "$ROOT/$target"
      through_links="$through_links -e s|^/$dir/|/$target/|"
      ;;
    esac
    ln -s "$target" "$ROOT/$dir"
  fi
done

# program_path NAME: the program NAME in PATH or an sbin, not a builtin.
program_path() {
  _ifs=$IFS
  IFS=:
  for _dir in $PATH:/usr/sbin:/sbin; do
    if [ -n "$_dir" ] && [ -f "$_dir/$1" ] && [ -x "$_dir/$1" ]; then
      IFS=$_ifs
      echo "$_dir/$1"
      return 0
    fi
  done
  IFS=$_ifs
  return 1
}

# The harness, the tools and the helpers go to /opt/splice-tools (a /tmp
# there is another file system); the commands they run, their shared
# libraries and glibc's files module (getpwnam(3) of "nobody") to the same
# paths as here, each copied through links.
GUEST=/opt/splice-tools
mkdir -p "$ROOT$GUEST/bin" "$ROOT$GUEST/helpers" "$ROOT$GUEST/tests"
programs=
for cmd in $COMMANDS; do
  [ -z "$FOREIGN" ] || break
  # With --busybox, busybox's own where it has one.
  case ${BUSYBOX:+$APPLETS} in *" $cmd "*) continue ;; esac
  path=$(program_path "$cmd") && programs="$programs $path"
done
for tool in $TOOLS; do
  cp -L "$BINDIR/$tool" "$ROOT$GUEST/bin/" || die "copying $BINDIR/$tool"
  programs="$programs $BINDIR/$tool"
done
for helper in "$HELPERS"/*; do
  if [ -f "$helper" ] && [ -x "$helper" ]; then
    cp -L "$helper" "$ROOT$GUEST/helpers/" || die "copying $helper"
    programs="$programs $helper"
  fi
done
cp "$TESTS"/*.sh "$ROOT$GUEST/tests/" || die "copying the harness"
# (Another architecture's guest: only the tools, the helpers and busybox.)
nss=
[ -n "$FOREIGN" ] || nss="$(echo /lib/*/libnss_files.so.* /usr/lib/*/libnss_files.so.*)"
# shellcheck disable=SC2086 # one word per program, pattern, file
files=$({
  for file in $programs $nss; do
    case $file in "$BINDIR"/*|"$HELPERS"/*) ;; *) [ -f "$file" ] && echo "$file" ;; esac
  done
  ldd $programs 2> /dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\/.*[^:]$/) print $i }'
} | sed -e 's|^//*|/|' $through_links | sort -u)
# shellcheck disable=SC2086 # one word per file
[ -z "$files" ] || cp -L --parents $files "$ROOT/" || die "copying the guest's programs"
# busybox in /bin, its shell there too; the guest's init links the other
# applets beside what busybox lacks (busybox --install).
if [ -n "$BUSYBOX" ]; then
  mkdir -p "$ROOT/bin/"
  cp "$BUSYBOX" "$ROOT/bin/busybox" || die "copying $BUSYBOX"
  rm -f "$ROOT/bin/sh"
  ln -s busybox "$ROOT/bin/sh"
fi

mkdir -p "$ROOT/etc" "$ROOT/proc" "$ROOT/sys" "$ROOT/dev" "$ROOT/tmp" "$ROOT/root" \
  "$ROOT/modules"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' \
  > "$ROOT/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$ROOT/etc/group"
printf 'passwd: files\ngroup: files\n' > "$ROOT/etc/nsswitch.conf"
# With this machine's cache the loader opens each library where it is,
# instead of trying every directory: a third of each exec under TCG.
[ ! -f /etc/ld.so.cache ] || [ -n "$FOREIGN" ] || cp /etc/ld.so.cache "$ROOT/etc/"

# The modules, each after those it needs (modules.dep, where the package
# has one), where insmod can load them.
if [ -n "$MODDIR" ] && command -v insmod > /dev/null; then
  for name in $MODULES; do
    grep -q -E "(^|/)$name\\.ko" "$MODDIR/modules.builtin" 2> /dev/null && continue
    line=$(grep -E "(^|/)$name\\.ko(\\.[a-z]+)?:" "$MODDIR/modules.dep" 2> /dev/null) ||
      line=$(cd "$MODDIR" && find kernel -name "$name.ko*" | head -n 1):
    [ "$line" != : ] || continue
    deps=
    for dep in ${line#*:}; do deps="$dep $deps"; done
    for module in $deps ${line%%:*}; do
      [ -e "$ROOT/modules/${module##*/}" ] && continue
      cp "$MODDIR/$module" "$ROOT/modules/" || die "copying $module"
      echo "${module##*/}" >> "$ROOT/modules/order"
    done
  done
fi

# The harness's operands, each quoted for the guest's shell.
operands=
for arg do
  operands="$operands '$(printf '%s' "$arg" | sed "s/'/'\\\\''/g")'"
done

cat > "$ROOT/init" << EOF
#!/bin/sh
# The guest's init: mounts, loopback, modules; then the harness; then the
# kernel log; then power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TMPDIR=/tmp
# busybox's applets, where the guest has busybox: links beside what is there.
[ ! -x /bin/busybox ] || /bin/busybox --install -s /bin 2> /dev/null
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2> /dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
ip link set lo up 2> /dev/null
if [ -f /modules/order ]; then
  while read -r module; do insmod "/modules/\$module"; done < /modules/order
fi
# /tmp on ext4 where a loop device can hold it, else on tmpfs.
tmp=tmpfs
if truncate -s 768M /scratch.img 2> /dev/null && mkfs.ext4 -q -F /scratch.img 2> /dev/null &&
  mount -o loop /scratch.img /tmp 2> /dev/null; then
  tmp=ext4
else
  mount -t tmpfs tmpfs /tmp
fi
# Each marker on a line of its own: a kernel message may still be half
# out on the console (the ppc64el guest's hvc0 ends its banner late).
echo
echo "splice-vm: init \$(uname -r), /tmp on \$tmp"
cd /tmp
sh $GUEST/tests/run.sh --bindir $GUEST/bin --helpers $GUEST/helpers --kernel-timeout 60$operands
status=\$?
echo
echo "splice-vm: kernel log"
dmesg
echo
echo "splice-vm: exit \$status"
echo o > /proc/sysrq-trigger
sleep 60
EOF
chmod 755 "$ROOT/init"
(cd "$ROOT" && find . | cpio -o -H newc --quiet > "$WORK/initrd") || die "cpio"

# ---- the guest -------------------------------------------------------------------------------

# boot ACCEL: starts QEMU in the background, its console to $WORK/console;
# timeout(1) ends it at the deadline, and passes on a signal sent to it.
boot() {
  case $1 in
  kvm) cpu=host cpus=${CPUS:-2} ;;
  tcg) cpu=max cpus=${CPUS:-1} ;;
  esac
  # The machine of each architecture: arm64's virt board (its UART is
  # ttyAMA0), POWER9 pseries (its console hvc0); the x86 PC.
  case $ARCH in
  aarch64) set -- "$@" -M virt ;;
  ppc64le) set -- "$@" -M pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken ;;
  esac
  [ "$ARCH" != ppc64le ] || [ "$1" = kvm ] || cpu=power9
  : > "$WORK/console"
  timeout "$TIMEOUT_SECS" "$QEMU" -accel "$@" -cpu "$cpu" -smp "$cpus" -m "$MEMORY_MIB" \
    -nodefaults \
    -display none -monitor none -no-reboot -serial "file:$WORK/console" \
    -kernel "$VMLINUZ" -initrd "$WORK/initrd" \
    -append "console=$CONSOLE panic=-1 quiet loglevel=2 hugepages=2" \
    < /dev/null > "$WORK/qemu.err" 2>&1 &
  qemu_pid=$!
}

# reached_init: waits until the guest's init speaks (true) or QEMU gave up
# on the kernel, stopped or spent 60 s (false).
reached_init() {
  _tries=0
  while [ $_tries -lt 600 ]; do
    grep -q '^splice-vm: init' "$WORK/console" && return 0
    grep -q 'KVM internal error' "$WORK/qemu.err" "$WORK/console" && return 1
    kill -0 "$qemu_pid" 2> /dev/null || return 1
    sleep 0.1
    _tries=$((_tries + 1))
  done
  return 1
}

start=$(date +%s)
accel=$ACCEL
if [ -z "$accel" ]; then
  accel=tcg
  [ -n "$FOREIGN" ] || { [ -r /dev/kvm ] && [ -w /dev/kvm ] && accel=kvm; }
fi
boot "$accel"
if [ "$accel" = kvm ] && [ -z "$ACCEL" ] && ! reached_init; then
  # A KVM that cannot run an ordinary kernel (a PVM host, say) stops it
  # with "KVM internal error"; TCG runs any.
  echo "# $PROG: KVM could not run this kernel ($(grep -m 1 -o 'KVM internal error[^.]*' \
    "$WORK/qemu.err" "$WORK/console" 2> /dev/null | head -n 1 | sed 's/^[^:]*://')); TCG"
  kill "$qemu_pid" 2> /dev/null
  wait "$qemu_pid" 2> /dev/null
  accel=tcg
  boot tcg
fi

# The TAP as it comes; the kernel log as "# " lines after it.
tail -n +1 -f --pid="$qemu_pid" "$WORK/console" | tr -d '\r' | awk '
  /^splice-vm: init / { tap = 1; next }
  /^splice-vm: kernel log$/ { tap = 0; klog = 1; print "# the guest kernel log:"; fflush(); next }
  /^splice-vm: exit / { klog = 0; next }
  tap && $0 != "" { print; fflush() }
  klog { print "#   " $0; fflush() }'
wait "$qemu_pid" 2> /dev/null
qemu_pid=
secs=$(( $(date +%s) - start ))

tr -d '\r' < "$WORK/console" > "$WORK/console.txt"
status=$(sed -n 's/^splice-vm: exit \([0-9][0-9]*\)$/\1/p' "$WORK/console.txt")
guest=$(sed -n 's/^splice-vm: init //p' "$WORK/console.txt")
if [ -z "$status" ]; then
  echo "# the guest's console:"
  sed 's/^/#   /' "$WORK/console.txt" | tail -n 60
  sed 's/^/#   qemu: /' "$WORK/qemu.err"
  if [ "$secs" -ge "$TIMEOUT_SECS" ]; then
    echo "$PROG: the guest did not finish in $TIMEOUT_SECS s" >&2
  else
    echo "$PROG: the guest stopped before the harness finished" >&2
  fi
  exit 1
fi
summary=$(sed -n '/^splice-vm: init/,/^splice-vm: kernel log$/p' "$WORK/console.txt" |
  grep -E '^(# )?[0-9]+ passed, [0-9]+ failed' | tail -n 1)
echo "# $PROG: Linux $guest; QEMU, $accel, $cpus CPU(s)${BUSYBOX:+, busybox}, $secs s"
echo "${summary:-no summary from the harness}"
[ "$status" -eq 0 ] && [ -n "$summary" ]
