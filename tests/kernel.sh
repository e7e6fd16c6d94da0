#!/bin/sh
# The kernel smoke test.  Every assertion of the Linux Test Project's tests
# of the system calls the tools take (splice01-09, tee01-02, vmsplice01-04,
# fcntl30/35/37, pipe2_04, pipe12, pipe15, sendfile02-09,
# copy_file_range01-03, and dirtypipe, CVE-2022-0847) is checked by a case
# named after the LTP test it mirrors; then what kselftests (mm/cow.c,
# splice/), xfstests (generic/434, 564, 591), liburing (test/splice.c) and the CVE
# record (CVE-2020-29374, CVE-2008-0009/0010/0600) check of the family, and
# pipes spliced into themselves or each other; then, one case each, the kernel
# behaviours the tools rely on that LTP does not test, failing where the
# tools would lose data and saying what this kernel does where either
# answer is legal.  The tools exercise what they can reach;
# tests/splice-probe (one scenario per run, printing "ok N" or the errno's
# name) makes the other calls.  What an older kernel lacks is skipped, with
# the version it needs.
#
# Where the kernel log is readable, a case fails when the kernel logged a
# WARNING, BUG, Oops or splice complaint while it ran (the log is read by
# record number, before and after).  Run it with
# `tests/run.sh --strict kernel`; tests/vm.sh runs it on another kernel.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

# probe SCENARIO [ARG]...: runs splice-probe; a setup failure fails the case.
# Often inside $(...): the skip for a missing helper goes to stderr, which
# the harness reads the reason from, rather than into the captured answer.
probe() {
  [ -x "${HELPERS:-}/splice-probe" ] ||
    { echo "SKIP: test helper splice-probe not built in ${HELPERS:-}" >&2; exit 77; }
  "$HELPERS/splice-probe" "$@" || fail "splice-probe $*: could not set the scenario up (exit $?)"
}

# expect ANSWER SCENARIO [ARG]...: the kernel's answer must be ANSWER.
expect() {
  _want=$1
  shift
  _got=$(probe "$@")
  [ "$_got" = "$_want" ] || fail "splice-probe $*: the kernel said '$_got', expected '$_want'"
}

# kernel_at_least MAJOR MINOR
kernel_at_least() {
  _rel=$(uname -r)
  _maj=${_rel%%.*}
  _min=${_rel#*.}
  _min=${_min%%[!0-9]*}
  [ "$_maj" -gt "$1" ] || { [ "$_maj" -eq "$1" ] && [ "$_min" -ge "$2" ]; }
}

# page_bytes: the page size, from the probe (busybox has no getconf).
page_bytes() {
  probe page-size
}

# True when this shell runs with CAP_SYS_RESOURCE in its effective set.
have_cap_sys_resource() {
  _eff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
  [ -n "$_eff" ] && [ $(( (0x$_eff >> 24) & 1 )) -eq 1 ]
}

need_root() {
  [ "$(id -u)" -eq 0 ] || skip "needs root: $1"
}

# ---- the kernel log ---------------------------------------------------------------

# What a kernel problem looks like in its log (problems, below): a WARN(), a
# BUG(), an oops, a sanitizer's report, a refcount or list corruption, and
# what liburing's runner and syzkaller also take for a failure (a hung task,
# an RCU stall, lockdep's reports, a fault the kernel could not handle); at
# warning level or worse, anything that names splice.
# The demonstration case's marker: a case ignores the markers of other runs.
DEMO_MARKER='kernel log check demonstration'

# log_position: the number of the kernel log's newest record; nothing where
# the log cannot be read.
log_position() {
  [ -x "${HELPERS:-}/splice-probe" ] || return 0
  _pos=$("$HELPERS/splice-probe" kmsg-last 2> /dev/null) || return 0
  case $_pos in "seq "*) echo "${_pos#seq }" ;; esac
}

# problems < RECORDS: of the records (kmsg-since's "LEVEL TEXT" lines),
# those that show a kernel problem; a note when some were lost (the log
# wrapped).  The shell alone reads them: under an emulated CPU
# (tests/vm.sh) a process more for every case is felt.
problems() {
  while IFS= read -r _record; do
    _level=${_record%% *}
    _text=${_record#* }
    case $_record in
    "- "*) echo "NOTE: kernel log: ${_record#- } while the case ran"; continue ;;
    *"$DEMO_MARKER"*) case $_record in *", ${KLOG_TOKEN:-}") ;; *) continue ;; esac ;;
    esac
    case $_text in
    *WARNING:* | *BUG:* | *"BUG "* | *Oops* | *"general protection fault"* | *"Kernel panic"* | \
      *"cut here"* | *"Call Trace"* | *UBSAN:* | *KASAN:* | *KFENCE:* | *refcount_t:* | \
      *"list_add corruption"* | *"list_del corruption"* | *"kernel BUG"* | \
      *"blocked for more than"* | *"self-detected stall"* | *"detected stalls on CPUs"* | \
      *"possible circular locking dependency"* | *"possible recursive locking detected"* | \
      *"suspicious RCU usage"* | *"Unable to handle kernel"* | *"invalid opcode:"* | \
      *"divide error:"* | *"Internal error"* | *"PANIC: double fault"*)
      echo "kernel: $_text" ;;
    *[Ss][Pp][Ll][Ii][Cc][Ee]*) case $_level in [0-4]) echo "kernel: $_text" ;; esac ;;
    esac
  done
}

# run_checked CASE: runs CASE, as run_area would; where the kernel log is
# readable, a problem the kernel logged meanwhile fails it.
run_checked() {
  _before=$(log_position)
  (set -e; "$1")
  _status=$?
  [ -n "$_before" ] || exit "$_status"
  "$HELPERS/splice-probe" kmsg-since "$_before" | problems > .kernel-log
  _found=
  while IFS= read -r _line; do
    case $_line in
    "NOTE: "*) echo "$_line" ;;
    *) echo "$_line" >&2; _found=1 ;;
    esac
  done < .kernel-log
  [ -z "$_found" ] || fail "the kernel logged a problem while $1 ran"
  exit "$_status"
}

