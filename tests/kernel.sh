#!/bin/sh
# The kernel smoke test: each behaviour of splice(2), tee(2), vmsplice(2) and
# the pipe capacity rules that the Linux Test Project checks (splice01-09,
# tee01-02, vmsplice01-04, the F_SETPIPE_SZ rules) is one case here, named
# after the LTP test it mirrors.  The tools exercise what they can reach;
# tests/splice-probe (one syscall scenario per run, printing "ok N" or the
# errno's name) reaches the rest.  What an older kernel lacks is skipped,
# with the version it needs.  Run it with `tests/run.sh --strict kernel`.
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

page_bytes() {
  getconf PAGESIZE 2> /dev/null || getconf PAGE_SIZE
}

# True when this shell runs with CAP_SYS_RESOURCE in its effective set.
have_cap_sys_resource() {
  _eff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
  [ -n "$_eff" ] && [ $(( (0x$_eff >> 24) & 1 )) -eq 1 ]
}

# ---- splice(2) ----------------------------------------------------------------

tcase k_splice01 "splice01: file -> pipe -> file, 1 KiB, byte-exact (probe, splice-cat)"
k_splice01() {
  probe ramp 1024 > in
  expect "ok 1024" file-pipe-file in out
  same in out
  # The same path through the tools: file -> stdout pipe, stdin pipe -> file.
  run_status st splice-cat --verbose in 2> err1 | splice-cat --verbose > out2 2> err2
  status 0 "$(cat st)" "splice-cat in | splice-cat > out2"
  same in out2
  mentions err1 "splice-cat: splice: 1024 bytes"
  mentions err2 "splice-cat: splice: 1024 bytes"
}

tcase k_splice02 "splice02: stdin a pipe -> file, byte-exact (probe, splice-cat)"
k_splice02() {
  random_file in 200000
  cat in | probe stdin-file out > answer
  [ "$(cat answer)" = "ok 200000" ] || fail "stdin -> file: the kernel said '$(cat answer)'"
  same in out
  cat in | splice-cat --verbose > out2 2> err || { cat err >&2; fail "cat in | splice-cat > out2"; }
  same in out2
  mentions err "splice-cat: splice: 200000 bytes"
}

tcase k_splice03_ebadf "splice03: EBADF for a bad fd in or out, write-only input, read-only output"
k_splice03_ebadf() {
  expect EBADF splice-error bad-fd-in
  expect EBADF splice-error bad-fd-out
  expect EBADF splice-error write-only-in
  expect EBADF splice-error read-only-out
}

tcase k_splice03_append "splice03: EINVAL for an O_APPEND target; splice-cat --strict >> says so"
k_splice03_append() {
  expect EINVAL splice-error append-out
  random_file in 5000
  echo prefix > out
  cp out ref
  run_status st sh -c 'cat in | splice-cat --strict >> out' 2> err
  status 1 "$(cat st)" "cat in | splice-cat --strict >> out"
  mentions err "splice: Invalid argument"
  same ref out
}

tcase k_splice03_nopipe "splice03: EINVAL when neither side is a pipe"
k_splice03_nopipe() {
  expect EINVAL splice-error no-pipe
}

tcase k_splice03_espipe "splice03: ESPIPE for an offset on a pipe, input or output side"
k_splice03_espipe() {
  expect ESPIPE splice-error offset-in-pipe
  expect ESPIPE splice-error offset-out-pipe
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
  status 0 "$(cat st)" "cat | splice-cat | cat"
  same in out2
  mentions err "splice-cat: splice: $n bytes"
}

tcase k_splice05 "splice05: pipe -> AF_UNIX stream socket -> pipe, byte-exact"
k_splice05() {
  pipe_ramp
  expect "ok $n" pipe-unix-pipe in out
  same in out
}

tcase k_splice06_read "splice06: splice from /proc/sys files, same bytes as read(2) (>= 5.11)"
k_splice06_read() {
  kernel_at_least 5 11 || skip "splice from /proc/sys needs Linux 5.11, this is $(uname -r)"
  for f in /proc/sys/fs/pipe-max-size /proc/sys/kernel/domainname /proc/sys/kernel/ostype; do
    cat "$f" > ref
    run_status st splice-cat --verbose "$f" 2> err | cat > out
    status 0 "$(cat st)" "splice-cat $f | cat"
    same ref out
    mentions err "splice-cat: splice: $(wc -c < ref) bytes"
  done
}