tcase k_kernel_log "kernel log: readable by record number, so a WARNING fails the case it came in"
k_kernel_log() {
  got=$(probe kmsg-last)
  case $got in
  "seq "*) ;;
  *) skip "the kernel log cannot be read here ($got): no case is checked for kernel WARNINGs" ;;
  esac
  [ -w /dev/kmsg ] || return 0
  # A line logged now must be found after the position read before it.
  line="splice-selftest: the kernel log is read from record ${got#seq } on, run $$"
  printf '<6>%s\n' "$line" > /dev/kmsg
  probe kmsg-since "${got#seq }" > after
  grep -qx "6 $line" after || { cat after >&2; fail "a line just logged is not after ${got#seq }"; }
}

# Not a case: what the demonstration runs, as a case, through run_checked:
# a WARNING at info level, and a splice complaint at warning level.
log_marker() {
  printf '<6>WARNING: %s, %s\n' "$DEMO_MARKER" "$KLOG_TOKEN" > /dev/kmsg
  printf '<4>%s: a splice complaint, %s\n' "$DEMO_MARKER" "$KLOG_TOKEN" > /dev/kmsg
  echo "$DEMO_PROBLEMS" | while IFS= read -r _p; do
    printf '<6>%s: %s, %s\n' "$_p" "$DEMO_MARKER" "$KLOG_TOKEN" > /dev/kmsg
  done
}
# What else the demonstration logs, at info level: a line of each kind that
# liburing's runner and syzkaller take for a kernel failure.
DEMO_PROBLEMS='INFO: task probe:1 blocked for more than 120 seconds.
rcu: INFO: rcu_preempt self-detected stall on CPU
rcu: INFO: rcu_preempt detected stalls on CPUs/tasks
WARNING: possible circular locking dependency detected
WARNING: possible recursive locking detected
WARNING: suspicious RCU usage
Unable to handle kernel paging request at virtual address 0
invalid opcode: 0000 [#1] SMP
divide error: 0000 [#1] SMP
Internal error: Oops: 96000004 [#1] SMP
PANIC: double fault, error_code: 0x0'

tcase k_kernel_log_demo "kernel log: a WARNING, a hung task, a stall, lockdep, an oops logged while a case runs fail it (markers)"
k_kernel_log_demo() {
  [ -n "$(log_position)" ] || skip "the kernel log cannot be read here"
  [ -w /dev/kmsg ] || skip "/dev/kmsg is not writable here"
  token="run $$ at $(date +%s)"
  run_status st env KLOG_TOKEN="$token" sh "$TESTS/kernel.sh" run log_marker > out 2>&1
  status_in 1 st "a case that logs a WARNING"
  mentions out "FAIL: the kernel logged a problem while log_marker ran"
  mentions out "^kernel: WARNING: $DEMO_MARKER, $token\$"
  mentions out "^kernel: $DEMO_MARKER: a splice complaint, $token\$"
  # One grep for them all: under an emulated CPU each process is felt.
  echo "$DEMO_PROBLEMS" | sed "s/^/kernel: /; s/\$/: $DEMO_MARKER, $token/" > want
  missing=$(grep -vxF -f out want || :)
  [ -z "$missing" ] || { cat out >&2; fail "not taken for a problem: $missing"; }
}

# ---- splice(2) -----------------------------------------------------------------------

tcase k_splice01 "splice01: file -> pipe -> file, 1 KiB, byte-exact (probe, splice-cat)"
k_splice01() {
  probe ramp 1024 > in
  expect "ok 1024" file-pipe-file in out
  same in out
  # The same path through the tools: file -> stdout pipe, stdin pipe -> file.
  run_status st splice-cat --verbose in 2> err1 | splice-cat --verbose > out2 2> err2
  status_in 0 st "splice-cat in | splice-cat > out2"
  same in out2
  mentions err1 "splice-cat: 1024 bytes by splice(2)"
  mentions err2 "splice-cat: 1024 bytes by splice(2)"
}

tcase k_splice02 "splice02: 512-byte writes spliced on 1024 bytes a call into a file, byte-exact"
k_splice02() {
  got=$(probe splice02 out)
  n=${got##* of }
  [ "$got" = "ok $n of $n" ] || fail "a writer's bytes spliced into a file: the kernel said '$got'"
  probe letters "$n" > ref
  same ref out
  # A pipe's writer and splice-cat's splice into a file, concurrently.
  random_file in 200000
  cat in | splice-cat --verbose > out2 2> err || { cat err >&2; fail "cat in | splice-cat > out2"; }
  same in out2
  mentions err "splice-cat: 200000 bytes by splice(2)"
}

tcase k_splice03_ebadf "splice03: EBADF for a bad fd in or out, write-only input, read-only output"
k_splice03_ebadf() {
  expect "EBADF EBADF EBADF EBADF" splice-error bad-fd-in bad-fd-out write-only-in read-only-out
}

tcase k_splice03_append "splice03: EINVAL for an O_APPEND target; splice-cat --strict >> says so"
k_splice03_append() {
  expect EINVAL splice-error append-out
  random_file in 5000
  echo prefix > out
  cp out ref
  run_status st sh -c 'cat in | splice-cat --strict >> out' 2> err
  status_in 1 st "cat in | splice-cat --strict >> out"
  mentions err "splice: Invalid argument"
  same ref out
}

tcase k_splice03_nopipe "splice03: EINVAL when neither side is a pipe"
k_splice03_nopipe() {
  expect EINVAL splice-error no-pipe
}

tcase k_splice03_espipe "splice03: ESPIPE for an offset on a pipe, input or output side"
k_splice03_espipe() {
  expect "ESPIPE ESPIPE" splice-error offset-in-pipe offset-out-pipe
}

# pipe_ramp: "in" a ramp of n bytes, n = 64 KiB or pipe-max-size if smaller.
pipe_ramp() {
  max=$(cat /proc/sys/fs/pipe-max-size)
  n=65536
  [ "$max" -ge "$n" ] || n=$max
  probe ramp "$n" > in
}

tcase k_splice04 "splice04: pipe -> pipe up to the pipe size, byte-exact (probe, splice-cat)"
k_splice04() {
  pipe_ramp
  expect "ok $n" pipe-pipe in out
  same in out
  { cat in | run_status st splice-cat --verbose 2> err; } | cat > out2
  status_in 0 st "cat | splice-cat | cat"
  same in out2
  mentions err "splice-cat: $n bytes by splice(2)"
}

tcase k_splice05 "splice05: pipe -> AF_UNIX stream socket -> pipe, byte-exact"
k_splice05() {
  pipe_ramp
  expect "ok $n" pipe-unix-pipe in out
  same in out
}

tcase k_splice06_read "splice06: splice from /proc/sys files, same bytes as read(2) (>= 5.11)"
k_splice06_read() {
  kernel_at_least 5 11 || skip "splice from /proc/sys needs Linux 5.11"
  for f in /proc/sys/fs/pipe-max-size /proc/sys/kernel/domainname /proc/sys/kernel/ostype; do
    cat "$f" > ref
    run_status st splice-cat --verbose "$f" 2> err | cat > out
    status_in 0 st "splice-cat $f | cat"
    same ref out
    mentions err "splice-cat: $(wc -c < ref) bytes by splice(2)"
  done
}

tcase --alone k_splice06_write "splice06: splice new values into /proc/sys files, read them back (>= 5.11)"
k_splice06_write() {
  kernel_at_least 5 11 || skip "splice to /proc/sys needs Linux 5.11"
  [ -w /proc/sys/fs/pipe-max-size ] || skip "/proc/sys/fs/pipe-max-size is not writable here"
  # Twice the limit, then back: a higher limit never stops another process
  # (a lower one would, for as long as it lasted).
  max=$(cat /proc/sys/fs/pipe-max-size)
  [ "$max" -le 536870912 ] || skip "pipe-max-size is $max: no room to double it"
  printf '%s\n' $((2 * max)) |
    run_status st splice-cat --verbose > /proc/sys/fs/pipe-max-size 2> err
  got=$(cat /proc/sys/fs/pipe-max-size)
  printf '%s\n' "$max" > /proc/sys/fs/pipe-max-size
  [ "$(cat /proc/sys/fs/pipe-max-size)" = "$max" ] || fail "pipe-max-size not restored to $max"
  status_in 0 st "splice-cat > /proc/sys/fs/pipe-max-size"
  mentions err "splice-cat: $(printf '%s\n' $((2 * max)) | wc -c) bytes by splice(2)"
  [ "$got" = $((2 * max)) ] || fail "spliced $((2 * max)) into pipe-max-size, read back $got"
  # A string, in a UTS namespace of its own so the machine's name stays.
  need unshare
  unshare -u sh -c : 2> /dev/null || skip "no new UTS namespace here (unshare -u refused)"
  unshare -u sh -c 'printf splice-probe-domain | splice-cat --verbose > /proc/sys/kernel/domainname &&
    cat /proc/sys/kernel/domainname' > out 2> err2 ||
    { cat err2 >&2; fail "splice into domainname"; }
  echo splice-probe-domain > ref
  same ref out
  mentions err2 "splice-cat: 19 bytes by splice(2)"
}

tcase k_splice07 "splice07: every pair of 25 fd kinds where a side cannot splice: EBADF or EINVAL"
k_splice07() {
  probe fd-pairs > answers
  wrong=$(grep -v -e ': EBADF$' -e ': EINVAL$' -e ': not available here (E[A-Z0-9]*)$' \
    -e '^[0-9]* pairs$' answers || true)
  [ -z "$wrong" ] || { echo "$wrong" >&2; fail "splice accepted or misreported these pairs"; }
  sed -n 's/^\(.*\): not available here \((.*)\)$/NOTE: no \1 here \2/p' answers
  n=$(sed -n 's/^\([0-9]*\) pairs$/\1/p' answers)
  [ "${n:-0}" -ge 150 ] || { cat answers >&2; fail "only ${n:-0} pairs could be tried"; }
}

tcase k_splice08 "splice08: /dev/zero, /dev/full as source, 0 to 8 x 1009 bytes, all zero (>= 6.7)"
k_splice08() {
  for dev in /dev/zero /dev/full; do
    got=$(probe dev-source "$dev")
    if [ "$got" = "ok 0 EINVAL EINVAL EINVAL EINVAL EINVAL EINVAL EINVAL EINVAL" ] &&
      ! kernel_at_least 6 7; then
      skip "splice from $dev needs Linux 6.7"
    fi
    want="ok 0"
    for i in 1 2 3 4 5 6 7 8; do
      want="$want ok $((i * 1009)) zeros"
    done
    [ "$got" = "$want" ] || fail "splices of 0 to 8 x 1009 bytes from $dev: '$got'"
  done
  # splice-cat takes the same path; --strict makes a refusal an error.
  splice-cat --strict /dev/zero 2> err | head -c 3000000 > out
  [ ! -s err ] || { cat err >&2; fail "splice-cat --strict /dev/zero complained"; }
  head -c 3000000 /dev/zero > ref
  same ref out
}

tcase k_splice09 "splice09: /dev/null and /dev/zero as sink, 1 KiB (/dev/zero >= 6.7)"
k_splice09() {
  probe ramp 1024 > in
  expect "ok 1024" dev-sink /dev/null in
  got=$(probe dev-sink /dev/zero in)
  if [ "$got" = EINVAL ] && ! kernel_at_least 6 7; then
    skip "splice to /dev/zero needs Linux 6.7"
  fi
  [ "$got" = "ok 1024" ] || fail "splice to /dev/zero: the kernel said '$got'"
  for dev in /dev/null /dev/zero; do
    cat in | splice-cat --verbose > "$dev" 2> err || { cat err >&2; fail "cat | splice-cat > $dev"; }
    mentions err "splice-cat: 1024 bytes by splice(2)"
  done
}

tcase k_dirtypipe "dirtypipe (CVE-2022-0847): a write after a spliced page never reaches the file"
k_dirtypipe() {
  # Never skipped: every kernel with splice(2) must pass it.
  got=$(probe dirtypipe file)
  [ "$got" = "ok 1 ok 16 intact" ] ||
    fail "one byte of a read-only file spliced into a used pipe, then a write: '$got'"
  head -c 4096 /dev/zero | tr '\0' '\377' > ref
  same ref file
}

tcase k_linked_writes "after tee(2), a partial pipe-to-pipe splice or a vmsplice, a write into each pipe stays in it (no merging into a shared page)"
k_linked_writes() {
  expect "abcXYZ abc123" linked-writes tee
  expect "defXYZ abc123" linked-writes partial
  expect "abcXYZ ..." linked-writes vmsplice
}

# ---- tee(2) ------------------------------------------------------------------------------

tcase k_tee01 "tee01: file -> pipe -> tee -> pipe -> file, the first pipe keeps its bytes"
k_tee01() {
  probe ramp 1024 > in
  expect "ok 1024" tee-file in out copy
  same in out
  same in copy
  random_file big 3000000
  { splice-cat big | run_status st splice-tee -v t1 2> err; } | splice-cat > t2
  status_in 0 st "splice-cat | splice-tee t1 | splice-cat"
  same big t1
  same big t2
  mentions err "splice-tee: 3000000 bytes written by tee(2)"
}

tcase k_tee02 "tee02: EINVAL for a non-pipe input, a non-pipe output, and the same pipe"
k_tee02() {
  expect "EINVAL EINVAL EINVAL" tee-error file-in file-out same-pipe
}

# ---- vmsplice(2) -----------------------------------------------------------------------

tcase k_vmsplice01 "vmsplice01: 128 KiB vmspliced with poll, spliced into a file, byte-exact"
k_vmsplice01() {
  probe ramp 131072 > ref
  expect "ok 131072" vmsplice-file out 131072
  same ref out
  run_status st vmsplice -v -s 128K -p ramp 2> err | splice-cat > out2
  status_in 0 st "vmsplice -s 128K -p ramp | splice-cat"
  same ref out2
  mentions err "vmsplice: 131072 bytes by vmsplice(2)"
}

tcase k_vmsplice02 "vmsplice02: EBADF for a bad fd and for a file, written or read, EINVAL past IOV_MAX iovecs"
k_vmsplice02() {
  expect "EBADF EBADF EBADF EINVAL" vmsplice-error bad-fd file file-read too-many-iovecs
}

tcase k_vmsplice03 "vmsplice03: pipe -> user memory ending at a guard page, 64 KiB, byte-exact"
k_vmsplice03() {
  probe ramp 65536 > in
  expect "ok 65536" vmsplice-touser in out
  same in out
  probe ramp 65536 | vmsplice-touser -v --verify ramp 2> err ||
    { cat err >&2; fail "vmsplice-touser --verify ramp"; }
  mentions err "vmsplice-touser: 65536 bytes by vmsplice(2)"
}

tcase k_vmsplice04 "vmsplice04: a full pipe: EAGAIN with SPLICE_F_NONBLOCK, else vmsplice waits"
k_vmsplice04() {
  expect "EAGAIN blocked" vmsplice-full
}

# ---- pipe capacity --------------------------------------------------------------------------

tcase k_fcntl30 "fcntl30: F_GETPIPE_SZ, F_SETPIPE_SZ to pipe-max-size, F_GETPIPE_SZ at least that"
k_fcntl30() {
  max=$(cat /proc/sys/fs/pipe-max-size)
  got=$(probe fcntl30)
  set -- $got
  [ $# -eq 6 ] && [ "$1" = ok ] && [ "$3" = ok ] && [ "$5" = ok ] ||
    fail "get, set to $max, get: the kernel said '$got'"
  [ "$2" -gt 0 ] && [ "$4" -gt 0 ] && [ "$6" -ge "$max" ] ||
    fail "get, set to $max, get: '$got'; the pipe holds less than pipe-max-size"
}

tcase --alone k_fcntl35 "fcntl35: pipe-max-size caps a new pipe without CAP_SYS_RESOURCE, not with it"
k_fcntl35() {
  need_root "lowers pipe-max-size for a moment"
  [ -w /proc/sys/fs/pipe-max-size ] || skip "/proc/sys/fs/pipe-max-size is not writable here"
  id nobody > /dev/null 2>&1 || skip "no user 'nobody' to become"
  page=$(page_bytes)
  max=$(cat /proc/sys/fs/pipe-max-size)
  got=$(probe fcntl35 nobody)
  [ "$(cat /proc/sys/fs/pipe-max-size)" = "$max" ] || fail "pipe-max-size not restored to $max"
  case $got in
  "unprivileged ok $page privileged ok $((16 * page)) cap_sys_resource yes") ;;
  "unprivileged ok $page privileged ok $page cap_sys_resource no")
    echo "NOTE: root here lacks CAP_SYS_RESOURCE: its pipes were capped too, as they must be" ;;
  *) fail "new pipes under a one-page pipe-max-size: '$got'" ;;
  esac
}

tcase k_fcntl37 "fcntl37: F_SETPIPE_SZ: EINVAL past 2^31, EBUSY below the queue, EPERM past the max"
k_fcntl37() {
  max=$(cat /proc/sys/fs/pipe-max-size)
  [ "$max" -lt 2147483648 ] || skip "pipe-max-size is $max: nothing above it to ask for"
  expect "EINVAL EBUSY EPERM" fcntl37
}

tcase k_pipe2_04 "pipe2_04: F_SETPIPE_SZ 0: a page; full O_NONBLOCK pipe: EAGAIN; a writer waits"
k_pipe2_04() {
  page=$(page_bytes)
  expect "ok $page ok $page EAGAIN blocked" pipe2_04
}

tcase k_pipe12 "pipe12: O_NONBLOCK writes: EAGAIN into a full pipe, part into a non-empty one"
k_pipe12() {
  got=$(probe pipe12)
  set -- $got
  # full EAGAIN Q non-empty ok W Q empty ok W Q capacity N
  [ $# -eq 13 ] || fail "writes into full, non-empty, empty pipes: '$got'"
  cap=${13}
  [ "$2" = EAGAIN ] && [ "$3" -eq "$cap" ] || fail "into a full pipe: '$got'"
  [ "$5" = ok ] && [ "$6" -gt 0 ] && [ "$7" -eq $(($6 + 1)) ] ||
    fail "into a non-empty pipe: '$got'"
  [ "$9" = ok ] && [ "${10}" -eq "$cap" ] && [ "${11}" -eq "$cap" ] ||
    fail "into an empty pipe: '$got'"
  echo "NOTE: $((cap + 4096)) bytes into a pipe holding one byte: $6 written"
}

tcase --alone k_pipe15 "pipe15: past pipe-user-pages-soft, a small new pipe; a write into it never hangs"
k_pipe15() {
  soft=$(cat /proc/sys/fs/pipe-user-pages-soft)
  [ "$soft" -gt 0 ] || skip "pipe-user-pages-soft is 0: no soft limit"
  if [ "$(id -u)" -eq 0 ]; then
    id nobody > /dev/null 2>&1 || skip "no user 'nobody' to become"
    who=user:nobody
  else
    have_cap_sys_resource && skip "this user holds CAP_SYS_RESOURCE: no soft limit applies"
    who=self
  fi
  got=$(probe pipe15 "$who")
  case $got in
  "limited "*" ok 1") echo "NOTE: $got" ;;
  "too few descriptors"*) skip "$got" ;;
  "limited "*) fail "a write into a soft-limited pipe after reading all but a byte: '$got'" ;;
  *) fail "pipes past pipe-user-pages-soft ($soft pages) as $who: '$got'" ;;
  esac
  # Two pages since the fix pipe15 checks for; one before, and the write hung.
  size=$(echo "$got" | cut -d' ' -f2)
  [ "$size" -ge $((2 * $(page_bytes))) ] || fail "a soft-limited pipe of $size bytes"
}

tcase --alone k_pipe_user_pages "pipe(7)'s per-user limits at their exact bounds: soft 64 pages, 4 full pipes; hard 70, 3 more of 2 slots, then ENFILE; no growing past them"
k_pipe_user_pages() {
  [ "$(id -u)" -eq 0 ] || skip "needs root, to set fs.pipe-user-pages-soft and -hard"
  soft=$(cat /proc/sys/fs/pipe-user-pages-soft)
  hard=$(cat /proc/sys/fs/pipe-user-pages-hard)
  # The machine's limits back however the case ends.
  trap 'echo "$soft" > /proc/sys/fs/pipe-user-pages-soft; echo "$hard" > /proc/sys/fs/pipe-user-pages-hard' EXIT
  { echo 64 > /proc/sys/fs/pipe-user-pages-soft && echo 70 > /proc/sys/fs/pipe-user-pages-hard; } \
    2> /dev/null || skip "fs.pipe-user-pages-soft and -hard cannot be set here"
  # A uid of no one: no pipe of its own yet.
  got=$(probe pipe-user-pages $((3900001000 + $$ % 1000)))
  two="16x4 2x3 ENFILE grow EPERM shrink ok $(page_bytes)"
  # A small pipe has 2 slots since 5.17; 1 before (and a write into it
  # could hang), 2 where that fix was backported.
  case $got in
  "$two") ;;
  "16x4 1x6 ENFILE grow EPERM shrink ok $(page_bytes)")
    kernel_at_least 5 17 && fail "small pipes of 1 slot on $(uname -r): '$got'" ;;
  *) fail "pipes past soft 64 and hard 70 pages: '$got', expected '$two'" ;;
  esac
}