tcase k_splice06_write "splice06: splice into /proc/sys files (same number back, own domainname)"
k_splice06_write() {
  kernel_at_least 5 11 || skip "splice to /proc/sys needs Linux 5.11, this is $(uname -r)"
  [ -w /proc/sys/fs/pipe-max-size ] || skip "/proc/sys/fs/pipe-max-size is not writable here"
  # The same number back: the limit other processes see never changes.
  max=$(cat /proc/sys/fs/pipe-max-size)
  printf '%s\n' "$max" | splice-cat --verbose > /proc/sys/fs/pipe-max-size 2> err ||
    { cat err >&2; fail "splice into pipe-max-size"; }
  mentions err "splice-cat: splice: $(printf '%s\n' "$max" | wc -c) bytes"
  [ "$(cat /proc/sys/fs/pipe-max-size)" = "$max" ] || fail "pipe-max-size changed"
  # A string, in a UTS namespace of its own so the host's name stays.
  need unshare
  unshare -u true 2> /dev/null || skip "no new UTS namespace here (unshare -u refused)"
  unshare -u sh -c 'printf splice-probe-domain | splice-cat --verbose > /proc/sys/kernel/domainname &&
    cat /proc/sys/kernel/domainname' > out 2> err2 ||
    { cat err2 >&2; fail "splice into domainname"; }
  echo splice-probe-domain > ref
  same ref out
  mentions err2 "splice-cat: splice: 19 bytes"
}

tcase k_splice07 "splice07: every fd-type pair where a side cannot splice: EBADF or EINVAL"
k_splice07() {
  probe fd-pairs > answers
  wrong=$(grep -v -e ': EBADF$' -e ': EINVAL$' -e ': not available here$' -e '^[0-9]* pairs$' \
    answers || true)
  [ -z "$wrong" ] || { echo "$wrong" >&2; fail "splice accepted or misreported these pairs"; }
  n=$(sed -n 's/^\([0-9]*\) pairs$/\1/p' answers)
  [ "${n:-0}" -ge 150 ] || { cat answers >&2; fail "only ${n:-0} pairs could be tried"; }
}

tcase k_splice08 "splice08: /dev/zero, /dev/full as source, 0 to 8 x 1009 bytes, all zero (>= 6.7)"
k_splice08() {
  for dev in /dev/zero /dev/full; do
    for i in 0 1 2 3 4 5 6 7 8; do
      n=$((i * 1009))
      : > out
      got=$(probe dev-source "$dev" "$n" out)
      if [ "$got" = EINVAL ] && ! kernel_at_least 6 7; then
        skip "splice from $dev needs Linux 6.7, this is $(uname -r)"
      fi
      [ "$got" = "ok $n" ] || fail "splice from $dev, $n bytes: the kernel said '$got'"
      head -c "$n" /dev/zero > ref
      same ref out
    done
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
    skip "splice to /dev/zero needs Linux 6.7, this is $(uname -r)"
  fi
  [ "$got" = "ok 1024" ] || fail "splice to /dev/zero: the kernel said '$got'"
  for dev in /dev/null /dev/zero; do
    cat in | splice-cat --verbose > "$dev" 2> err || { cat err >&2; fail "cat | splice-cat > $dev"; }
    mentions err "splice-cat: splice: 1024 bytes"
  done
}

# ---- tee(2) ------------------------------------------------------------------

tcase k_tee01 "tee01: file -> pipe -> tee -> pipe -> file, the first pipe keeps its bytes"
k_tee01() {
  probe ramp 1024 > in
  expect "ok 1024" tee-file in out copy
  same in out
  same in copy
  random_file big 3000000
  { splice-cat big | run_status st splice-tee -v t1 2> err; } | splice-cat > t2
  status 0 "$(cat st)" "splice-cat | splice-tee t1 | splice-cat"
  same big t1
  same big t2
  mentions err "splice-tee: tee: 3000000 bytes"
}

tcase k_tee02 "tee02: EINVAL for a non-pipe input, a non-pipe output, and the same pipe"
k_tee02() {
  expect EINVAL tee-error file-in
  expect EINVAL tee-error file-out
  expect EINVAL tee-error same-pipe
}

# ---- vmsplice(2) ---------------------------------------------------------------