tcase k_pipe_size_round "F_SETPIPE_SZ rounds up to a power of two pages, F_GETPIPE_SZ agrees"
k_pipe_size_round() {
  page=$(page_bytes)
  max=$(cat /proc/sys/fs/pipe-max-size)
  expect "ok $page ok $page ok $page ok $((2 * page)) ok $((4 * page)) ok $((16 * page)) ok $max" \
    pipe-set-size 1 $((page - 1)) "$page" $((page + 1)) $((3 * page)) $((9 * page + 1)) "$max"
}

# Sets max to pipe-max-size and over to one byte more; skips when F_SETPIPE_SZ
# (an int) could not ask for more.
past_max() {
  max=$(cat /proc/sys/fs/pipe-max-size)
  [ "$max" -lt 1073741824 ] || skip "pipe-max-size is $max: nothing above it to ask for"
  over=$((max + 1))
}

tcase --alone k_pipe_eperm_user "F_SETPIPE_SZ past pipe-max-size: EPERM for an unprivileged user"
k_pipe_eperm_user() {
  past_max
  if [ "$(id -u)" -eq 0 ]; then
    id nobody > /dev/null 2>&1 || skip "no user 'nobody' to become"
    expect "EPERM ok $max" pipe-set-size-as user:nobody "$over" "$max"
  else
    have_cap_sys_resource && skip "this user holds CAP_SYS_RESOURCE"
    expect "EPERM ok $max" pipe-set-size "$over" "$max"
  fi
}

# Alone: without CAP_SYS_RESOURCE root is held to pipe-user-pages-soft too,
# and the pipes of the other cases, all root's, counted against it (a
# parallel run once made the fitting size EPERM as well).
tcase --alone k_pipe_nocap "F_SETPIPE_SZ past pipe-max-size: EPERM without CAP_SYS_RESOURCE (root too)"
k_pipe_nocap() {
  past_max
  if have_cap_sys_resource; then
    # With the capability the limit does not apply: the drop is what matters.
    got=$(probe pipe-set-size "$over")
    case $got in
    ok*) ;;
    *) fail "with CAP_SYS_RESOURCE, $over bytes: the kernel said '$got'" ;;
    esac
  fi
  expect "EPERM ok $max" pipe-set-size-as nocap "$over" "$max"
}

tcase k_pipe_size_ebusy "F_SETPIPE_SZ below what is queued: EBUSY, nothing lost; fitting size works"
k_pipe_size_ebusy() {
  page=$(page_bytes)
  expect "EBUSY ok $((8 * page)) intact $((8 * page))" pipe-shrink-busy
}

# ---- sendfile(2) ------------------------------------------------------------------------------

alphabet() {
  printf abcdefghijklmnopqrstuvwxyz
}

tcase k_sendfile02 "sendfile02: offset 0 or 2: count, new offset, input position kept, bytes"
k_sendfile02() {
  alphabet > in
  : > out
  expect "ok 26 offset 26 pos 0" sendfile-at in out 0 26
  same in out
  : > out
  expect "ok 24 offset 26 pos 0" sendfile-at in out 2 24
  alphabet | tail -c 24 > ref
  same ref out
}

tcase k_sendfile03 "sendfile03: EBADF for a bad or read-only output, a bad or write-only input"
k_sendfile03() {
  expect "EBADF EBADF EBADF EBADF" sendfile03 out-bad out-rdonly in-bad in-wronly
}