tcase k_vmsplice01 "vmsplice01: 128 KiB vmspliced with poll, spliced into a file, byte-exact"
k_vmsplice01() {
  probe ramp 131072 > ref
  expect "ok 131072" vmsplice-file out 131072
  same ref out
  run_status st vmsplice -v -s 128K -p ramp 2> err | splice-cat > out2
  status 0 "$(cat st)" "vmsplice -s 128K -p ramp | splice-cat"
  same ref out2
  mentions err "vmsplice: vmsplice: 131072 bytes"
}

tcase k_vmsplice02 "vmsplice02: EBADF for a bad fd and for a file, EINVAL past IOV_MAX iovecs"
k_vmsplice02() {
  expect EBADF vmsplice-error bad-fd
  expect EBADF vmsplice-error file
  expect EINVAL vmsplice-error too-many-iovecs
}

tcase k_vmsplice03 "vmsplice03: pipe -> user memory, 64 KiB, byte-exact"
k_vmsplice03() {
  probe ramp 65536 > in
  expect "ok 65536" vmsplice-touser in out
  same in out
  probe ramp 65536 | vmsplice-touser -v --verify ramp 2> err ||
    { cat err >&2; fail "vmsplice-touser --verify ramp"; }
  mentions err "vmsplice-touser: vmsplice: 65536 bytes"
}

tcase k_vmsplice04 "vmsplice04: full pipe: EAGAIN with SPLICE_F_NONBLOCK, else vmsplice waits"
k_vmsplice04() {
  expect "EAGAIN blocked" vmsplice-full
}

tcase k_vmsplice_reuse "vmsplice reuse hazard (informational): page rewritten after it left a pipe"
k_vmsplice_reuse() {
  got=$(probe vmsplice-reuse)
  case $got in
  shared) echo "the pipe held the user's page: rewriting it changed bytes already sent on" ;;
  copied) skip "informational: this kernel copied the vmspliced page; reuse is safe here" ;;
  *) fail "a rewritten vmspliced page arrived as neither the old nor the new bytes: $got" ;;
  esac
}

# ---- pipe capacity ---------------------------------------------------------------

tcase k_pipe_size_round "F_SETPIPE_SZ rounds up to a power of two pages, F_GETPIPE_SZ agrees"
k_pipe_size_round() {
  page=$(page_bytes)
  max=$(cat /proc/sys/fs/pipe-max-size)
  expect "ok $page" pipe-set-size 1
  expect "ok $page" pipe-set-size $((page - 1))
  expect "ok $page" pipe-set-size "$page"
  expect "ok $((2 * page))" pipe-set-size $((page + 1))
  expect "ok $((4 * page))" pipe-set-size $((3 * page))
  expect "ok $((16 * page))" pipe-set-size $((9 * page + 1))
  expect "ok $max" pipe-set-size "$max"
}

# Sets max to pipe-max-size and over to one byte more; skips when F_SETPIPE_SZ
# (an int) could not ask for more.
past_max() {
  max=$(cat /proc/sys/fs/pipe-max-size)
  [ "$max" -lt 1073741824 ] || skip "pipe-max-size is $max: nothing above it to ask for"
  over=$((max + 1))
}

tcase k_pipe_eperm_user "F_SETPIPE_SZ past pipe-max-size: EPERM for an unprivileged user"
k_pipe_eperm_user() {
  past_max
  if [ "$(id -u)" -eq 0 ]; then
    id nobody > /dev/null 2>&1 || skip "no user 'nobody' to become"
    expect EPERM pipe-set-size-as user:nobody "$over"
    expect "ok $max" pipe-set-size-as user:nobody "$max"
  else
    have_cap_sys_resource && skip "this user holds CAP_SYS_RESOURCE"
    expect EPERM pipe-set-size "$over"
    expect "ok $max" pipe-set-size "$max"
  fi
}

tcase k_pipe_nocap "F_SETPIPE_SZ past pipe-max-size: EPERM without CAP_SYS_RESOURCE (root too)"
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
  expect EPERM pipe-set-size-as nocap "$over"
  expect "ok $max" pipe-set-size-as nocap "$max"
}

tcase k_pipe_size_ebusy "F_SETPIPE_SZ below what is queued: EBUSY, nothing lost; fitting size works"
k_pipe_size_ebusy() {
  page=$(page_bytes)
  expect "EBUSY ok $((8 * page)) intact $((8 * page))" pipe-shrink-busy
}

run_area "$@"