tcase k_sendfile04 "sendfile04: EFAULT for an offset in PROT_NONE, read-only, exec, unmapped memory"
k_sendfile04() {
  expect "EFAULT EFAULT EFAULT EFAULT EFAULT" sendfile04 none read exec read-exec unmapped
}

tcase k_sendfile05 "sendfile05: EINVAL for an offset of -1"
k_sendfile05() {
  expect EINVAL sendfile05
}

tcase k_sendfile06 "sendfile06: without an offset: the whole file, and the input position advances"
k_sendfile06() {
  alphabet > in
  : > out
  expect "ok 26 pos 26" sendfile-at in out null 26
  same in out
}

tcase k_sendfile07 "sendfile07: EAGAIN into a full non-blocking socket"
k_sendfile07() {
  expect EAGAIN sendfile07
}

tcase k_sendfile08 "sendfile08: without an offset, writes at the output's position, not the input's"
k_sendfile08() {
  printf world > in
  expect "ok 5" sendfile08 in out
  printf helloworld > ref
  same ref out
}

tcase k_sendfile09 "sendfile09: a sparse 4 GiB file from 0, 3 GiB and across 2^32 (4 MiB each)"
k_sendfile09() {
  # LTP moves 1 GiB a call; 4 MiB asks the same of the offsets and takes a
  # second under an emulated CPU.  The input: every MiB ends in a 'C', the
  # rest are holes.
  probe sendfile-sparse in 4100
  chunk=4194304
  for at in 0 3221225472 4292870144; do
    : > out
    expect "ok $chunk offset $((at + chunk)) pos 0" sendfile-at in out "$at" "$chunk"
    dd if=in of=ref bs=1M skip=$((at / 1048576)) count=4 2> /dev/null
    same ref out
  done
}

# ---- copy_file_range(2) --------------------------------------------------------------------------

tcase k_copy_file_range01 "copy_file_range01: 4 lengths x 6 x 6 offsets: bytes, offsets, positions"
k_copy_file_range01() {
  mkdir d
  expect "144 copies, 0 wrong" cfr01 d libc
  expect "144 copies, 0 wrong" cfr01 d syscall
}

tcase k_copy_file_range01_xdev "copy_file_range01 to another file system: the copies or EXDEV"
k_copy_file_range01_xdev() {
  for variant in libc syscall; do
    got=$(probe with-tmpfs mnt "$HELPERS/splice-probe" cfr-once mnt/file_mnted "$variant")
    case $got in
    "no tmpfs: "*) skip "cannot mount a tmpfs here (${got#no tmpfs: })" ;;
    EXDEV) echo "NOTE: $variant: this kernel refuses copies across file systems (EXDEV)" ;;
    "ok 32")
      echo "NOTE: $variant: this kernel copies across file systems"
      expect "144 copies, 0 wrong" with-tmpfs mnt "$HELPERS/splice-probe" cfr01 mnt "$variant" ;;
    *) fail "$variant: one line across file systems: '$got'" ;;
    esac
  done
}

tcase k_copy_file_range02 "copy_file_range02: its 14 refusals (EBADF, EISDIR, ETXTBSY, ...)"
k_copy_file_range02() {
  kernel_at_least 5 3 || skip "copy_file_range's checks need Linux 5.3"
  for variant in libc syscall; do
    probe cfr02 "$variant" > answers
    n=0
    while IFS= read -r line; do
      kind=${line%%: *}
      got=${line#*: }
      case $kind in
      dir) want=EISDIR ;;
      rdonly|append|closed) want=EBADF ;;
      immutable) want=EPERM ;;
      swapfile) want=ETXTBSY ;;
      max-length) want=EOVERFLOW ;;
      max-file-size) want=EFBIG ;;
      *) want=EINVAL ;;
      esac
      case $got in
      "$want") ;;
      "unsupported: "*) echo "NOTE: $variant $kind: not tried, ${got#unsupported: }" ;;
      *) fail "$variant, $kind: the kernel said '$got', expected $want" ;;
      esac
      n=$((n + 1))
    done < answers
    [ "$n" -eq 14 ] || { cat answers >&2; fail "$variant: $n refusals tried, not 14"; }
  done
}

tcase k_copy_file_range03 "copy_file_range03: a copy updates the output's modification time"
k_copy_file_range03() {
  expect "ok 32 mtime updated" cfr03 libc
  expect "ok 32 mtime updated" cfr03 syscall
}

# ---- what kselftests, xfstests, liburing and the CVE record check ------------------------------

# cow_case SHAPE WAY: mm/cow.c's question on SHAPE memory, asked WAY: the
# pipe's reader sees the old bytes.  MAP_SHARED first, the control: there
# the other process's write is meant to show, so the probe can see a leak.
cow_case() {
  expect new cow-vmsplice shared "$2"
  got=$(probe cow-vmsplice "$1" "$2")
  case $got in
  old) ;;
  nothp) skip "no transparent huge page could be had (THP off, never for this mapping, or over 32 MiB)" ;;
  *) fail "cow-vmsplice $1 $2: the reader saw '$got' bytes: the write leaked through the pipe" ;;
  esac
}

tcase k_cow_vmsplice_child "mm/cow.c (CVE-2020-29374): vmsplice() + unmap in child: the reader sees the old bytes"
k_cow_vmsplice_child() { cow_case base child-unmap; }

tcase k_cow_vmsplice_child_mprotect "mm/cow.c: vmsplice() + unmap in child with mprotect() optimization: the old bytes"
k_cow_vmsplice_child_mprotect() { cow_case base child-unmap-mprotect; }

tcase k_cow_vmsplice_before_fork "mm/cow.c: vmsplice() before fork(), unmap in parent after fork(): the old bytes"
k_cow_vmsplice_before_fork() { cow_case base before-fork; }

tcase k_cow_vmsplice_parent "mm/cow.c: vmsplice() + unmap in parent after fork(): the old bytes"
k_cow_vmsplice_parent() { cow_case base parent-after-fork; }

tcase k_cow_vmsplice_thp "mm/cow.c: the four ways on a transparent huge page mapped by a PMD, by PTEs, by one PTE, half mremap()ed, partly shared: the old bytes"
k_cow_vmsplice_thp() {
  for shape in thp thp-pte thp-single thp-mremap thp-shared; do
    for way in child-unmap child-unmap-mprotect before-fork parent-after-fork; do
      cow_case "$shape" "$way"
    done
  done
}

tcase k_cow_vmsplice_hugetlb "mm/cow.c: the four ways on a hugetlb page: old or new bytes, never a mix (a leak there is cow.c's expected failure)"
k_cow_vmsplice_hugetlb() {
  for way in child-unmap child-unmap-mprotect before-fork parent-after-fork; do
    got=$(probe cow-vmsplice hugetlb "$way")
    case $got in
    old) ;;
    # mm/cow.c marks these xfail on hugetlb: harder to fix, nobody cares.
    new) echo "NOTE: cow-vmsplice hugetlb $way: the write leaked through the pipe, as mm/cow.c expects" ;;
    nohugetlb) skip "fewer than 2 hugetlb pages free (vm.nr_hugepages; the --kernel guest boots with hugepages=2)" ;;
    *) fail "cow-vmsplice hugetlb $way: the reader saw '$got' bytes, part old, part new" ;;
    esac
  done
}

tcase k_vmsplice_efault "CVE-2008-0009/0010/0600: vmsplice(2) both ways to null, unmapped, PROT_NONE, kernel, wrapping addresses and an unmapped iovec array: EFAULT, no byte moved"
k_vmsplice_efault() {
  for dir in in out; do
    expect "EFAULT EFAULT EFAULT EFAULT EFAULT EFAULT" vmsplice-efault "$dir:null" \
      "$dir:unmapped" "$dir:prot-none" "$dir:top" "$dir:wrap" "$dir:bad-iovec"
  done
}

tcase k_short_splice_read "kselftests short_splice_read.sh: 2 bytes from /proc/sys and sysfs files are their first 2; 4096 what cat gives"
k_short_splice_read() {
  kernel_at_least 5 10 || skip "/proc/sys splices since 5.10"
  tried=0
  for f in /proc/sys/kernel/ostype /proc/sys/vm/overcommit_memory /sys/devices/system/cpu/online \
    /sys/kernel/mm/transparent_hugepage/enabled; do
    [ -r "$f" ] || continue
    expect "ok 2" splice-head "$f" 2 two
    head -c 2 "$f" > want
    cmp want two || fail "2 bytes spliced from $f are not its first 2"
    cat "$f" > want
    expect "ok $(wc -c < want)" splice-head "$f" 4096 all
    cmp want all || fail "4096 bytes spliced from $f are not what cat gives"
    tried=$((tried + 1))
  done
  [ "$tried" -ge 2 ] || skip "fewer than 2 of the /proc/sys and sysfs files here"
}

tcase k_proc_refuse "kselftests splice/: /proc/PID/limits and /proc/PID/comm refuse splice(2), EINVAL (since 5.10)"
k_proc_refuse() {
  kernel_at_least 5 10 || skip "these refuse since 5.10"
  expect EINVAL splice-head /proc/self/limits 4096 out
  expect EINVAL splice-head /proc/self/comm 4096 out
}

tcase k_dev_null_splice "kselftests default_file_splice_read: a splice from /dev/null into a pipe moves no byte"
k_dev_null_splice() {
  got=$(probe splice-head /dev/null 4096 out)
  case $got in "ok 0" | EINVAL) ;; *) fail "splice from /dev/null: '$got'" ;; esac
  [ ! -s out ] || fail "a splice from /dev/null moved $(wc -c < out) bytes"
}

tcase k_zero_length "liburing splice.c: splice, tee, vmsplice, sendfile, copy_file_range of 0 bytes return 0 at once, even on an empty pipe"
k_zero_length() {
  expect "ok 0 ok 0 ok 0 ok 0 ok 0 ok 0 ok 0 ok 0" zero-length f
}

tcase k_past_eof "xfstests generic/434: splice, sendfile, copy_file_range from past the end of the source: 0, no error"
k_past_eof() {
  random_file f 10000
  expect "ok 0 ok 0 ok 0" past-eof f
}

tcase k_pipe_self "fs/splice.c: a pipe spliced or teed into itself: EINVAL, its bytes kept"
k_pipe_self() {
  expect "EINVAL EINVAL kept 3" pipe-self
}

# The two pipe-loop cases run alone, last: on a kernel that deadlocks here,
# what sleeps for ever holds only these pipes, nothing runs beside it, and
# the harness reports it stuck (with its stacks) 10 s after its timeout.
tcase --alone k_pipe_cross "four threads each way splicing pipe 1 -> 2 and 2 -> 1 for a second (then tee(2) so): no hang, no byte lost or doubled"
k_pipe_cross() {
  expect "ok 65536 exact" pipe-cross splice
  got=$(probe pipe-cross tee)
  case $got in "ok "[1-9]*[0-9]) ;; *) fail "pipe-cross tee: '$got'" ;; esac
}

tcase --alone k_pipe_cross_block "two full pipes spliced into each other, blocking: both wait interruptibly, a signal ends both with EINTR"
k_pipe_cross_block() {
  expect "EINTR EINTR" pipe-cross-block
}

tcase k_splice_direct "xfstests generic/591: 1 MiB from an O_DIRECT file through a 64 KiB pipe, read in turn or meanwhile: no error, no early end, exact"
k_splice_direct() {
  for how in seq concurrent; do
    got=$(probe splice-direct f "$how")
    [ "$got" != nodirect ] || skip "no O_DIRECT on this file system (${TMPDIR:-/tmp})"
    [ "$got" = "ok 1048576 exact" ] || fail "splice-direct $how: '$got'"
  done
}

tcase k_fsize_limit "xfstests generic/564: RLIMIT_FSIZE: splice, sendfile, copy_file_range write up to it, then EFBIG (SIGXFSZ ignored) or die of SIGXFSZ"
k_fsize_limit() {
  for way in splice sendfile cfr; do
    expect "ok 65536 EFBIG" fsize-limit "$way" ignore
    expect "ok 65536 killed by SIGXFSZ" fsize-limit "$way" default
  done
}

tcase k_tee_socket "tee(2) of buffers a TCP or AF_UNIX socket spliced into a pipe: both copies exact, released in either order"
k_tee_socket() {
  for kind in tcp unix; do
    for order in first second; do
      expect "ok 61440 exact exact" tee-socket "$kind" "$order"
    done
  done
}

tcase k_uring_splice "liburing splice.c: IORING_OP_SPLICE and IORING_OP_TEE: file position and offset, pipe to file and pipe, tee keeps its source, ESPIPE, EINVAL, a fixed file"
k_uring_splice() {
  got=$(probe uring-splice file-pos)
  [ "$got" != nouring ] || skip "io_uring is not there or disabled (kernel.io_uring_disabled)"
  expect "ok 3 cde ok 3 bcd ok 3 xyzdef ok 3 xyz ok 3 xyz kept xyz ESPIPE EINVAL ok 3 bcd" \
    uring-splice file-pos file-off pipe-file pipe-pipe tee pipe-offset tee-file fixed
}

# ---- what the tools rely on, beyond LTP ----------------------------------------------------------

tcase k_proc_files "/proc and /sys files: the bytes splice(2) gives are read(2)'s (which refuse: noted)"
k_proc_files() {
  probe proc-files > answers
  # No answer is no pass: these three exist on every Linux system.
  for _f in /proc/version /proc/self/status /proc/self/maps; do
    grep -q "^$_f: " answers || fail "splice-probe proc-files: no answer for $_f"
  done
  wrong=$(grep -v -e ': ok [0-9]*$' -e ': ok [0-9]* same$' -e ': EINVAL$' \
    -e ': not here (E[A-Z]*)$' answers || true)
  [ -z "$wrong" ] ||
    { echo "$wrong" >&2; fail "a /proc or /sys file spliced wrong bytes or failed"; }
  echo "NOTE: refuse splice (EINVAL): $(sed -n 's/: EINVAL$//p' answers | tr '\n' ' ')"
}

tcase k_cfr_xdev_tools "splice-cat to another file system: byte-exact, whatever the kernel does"
k_cfr_xdev_tools() {
  random_file in 3000000
  got=$(probe with-tmpfs mnt sh -c 'splice-cat --verbose in > mnt/out 2> err; echo "exit $?";
    cmp in mnt/out && echo same; cat err')
  case $got in
  "no tmpfs: "*) skip "cannot mount a tmpfs here (${got#no tmpfs: })" ;;
  "exit 0
same
"*) ;;
  *) fail "splice-cat to another file system: '$got'" ;;
  esac
  case $got in
  *"splice-cat: 3000000 bytes by copy_file_range(2)"*) echo "NOTE: splice-cat used copy_file_range" ;;
  *"splice-cat: 3000000 bytes by splice(2) through a pipe"*) echo "NOTE: splice-cat spliced through a pipe" ;;
  *) fail "splice-cat to another file system, another way: '$got'" ;;
  esac
}

# INFO cases: splice(2) and vmsplice(2) allow either answer, so either is
# a skip that says which (never a pass); anything else fails.
tcase k_nonblock_socket "INFO: SPLICE_F_NONBLOCK from an idle blocking TCP socket (splice(2): it may block)"
k_nonblock_socket() {
  got=$(probe nonblock-socket)
  case $got in
  blocks) skip "INFO: splice(2) waits on a blocking socket despite SPLICE_F_NONBLOCK" ;;
  EAGAIN) skip "INFO: SPLICE_F_NONBLOCK makes even a blocking socket say EAGAIN" ;;
  *) fail "splice from an idle TCP socket with SPLICE_F_NONBLOCK: '$got'" ;;
  esac
}

tcase k_gift "INFO: SPLICE_F_GIFT: is a gifted page still the user's? (vmsplice(2): either)"
k_gift() {
  got=$(probe vmsplice-reuse gift)
  case $got in
  shared) skip "INFO: a gifted page stays shared: rewriting it changes bytes already sent" ;;
  copied) skip "INFO: a gifted page was copied" ;;
  *) fail "a rewritten gifted page arrived as neither the old nor the new bytes: $got" ;;
  esac
}

tcase k_tee_empty "tee(2), empty pipe, SPLICE_F_NONBLOCK: EAGAIN while a writer is open, 0 after"
k_tee_empty() {
  expect "EAGAIN ok 0" tee-empty
}

tcase k_pty "INFO: splice from a pty, either end (by version); spliced bytes are the ones written"
k_pty() {
  got=$(probe pty)
  case $got in
  "slave ok 13 same master ok 14 same") skip "INFO: both ends of a pty splice, the bytes written" ;;
  "slave EINVAL master EINVAL") skip "INFO: a pty refuses splice (EINVAL)" ;;
  *) fail "splice from a pty: '$got'" ;;
  esac
}

tcase k_offsets "splice(2) offsets past 2^31 and 2^32: bytes, offsets, positions"
k_offsets() {
  expect "2^31 in ok 8192 same out ok 8192 same 2^32 in ok 8192 same out ok 8192 same" \
    splice-offsets sparse
}

tcase k_epipe "splice, vmsplice, tee into a pipe nobody reads: EPIPE and SIGPIPE"
k_epipe() {
  expect "splice EPIPE SIGPIPE vmsplice EPIPE SIGPIPE tee EPIPE SIGPIPE" epipe
}

tcase k_file_by_reference "INFO: a file page spliced into a pipe, rewritten: what arrives (old or new, never mixed)"
k_file_by_reference() {
  got=$(probe file-by-reference file)
  case $got in
  reference) skip "INFO: splice from a file is by reference: a rewrite before the read shows" ;;
  copy) skip "INFO: splice from a file copied the page" ;;
  *) fail "a rewritten file page arrived mixed: $got" ;;
  esac
}

tcase k_vmsplice_reuse "INFO: vmsplice reuse hazard: page rewritten after it left a pipe (old or new, never mixed)"
k_vmsplice_reuse() {
  got=$(probe vmsplice-reuse)
  case $got in
  shared) skip "INFO: the pipe held the user's page: rewriting it changed bytes already sent on" ;;
  copied) skip "INFO: this kernel copied the vmspliced page; reuse is safe here" ;;
  *) fail "a rewritten vmspliced page arrived as neither the old nor the new bytes: $got" ;;
  esac
}

case ${1:-} in
run) run_checked "$2" ;;
*) run_area "$@" ;;
esac
