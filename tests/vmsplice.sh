#!/bin/sh
# vmsplice and vmsplice-touser: every pattern byte-exact at the page and pipe
# boundaries, checked by vmsplice-touser --verify and by references built
# with od, awk, head and cmp alone; the proof that the default mode never
# writes a page a reader may still hold, through readers that pass pages on.
# `cat FILE | tool` is meant: the tools read pipes with vmsplice(2).
# shellcheck disable=SC2002
. "${TESTS:?run me through tests/run.sh}/lib.sh"

SIZES="0 1 4095 4096 65535 65536 65537 1048583"
PATTERNS="zero fill:0x41 fill:7 ramp seq random random:12345 text:thirteen-byte text:\\x00\\t"

# reader_leaves CMD...: CMD, SIGPIPE ignored, into a reader that leaves
# after one byte (head -c 1); its status in st, its stderr in err.
reader_leaves() {
  run_status st sh -c 'trap "" PIPE; exec "$@"' sh "$@" 2> err | head -c 1 > /dev/null
}

# gen FILE ARGS...: vmsplice ARGS | cat > FILE, exit status checked.
gen() {
  _out=$1
  shift
  run_status gen.st vmsplice "$@" | cat > "$_out"
  status_in 0 gen.st "vmsplice $*"
}

# chain PATTERN "VMSPLICE ARGS" "CONSUMER": vmsplice | CONSUMER |
# vmsplice-touser --verify PATTERN -c (CONSUMER "" : straight in); the three
# statuses in c1.st c2.st c3.st, the count in c.count, messages in c.err.
chain() {
  _pat=$1
  _args=$2
  _mid=$3
  if [ -z "$_mid" ]; then
    echo 0 > c2.st
    # shellcheck disable=SC2086
    run_status c1.st vmsplice -p "$_pat" $_args |
      run_status c3.st vmsplice-touser --verify "$_pat" -c > c.count 2> c.err
  else
    # shellcheck disable=SC2086
    run_status c1.st vmsplice -p "$_pat" $_args |
      run_status c2.st sh -c "$_mid" |
      run_status c3.st vmsplice-touser --verify "$_pat" -c > c.count 2> c.err
  fi
}

# chain_ok PATTERN "VMSPLICE ARGS" "CONSUMER" BYTES
chain_ok() {
  chain "$1" "$2" "$3"
  # The statuses by read, not cat: the pattern loops run this hundreds of times.
  read -r _c1 < c1.st
  read -r _c2 < c2.st
  read -r _c3 < c3.st
  [ "$_c3" -eq 0 ] || { cat c.err >&2; fail "vmsplice -p $1 $2 | $3: verify failed"; }
  # From the end of the chain: a reader that failed makes its writer's
  # SIGPIPE, so the first failing status named is the cause.
  status 0 "$_c2" "$3 (after vmsplice -p $1 $2, exit $_c1)"
  status 0 "$_c1" "vmsplice -p $1 $2"
  counted c.count "$4" "vmsplice -p $1 $2 | $3"
}

tcase t_patterns_verify "every pattern, 0 B to 1 MiB + 7, checked by vmsplice-touser --verify"
t_patterns_verify() {
  for p in $PATTERNS; do
    for n in $SIZES; do
      # Through cat, a reader that copies: every size of seq (an offset
      # wrong anywhere shows), every pattern at the size of many pages.
      [ "$p" != seq ] && [ "$n" != 1048583 ] || chain_ok "$p" "-s $n" cat "$n"
      # Straight into the checker, no pipe in between.
      run_status st vmsplice -p "$p" -s "$n" |
        vmsplice-touser --verify "$p" -c > count || fail "vmsplice -p $p -s $n | vmsplice-touser"
      read -r st < st
      status 0 "$st" "vmsplice -p $p -s $n"
      counted count "$n" "-p $p -s $n"
    done
  done
}

# ramp_ref N FILE: bytes 0, 1, ... 255, 0, ... made by printf alone, from
# one format of 256 octal escapes (a printf a byte cost half a second).
ramp_ref() {
  # shellcheck disable=SC2059 # the format is the point
  printf "$(awk 'BEGIN { for (i = 0; i < 256; i++) printf "\\%03o", i }')" > block
  [ "$(wc -c < block)" -eq 256 ] || fail "printf made a $(wc -c < block)-byte ramp block"
  while [ "$(wc -c < block)" -lt "$1" ]; do
    cat block block > block2
    mv block2 block
  done
  head -c "$1" block > "$2"
}

# seq_words FILE FROM LEN: FILE's LEN bytes from FROM (multiples of 8)
# are the words seq writes there, read by od a word at a time (a byte at
# a time cost 8 times the CPU).
seq_words() {
  tail -c +$(($2 + 1)) "$1" | head -c "$3" | od -A n -t u8 -v | tr -s ' ' '\n' | grep . |
    awk -v from="$2" -v words=$(($3 / 8)) '{
      if ($1 != from + (NR - 1) * 8) { print "word at " from + (NR - 1) * 8 " is " $1; exit 1 }
      count++
    } END { if (count + 0 != words) { print count + 0 " words, expected " words; exit 1 } }' ||
    fail "seq -s $n differs from the reference from byte $2"
}

tcase t_patterns_reference "zero, fill, ramp, seq match references made by head, printf, od and awk"
t_patterns_reference() {
  for n in $SIZES; do
    gen z -p zero -s "$n"
    head -c "$n" /dev/zero > zref
    same zref z
    gen f -p fill:0x41 -s "$n"
    head -c "$n" /dev/zero | tr '\0' A > fref
    same fref f
    gen f2 -p fill:255 -s "$n"
    head -c "$n" /dev/zero | tr '\0' '\377' > fref2
    same fref2 f2
    gen r -p ramp -s "$n"
    ramp_ref "$n" rref
    same rref r
    # seq: word k (8 bytes, little-endian) is 8 k; a short last word is
    # the start of the next one, read a byte at a time.
    gen s -p seq -s "$n"
    [ "$(wc -c < s)" -eq "$n" ] || fail "seq -s $n: $(wc -c < s) bytes"
    whole=$((n / 8 * 8))
    # Every word up to 64 KiB; past that (1 MiB + 7) the first and last
    # 64 KiB, across the boundaries of pages and pipes at both ends.
    if [ "$whole" -le 65536 ]; then
      seq_words s 0 "$whole"
    else
      seq_words s 0 65536
      seq_words s $((whole - 65536)) 65536
    fi
    tail -c $((n - whole)) s | od -A n -t u1 -v | tr -s ' ' '\n' | grep . |
      awk -v word="$whole" -v left=$((n - whole)) '{
        want = int(word / (256 ^ (NR - 1))) % 256
        if ($1 != want) { print "byte " NR - 1 " of the last word is " $1 ", expected " want; exit 1 }
      } END { if (NR != left) { print NR " bytes in the last word, expected " left; exit 1 } }' ||
      fail "seq -s $n: its last word differs from the reference"
  done
}

tcase t_seq_4g "4 GiB + 1 MiB of seq through a pipe: every byte checked, 64-bit offsets"
t_seq_4g() {
  chain_ok seq "-s 4097M" "splice-cat" 4296015872
  # Without the project's checker: the last three words past 4 GiB, by od.
  run_status st vmsplice -p seq -s 4097M | tail -c 24 > last
  status_in 0 st "vmsplice -p seq -s 4097M | tail"
  [ "$(od -A n -t u8 -v last | tr -s ' \n' '  ')" = " 4296015848 4296015856 4296015864 " ] ||
    fail "last words: $(od -A n -t u8 -v last)"
}

tcase t_safety_default "default mode + --clear, 256 MiB seq: exact through readers passing pages on"
t_safety_default() {
  n=268435456
  # A reader that copies.
  chain_ok seq "--clear -s 256M" cat "$n"
  # Readers that splice the pages on: one and two more pipes.
  chain_ok seq "--clear -s 256M" splice-cat "$n"
  chain_ok seq "--clear -s 256M" "splice-cat | splice-cat | splice-cat" "$n"
  # Into a file, then checked.
  run_status st vmsplice -p seq --clear -s 256M | splice-cat > file
  status_in 0 st "vmsplice | splice-cat > file"
  [ "$(cat file | vmsplice-touser --verify seq -c)" -eq "$n" ] || fail "file: verify"
  # A slow reader: the pipe is full for a while, pages sit in two pipes.
  chain_ok seq "--clear -s 64M" "sleep 0.5; splice-cat" 67108864
  # Random changes every round too.
  chain_ok random:3 "--clear -s 64M" "splice-cat | splice-cat" 67108864
}

tcase t_safety_pipe_grows "reader grows the pipe mid-run: exact by default, and --reuse into cat"
t_safety_pipe_grows() {
  # vmsplice sizes its halves from a 64 KiB pipe; after it has filled it,
  # the reader grows the pipe to 1 MiB: the double-buffer rule no longer holds.
  run_status st vmsplice -p seq --clear -s 256M --pipe-size 64K |
    { sleep 0.3; vmsplice-touser --pipe-size 1M -v --verify seq -c > count 2> err ||
      { cat err >&2; fail "vmsplice-touser --pipe-size 1M: verify"; }; }
  status_in 0 st "vmsplice --pipe-size 64K"
  counted count 268435456 "vmsplice --pipe-size 64K | vmsplice-touser --pipe-size 1M"
  mentions err "pipe capacity: 1048576 bytes"
  # The same with a reader in between that passes the pages on.
  run_status st vmsplice -p seq --clear -s 128M --pipe-size 64K |
    { sleep 0.3; splice-cat; } |
    { sleep 0.3; vmsplice-touser --pipe-size 1M --verify seq -c > count ||
      fail "vmsplice | splice-cat | vmsplice-touser --pipe-size 1M: verify"; }
  status_in 0 st "vmsplice --pipe-size 64K | splice-cat"
  counted count 134217728 "vmsplice --pipe-size 64K | splice-cat | vmsplice-touser --pipe-size 1M"
  # --reuse into a copying reader that grows the pipe: new halves, exact.
  run_status st vmsplice -v -p seq --reuse --clear -s 128M --pipe-size 64K 2> err |
    { sleep 0.3; vmsplice-touser --pipe-size 1M --verify seq -c > count ||
      fail "vmsplice --reuse | vmsplice-touser --pipe-size 1M: verify"; }
  status_in 0 st "vmsplice --reuse --pipe-size 64K"
  counted count 134217728 "vmsplice --reuse --pipe-size 64K | vmsplice-touser --pipe-size 1M"
  mentions err "the pipe grew to 1048576 bytes: new halves"
}

tcase t_safety_pv "default mode + --clear, 256 MiB of seq through pv: exact (pv splices)"
t_safety_pv() {
  need pv
  chain_ok seq "--clear -s 256M" "pv -q" 268435456
  chain_ok seq "--clear -s 256M" "pv -q | splice-cat" 268435456
}

# The safe ways of --refill.  write copies with write(2), a fallback that
# --strict refuses by design, so its cases are its own and skip there.
ZERO_COPY_REFILLS="fresh stream memfd"

# refill_exact WAY: --refill WAY + --clear, byte-exact through readers that
# pass pages on, for a pattern that changes every round.
refill_exact() {
  n=67108864
  for p in seq random:5; do
    # A second pipe, and a slow one: pages sit in two pipes for a while.
    chain_ok "$p" "--refill $1 --clear -s 64M" "splice-cat | splice-cat" "$n"
    chain_ok "$p" "--refill $1 --clear -s 64M" "sleep 0.3; splice-cat" "$n"
    # splice-tee: tee(2) keeps references in its internal pipe and the file.
    chain_ok "$p" "--refill $1 --clear -s 64M" "splice-tee tee.out | splice-cat" "$n"
    # The file through a pipe: vmsplice-touser --strict reads only pipes.
    splice-cat tee.out | vmsplice-touser --verify "$p" -c > tee.count ||
      fail "--refill $1 -p $p: splice-tee's file differs"
    counted tee.count "$n" "--refill $1 -p $p: splice-tee's file"
    if command -v pv > /dev/null 2>&1; then
      chain_ok "$p" "--refill $1 --clear -s 64M" "pv -q | splice-cat" "$n"
    fi
  done
}

tcase --long t_refill_safe "--refill fresh, stream, memfd + --clear: exact behind splice-tee, pv, a second pipe"
t_refill_safe() {
  for how in $ZERO_COPY_REFILLS; do
    refill_exact "$how"
  done
}

tcase t_refill_write_safe "--refill write + --clear: exact behind splice-tee, pv, a second pipe"
t_refill_write_safe() {
  needs_fallback
  refill_exact write
}

# refill_edges WAY: sizes off the page and pipe boundaries, -v's name for the
# way, and a reader that goes away.
refill_edges() {
  # A partial last page is the edge: punching or unmapping half of one
  # must not change what the pipe still holds.
  [ "$1" = reuse ] ||
    for sz in 1 4095 4097 1048577 2097153 3145731; do
      chain_ok seq "--refill $1 --clear -s $sz" "splice-cat | splice-cat" "$sz"
    done
  vmsplice -v -p seq --refill "$1" -s 1M 2> err | cat > /dev/null
  case $1 in
  fresh) mentions err "fresh pages for every round" ;;
  stream) mentions err "non-temporal stores" ;;
  memfd) mentions err "memfd pages spliced, then punched out" ;;
  write) mentions err "write(2) from one small buffer" ;;
  reuse) mentions err "two halves refilled" ;;
  esac
  [ "$1" = reuse ] && return 0
  # A reader that goes away: with SIGPIPE ignored, the way says so, exit 1.
  reader_leaves vmsplice -p seq --refill "$1" -s 1G
  status_in 1 st "vmsplice --refill $1 into a reader that left"
  mentions err "standard output: .*Broken pipe"
}

tcase t_refill_edges "--refill: sizes off the page and pipe boundaries, -v names the way, --strict refuses write"
t_refill_edges() {
  for how in $ZERO_COPY_REFILLS reuse; do
    refill_edges "$how"
  done
  # A pattern that repeats needs no refill, whatever the way.
  vmsplice -v -p zero --refill memfd -s 4M 2> err | cat > /dev/null
  mentions err "one buffer filled once"
  run_status st vmsplice --strict --refill write -p seq -s 1M 2> err | cat > out
  status_in 2 st "vmsplice --strict --refill write"
  mentions err "not with --strict"
  [ ! -s out ] || fail "--strict --refill write wrote $(wc -c < out) bytes"
  run_status st vmsplice --refill nosuch 2> err | cat > /dev/null
  status_in 2 st "vmsplice --refill nosuch"
  mentions err "unknown way 'nosuch'"
}

tcase t_refill_write_edges "--refill write: sizes off the page and pipe boundaries, -v, a reader that left"
t_refill_write_edges() {
  needs_fallback
  refill_edges write
}

# hazard NAME CONSUMER: --reuse --clear through CONSUMER, reported by name.
hazard() {
  chain seq "--reuse --clear -s 64M" "$2"
  if [ "$(cat c3.st)" -eq 0 ]; then
    echo "NOTE: --reuse through $1: kernel copies (no wrong byte)"
  else
    echo "NOTE: --reuse through $1: hazard present ($(sed 's/.*: byte/byte/' c.err))"
  fi
}

tcase t_reuse_hazard "--reuse --clear: exact into a copying reader; the hazard via others, named"
t_reuse_hazard() {
  # The 2006 rule holds for a reader that copies what it reads.
  run_status st vmsplice -p seq --reuse --clear -s 64M |
    vmsplice-touser --verify seq -c > count || fail "--reuse into a copying reader"
  status_in 0 st "vmsplice --reuse"
  counted count 67108864 "vmsplice --reuse | vmsplice-touser"
  # Informational: what the suite shows is the hazard the default mode avoids.
  hazard "splice-cat" "splice-cat"
  hazard "splice-cat | splice-cat" "splice-cat | splice-cat"
  hazard "a slow splice-cat" "sleep 0.3; splice-cat"
  if command -v pv > /dev/null 2>&1; then
    hazard "pv" "pv -q"
  fi
}

tcase t_options_verified "--unalign, --gift, --huge, --busy, --pipe-size 4096, --reuse: verified"
t_options_verified() {
  # seq for the patterns refilled (each word its own offset: a byte lost,
  # doubled or moved shows), fill:1 for those that never change and are
  # never refilled; ramp and random take the same two paths.
  pats="seq fill:1"
  for opts in "-u" "--unalign --clear" "-g" "--gift --clear" "--huge" "--huge --clear" "--busy" \
    "--busy --huge" "--pipe-size 4096" "--pipe-size 4096 --clear -u" "-v --progress"; do
    for p in $pats; do
      chain_ok "$p" "$opts -s 3M" splice-cat 3145728
      chain_ok "$p" "$opts -s 1048583" cat 1048583
    done
  done
  # --reuse is exact only into a reader that copies.
  for opts in "--reuse" "--reuse -u --huge" "--reuse --busy -g" "--reuse --pipe-size 4096"; do
    for p in $pats; do
      chain_ok "$p" "$opts -s 3M" cat 3145728
      chain_ok "$p" "$opts -s 1048583" "" 1048583
    done
  done
}

tcase t_pipe_size_granted "--pipe-size past pipe-max-size: one note, what was asked, granted and why"
t_pipe_size_granted() {
  max=$(cat /proc/sys/fs/pipe-max-size)
  ask=$((max * 64))
  vmsplice -v --pipe-size "$ask" -s 1M -p seq 2> err | vmsplice-touser --verify seq ||
    fail "vmsplice --pipe-size $ask: wrong bytes"
  got=$(sed -n 's/^vmsplice: pipe capacity: \([0-9]*\) bytes.*/\1/p' err)
  [ "${got:-0}" -lt "$ask" ] || skip "this user may pass pipe-max-size (CAP_SYS_RESOURCE)"
  note="--pipe-size: asked for $ask bytes, got $got: /proc/sys/fs/pipe-max-size is $max"
  [ "$(grep -c -- "^vmsplice: $note$" err)" -eq 1 ] || { cat err >&2; fail "vmsplice: no note"; }
  # Every pipe a tool grows is refused the same way: it is said once.
  random_file f 1000000
  cat f | splice-tee --pipe-size "$ask" a b c 2> err | cat > g
  same f g
  same f c
  [ "$(grep -c -- "^splice-tee: $note$" err)" -eq 1 ] || { cat err >&2; fail "splice-tee: not once"; }
  [ "$(wc -l < err)" -eq 1 ] || { cat err >&2; fail "splice-tee: more than the note"; }
  splice-cat --pipe-size "$ask" f 2> err | cat > g
  same f g
  [ "$(grep -c -- "^splice-cat: $note$" err)" -eq 1 ] || { cat err >&2; fail "splice-cat: no note"; }
}

tcase t_verbose "-v names the pipe capacity in bytes and pages, the mode and the rate; --progress"
t_verbose() {
  vmsplice -v -p seq -s 8M 2> err | cat > /dev/null
  mentions err "pipe 1048576 bytes (256 pages)"
  mentions err "fresh pages"
  # The tool named once: not "vmsplice: vmsplice: ...".
  mentions err "^vmsplice: 8388608 bytes by vmsplice(2) in .* MiB/s"
  vmsplice -v -p zero -s 8M 2> err | cat > /dev/null
  mentions err "filled once"
  vmsplice -v --reuse -p seq -s 8M 2> err | cat > /dev/null
  mentions err "reuse"
  vmsplice -v --pipe-size 4096 -s 8M 2> err | cat > /dev/null
  mentions err "pipe 4096 bytes (1 page)"
  mentions err "pipe capacity: 4096 bytes (1 page)$"
  vmsplice -v -s inf 2> err | head -c 1000000 > /dev/null || :
  mentions err "endless"
  vmsplice --progress -p seq -s 64M 2> err | cat > /dev/null
  mentions err "67108864 bytes ( 67 MB,   64 MiB) copied"
  vmsplice -p seq -s 64M | vmsplice-touser --progress -v --verify seq 2> err
  mentions err "67108864 bytes ( 67 MB,   64 MiB) copied"
  mentions err "67108864 bytes match pattern seq"
}

tcase t_default_size "no -s: one round, two pipe capacities; -s inf runs until the reader stops"
t_default_size() {
  n=$(vmsplice -p seq | vmsplice-touser --verify seq -c)
  [ "$n" -eq 2097152 ] || fail "default size $n, expected 2097152"
  n=$(vmsplice --pipe-size 64K | wc -c)
  [ "$n" -eq 131072 ] || fail "default size with a 64 KiB pipe: $n"
  n=$( { vmsplice -s inf -p seq 2> /dev/null || :; } | head -c 100000000 |
    vmsplice-touser --verify seq -c)
  [ "$n" -eq 100000000 ] || fail "-s inf | head -c 100000000: $n bytes"
}

tcase t_vmsplice_stdout_not_pipe "stdout a file or /dev/null: the same bytes by write(2); --strict refuses"
t_vmsplice_stdout_not_pipe() {
  needs_fallback
  for p in seq ramp zero; do
    vmsplice -p "$p" -s 1048583 -v > file 2> err || fail "vmsplice > file"
    mentions err "write"
    [ "$(vmsplice-touser --verify "$p" -c < file)" -eq 1048583 ] || fail "-p $p > file"
  done
  vmsplice -p random:5 --clear -s 5M > file || fail "--clear > file"
  [ "$(vmsplice-touser --verify random:5 -c < file)" -eq 5242880 ] || fail "--clear > file"
  vmsplice -s 1G -p seq -v > /dev/null 2> err || fail "vmsplice > /dev/null"
  mentions err "1073741824 bytes by read(2)/write(2)"
}

tcase t_strict_not_pipe "--strict with stdout not a pipe: exit 1, says it needs a pipe"
t_strict_not_pipe() {
  run_status st vmsplice --strict -s 10 > file 2> err
  status_in 1 st "vmsplice --strict > file"
  mentions err "not a pipe"
  mentions err "strict"
  [ ! -s file ] || fail "--strict wrote to the file"
  run_status st vmsplice-touser --strict -c < file > out 2> err
  status_in 1 st "vmsplice-touser --strict < file"
  mentions err "standard input: not a pipe"
}

tcase t_closed_reader "a reader that exits (| head -c 1) ends vmsplice by SIGPIPE, as yes(1)"
t_closed_reader() {
  run_status st vmsplice -s inf -p seq | head -c 1 > /dev/null
  run_status refst yes | head -c 1 > /dev/null
  status_in 141 st "vmsplice -s inf | head -c 1"
  status "$(cat refst)" "$(cat st)" "status differs from yes's"
  # SIGPIPE ignored: EPIPE, reported against standard output, exit 1.
  reader_leaves vmsplice -s inf -p seq
  status_in 1 st "vmsplice with SIGPIPE ignored"
  mentions err "vmsplice: standard output: vmsplice: Broken pipe"
}

tcase t_vmsplice_usage_errors "bad patterns, seeds, sizes and options: exit 2, named, with a hint"
t_vmsplice_usage_errors() {
  for bad in "-p bogus" "-p fill" "-p fill:" "-p fill:256" "-p fill:x" "-p fill:-1" "-p random:" \
    "-p random:x" "-p random:-1" "-p random:18446744073709551616" "-p seq:1" "-p Zero" \
    "-s -1" "-s 1Q" "-s abc" "-s 18446744073709551616" "-s infinite" "--pipe-size 0" \
    "--bogus" "-x" "extra"; do
    # shellcheck disable=SC2086
    run_status st vmsplice $bad > out 2> err
    status_in 2 st "vmsplice $bad"
    mentions err "Try 'vmsplice --help'"
    [ ! -s out ] || fail "vmsplice $bad wrote to stdout"
  done
  run_status st vmsplice -p bogus 2> err
  mentions err "vmsplice: --pattern: unknown pattern 'bogus'"
  run_status st vmsplice -p random:x 2> err
  mentions err "seed"
  run_status st vmsplice -p fill:256 2> err
  mentions err "0 to 255"
  run_status st vmsplice -s 1Q 2> err
  mentions err "size"
  for bad in "--verify bogus" "--verify random:z" "--verify" "--chunk 0" "--chunk 2G" "-s x" \
    "-s -1" "--compare" "--compare f --verify seq" "-q"; do
    # shellcheck disable=SC2086
    run_status st vmsplice-touser $bad < /dev/null > out 2> err
    status_in 2 st "vmsplice-touser $bad"
    mentions err "Try 'vmsplice-touser --help'"
  done
}

tcase t_verify_mismatch "--verify names the first wrong byte, counted from 1 as --compare and cmp count, exit 1; --quiet says nothing; a short stream is not wrong"
t_verify_mismatch() {
  gen f -p seq -s 100000
  # Change byte 70001.
  { head -c 70001 f; printf 'Z'; tail -c +70003 f; } > g
  [ "$(wc -c < g)" -eq 100000 ] || fail "could not make g"
  run_status st sh -c 'cat g | vmsplice-touser --verify seq' 2> err
  status_in 1 st "verify of a changed stream"
  mentions err "vmsplice-touser: standard input: byte 70002 is 0x5a, expected 0x11 (pattern seq)"
  # cmp numbers the same byte the same way.
  cmp f g > cmp.out || :
  mentions cmp.out "byte 70002,"
  run_status st sh -c 'cat f | vmsplice-touser --verify ramp' 2> err
  status_in 1 st "seq checked as ramp"
  mentions err "byte 2 is 0x00, expected 0x01"
  run_status st sh -c 'vmsplice -p random:1 | vmsplice-touser --verify random:2' 2> err
  status_in 1 st "another seed"
  mentions err "byte 1 is"
  run_status st sh -c 'cat g | vmsplice-touser --verify seq --quiet' > out 2> err
  status_in 1 st "--verify --quiet of a changed stream"
  [ ! -s out ] && [ ! -s err ] || fail "--verify --quiet said something"
  head -c 4097 f | vmsplice-touser --verify seq || fail "a prefix is right"
}

tcase t_touser_dump_count "-d matches od -A d -t x1z -v, -c counts, stdin a file by read(2)"
t_touser_dump_count() {
  for n in 0 1 15 16 17 4097 70000; do
    gen f -p ramp -s "$n"
    cat f | vmsplice-touser -d > out || fail "-d $n"
    od -A d -t x1z -v f > ref
    same ref out
    [ "$(cat f | vmsplice-touser -c)" -eq "$n" ] || fail "-c $n"
  done
  random_file r 300000
  cat r | vmsplice-touser --chunk 7 -d > out || fail "--chunk 7 -d"
  od -A d -t x1z -v r > ref
  same ref out
  if [ -z "${STRICT:-}" ]; then
    vmsplice-touser -v -d < r > out 2> err || fail "stdin a file"
    same ref out
    mentions err "300000 bytes by read(2)/write(2)"
  fi
}

tcase t_touser_nonblock "-n, and an inherited O_NONBLOCK stdin: every byte, checked"
t_touser_nonblock() {
  nb=$(helper with-flags)
  { vmsplice -p seq -s 20M; sleep 0.3; } | vmsplice-touser -n --verify seq -c > count ||
    fail "-n"
  counted count 20971520 "-n"
  { sleep 0.3; vmsplice -p seq -s 20M; } | "$nb" 0:nonblock -- vmsplice-touser --verify seq -c > count ||
    fail "O_NONBLOCK stdin"
  counted count 20971520 "O_NONBLOCK stdin"
  # vmsplice ignores an O_NONBLOCK stdout: it waits, loses nothing.
  run_status st "$nb" 1:nonblock -- vmsplice -p seq -s 20M |
    { sleep 0.3; vmsplice-touser --verify seq -c > count; }
  status_in 0 st "vmsplice to a non-blocking pipe"
  counted count 20971520 "O_NONBLOCK stdout"
}

tcase t_peak_rss "fresh pages do not pile up: peak RSS of -s 4G -p seq <= 4 pipe capacities + 2 MiB"
t_peak_rss() {
  [ -x /usr/bin/time ] || skip "GNU time is not installed"
  if grep -q __asan_init "$BINDIR/vmsplice" 2> /dev/null; then
    skip "a sanitized build measures the sanitizer's memory"
  fi
  [ -z "${VALGRIND:-}" ] || skip "valgrind measures its own memory"
  run_status st /usr/bin/time -f %M -o rss vmsplice -v -s 4G -p seq 2> err | splice-cat > /dev/null
  status_in 0 st "vmsplice -s 4G -p seq"
  cap=$(sed -n 's/.* pipe \([0-9]*\) bytes.*/\1/p' err)
  [ -n "$cap" ] || { cat err >&2; fail "no pipe capacity in -v"; }
  kib=$(tail -n 1 rss)
  # Two regions of two capacities each are mapped at a time (the one going
  # into the pipe and the last one, unmapped late).
  limit=$(( (4 * cap + 2097152) / 1024 ))
  echo "peak RSS $kib KiB, limit $limit KiB (pipe $cap bytes)"
  [ "$kib" -le "$limit" ] || fail "peak RSS $kib KiB > $limit KiB"
  # The same with --unalign, --clear and random.
  run_status st /usr/bin/time -f %M -o rss vmsplice -u --clear -s 1G -p random |
    splice-cat > /dev/null
  status_in 0 st "vmsplice -u --clear -s 1G -p random"
  kib=$(tail -n 1 rss)
  [ "$kib" -le "$limit" ] || fail "-u --clear: peak RSS $kib KiB > $limit KiB"
}

tcase t_vmsplice_help_version "--help on stdout exit 0, every option; --version names the suite"
t_vmsplice_help_version() {
  help_lists vmsplice --size --pattern --reuse --clear --gift --unalign --huge --busy --strict \
    --progress --pipe-size --verbose "random\[:SEED\]"
  help_lists vmsplice-touser --verify --dump --count --size --nonblock --strict --pipe-size
}

tcase t_touser_nonblocking_stdout "vmsplice-touser -d into an O_NONBLOCK stdout pipe: the whole dump, as od"
t_touser_nonblocking_stdout() {
  nb=$(helper with-flags)
  vmsplice -s 1M -p ramp | cat > data
  od -A d -t x1z -v < data > ref
  { vmsplice -s 1M -p ramp | run_status st "$nb" 1:nonblock -- vmsplice-touser -d; } |
    { sleep 1; cat; } > out
  status_in 0 st "vmsplice-touser -d to a non-blocking pipe"
  same ref out
}

tcase t_touser_rdwr_fifo "vmsplice-touser on a FIFO opened read-write: never vmsplices into it"
t_touser_rdwr_fifo() {
  mkfifo ff
  # vmsplice(2) on a writable pipe descriptor would write, not read.
  run_status st timeout 5 vmsplice-touser --strict -c <> ff 2> err
  status_in 1 st "vmsplice-touser --strict <> fifo"
  mentions err "a pipe open for writing too"
}

tcase t_touser_requests "vmsplice-touser: half the pipe per call, 64 KiB at least; --chunk wins"
t_touser_requests() {
  need strace
  ere='vmsplice\(0, \[\{iov_base=.*, iov_len='
  reader_asks 1M 524288 vmsplice "$ere" vmsplice-touser -c
  counted asks.out 8388608 "vmsplice-touser -c"
  reader_asks 64K 65536 vmsplice "$ere" vmsplice-touser -c
  reader_asks 1M 1048576 vmsplice "$ere" vmsplice-touser -c --chunk 1M
  reader_asks 1M 5000 vmsplice "$ere" vmsplice-touser -c --chunk 5000
  counted asks.out 8388608 "vmsplice-touser -c with --chunk 5000"
}

tcase t_text_pattern "-p text:STRING, C escapes: text:y and a newline is yes, text:STR and one is yes STR"
t_text_pattern() {
  for n in 0 1 2 4095 4096 1048577 67108865; do
    yes | head -c "$n" > ref
    gen out -p 'text:y\n' -s "$n"
    same ref out
  done
  # Endless, as yes is, until the reader stops.
  run_status st vmsplice -p 'text:y\n' -s inf | head -c 10000000 > out
  yes | head -c 10000000 > ref
  same ref out
  # A string whose length divides no pipe capacity, through every way of
  # refilling, and checked by --verify with the same pattern.
  yes 'hello, world' | head -c 67108871 > ref
  ways="fresh stream memfd reuse"
  [ -n "${STRICT:-}" ] || ways="$ways write"
  for how in $ways; do
    gen out -p 'text:hello, world\n' --refill "$how" -s 67108871
    same ref out
  done
  cat ref | vmsplice-touser --verify 'text:hello, world\n' -c > count ||
    fail "--verify text: did not pass yes's output"
  counted count 67108871 "--verify text"
  # Every escape of C: \a \b \t \n \v \f \r \e \\ \' \" \? \ooo \xHH.
  printf '\a\b\t\n\v\f\r\033\\'"'"'"?A\0\001\377' > unit
  for _ in 1 2 3 4 5 6 7; do cat unit unit unit unit unit unit unit; done > ref
  n=$(wc -c < ref)
  gen out -p 'text:\a\b\t\n\v\f\r\e\\\'"'"'\"\?\101\0\x01\xff' -s "$n"
  same ref out
  for bad in 'text:' 'text:\q' 'text:\x' 'text:\xg' 'text:a\' 'text:\400'; do
    run_status st vmsplice -p "$bad" > out 2> err
    status_in 2 st "vmsplice -p '$bad'"
    mentions err "text"
    [ ! -s out ] || fail "vmsplice -p '$bad' wrote to stdout"
  done
}

tcase t_touser_size "vmsplice-touser -s SIZE reads SIZE bytes and stops, as vmsplice -s writes them; inf"
t_touser_size() {
  for n in 0 1 4097 1048576 3000001; do
    run_status st vmsplice -p seq -s 8M |
      vmsplice-touser -s "$n" --verify seq -c > count || fail "-s $n"
    counted count "$n" "vmsplice-touser -s $n"
  done
  vmsplice -p seq -s 1M | vmsplice-touser --size inf -c > count || fail "--size inf"
  counted count 1048576 "vmsplice-touser --size inf"
  # Past the end: what there is.
  vmsplice -p seq -s 1M | vmsplice-touser -s 2M -c > count || fail "-s 2M"
  counted count 1048576 "vmsplice-touser -s 2M of 1M"
  # A file by read(2), and the bytes are the first SIZE.
  if [ -z "${STRICT:-}" ]; then
    random_file r 100000
    vmsplice-touser -s 4097 -d < r > out || fail "-s 4097 < file"
    head -c 4097 r | od -A d -t x1z -v > ref
    same ref out
  fi
}

# like_cmp REF: `vmsplice-touser --compare REF` against `cmp - REF`, stdin
# the file "in" through a pipe: the same stdout, exit status and stderr
# (cmp's name for its own).
like_cmp() {
  cat in | run_status ref.st cmp - "$1" > ref.out 2> ref.err
  cat in | run_status st vmsplice-touser --compare "$1" > out 2> err
  same ref.out out
  sed 's/^cmp: /vmsplice-touser: /' ref.err > exp.err
  same exp.err err
  status "$(cat ref.st)" "$(cat st)" "vmsplice-touser --compare $1 (cmp - $1)"
}

tcase t_touser_compare "vmsplice-touser --compare FILE: cmp's message and status on the first difference, 2 for trouble, --quiet as cmp -s"
t_touser_compare() {
  seq 1 300000 > in
  cp in same
  like_cmp same
  # A byte changed far in, on line 250001.
  sed '250001s/^2/X/' in > changed
  like_cmp changed
  # One a prefix of the other: at a line's end and inside a line; empty.
  head -c 1000000 in > short
  like_cmp short
  head -n 1000 in > lines
  like_cmp lines
  : > empty
  like_cmp empty
  cp in long
  cp lines in
  like_cmp long
  : > in
  like_cmp long
  like_cmp empty
  # Trouble is 2, as cmp's: a FILE missing, a directory, unreadable.
  for file in missing . ; do
    : | run_status st cmp - "$file" 2> /dev/null
    status_in 2 st "cmp - $file"
    : | run_status st vmsplice-touser --compare "$file" 2> err
    status_in 2 st "--compare $file"
  done
  mentions err "vmsplice-touser: \.: Is a directory"
  : | run_status st vmsplice-touser --compare missing 2> err
  mentions err "vmsplice-touser: missing: No such file or directory"
  # --quiet and --silent: cmp -s's silence, the same statuses.
  for quiet in --quiet --silent; do
    for file in same changed short empty missing; do
      run_status st.cmp cmp -s - "$file" < in
      # A pipe, which --strict needs.
      cat in | run_status st vmsplice-touser "$quiet" --compare "$file" > out 2> err
      status_in "$(cat st.cmp)" st "vmsplice-touser $quiet --compare $file (cmp -s)"
      [ ! -s out ] || fail "$quiet --compare $file wrote on stdout"
      [ "$file" = missing ] || [ ! -s err ] || fail "$quiet --compare $file said something"
    done
  done
}

# seq_count FILE: what `vmsplice-touser --verify seq -c` printed must be 8 MiB.
seq_count() {
  [ "$(cat "$1")" = 8388608 ] || fail "verified $(cat "$1") bytes, expected 8388608"
}

tcase t_touser_reader_gone_sigpipe_ignored "vmsplice-touser -d, SIGPIPE ignored, reader gone: stops, exit 1, a message"
t_touser_reader_gone_sigpipe_ignored() {
  { run_status st timeout 10 sh -c \
    'trap "" PIPE; vmsplice -s inf 2> /dev/null | exec vmsplice-touser -d' 2> err; } |
    head -c 1 > /dev/null
  hung "vmsplice -s inf | vmsplice-touser -d | head -c 1"
  status_in 1 st "vmsplice-touser -d with its reader gone"
  mentions err "vmsplice-touser: standard output"
}

tcase t_pattern_numbers_decimal "fill:010 and random:010 are decimal 10, not octal; 0x10 is hex"
t_pattern_numbers_decimal() {
  vmsplice -s 16 -p fill:010 | od -An -tx1 -v | tr -d ' \n' > got
  [ "$(cat got)" = 0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a ] || fail "fill:010 gave $(cat got)"
  vmsplice -s 16 -p fill:0x10 | od -An -tx1 -v | tr -d ' \n' > got
  [ "$(cat got)" = 10101010101010101010101010101010 ] || fail "fill:0x10 gave $(cat got)"
  vmsplice -s 4096 -p random:010 | cat > r010
  vmsplice -s 4096 -p random:10 | cat > r10
  vmsplice -s 4096 -p random:8 | cat > r8
  same r10 r010
  ! cmp -s r8 r010 || fail "random:010 is random:8"
  vmsplice -s 1M -p fill:10 | vmsplice-touser --verify fill:010 -c > n ||
    fail "--verify fill:010 refused fill:10 data"
}

tcase t_touser_dump_stops_at_mismatch "--verify with -d: a mismatch keeps the last dump line and the final offset"
t_touser_dump_stops_at_mismatch() {
  # 20 zero bytes but byte 18: mismatch at 18, a partial second line; the
  # dump stops after the first wrong byte, as the page says.
  printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1\0' > in
  head -c 19 in | od -A d -t x1z -v > ref
  { cat in | run_status st vmsplice-touser --verify zero -d 2> err; } | cat > out
  status_in 1 st "vmsplice-touser --verify zero -d, a wrong byte"
  mentions err "byte 19 is 0x01"
  same ref out
}

tcase t_size_max_is_finite "vmsplice -s 2^64-1 is a size, not endless (only 'inf' is)"
t_size_max_is_finite() {
  { vmsplice -v -s inf 2> inf.err; } | head -c 1M > /dev/null
  { run_status st vmsplice -v -s 18446744073709551615 2> max.err; } |
    head -c 1M > /dev/null
  # Refused as too large is fine too.
  [ "$(cat st)" -ne 2 ] || return 0
  grep -i 'zero' inf.err > inf.line || fail "no -v line for -s inf: $(cat inf.err)"
  grep -i 'zero' max.err > max.line || fail "no -v line for -s 2^64-1: $(cat max.err)"
  ! cmp -s inf.line max.line || fail "-s 18446744073709551615 taken as inf: $(cat max.line)"
}

tcase t_vmsplice_closed_std_fds "vmsplice with 0, 1, 2 closed: stdout needed (exit 1), the others filled, exact"
t_vmsplice_closed_std_fds() {
  for r in "<&-" "2>&-" "<&- 2>&-"; do
    closed_run "$r" "vmsplice -p seq -s 3M"
    status_in 0 st "vmsplice $r"
    vmsplice-touser --verify seq -c < out > n 2> /dev/null || [ -n "${STRICT:-}" ] ||
      fail "vmsplice $r: wrong bytes"
    [ "$(wc -c < out)" -eq 3145728 ] || fail "vmsplice $r: $(wc -c < out) bytes"
  done
  closed_run ">&-" "vmsplice -s 3M"
  status_in 1 st "vmsplice >&-"
  mentions err "standard output"
  closed_run "<&- >&- 2>&-" "vmsplice -s 3M"
  status_in 1 st "vmsplice, 0 1 2 closed"
  need_fd_trace
  fd_trace "<&- 2>&-" "vmsplice -p seq -s 3M"
  status_in 0 st "vmsplice <&- 2>&- (strace)"
  not_on_0_2 "vmsplice <&- 2>&-"
}

tcase t_touser_closed_std_fds "vmsplice-touser with 0, 1, 2 closed: needed ones named, exit 1; others filled"
t_touser_closed_std_fds() {
  seq_ref in 3145728
  closed_run "<&-" "vmsplice-touser --verify seq -c"
  status_in 1 st "vmsplice-touser <&-"
  mentions err "standard input"
  closed_run ">&-" "vmsplice-touser --verify seq -c"
  status_in 1 st "vmsplice-touser -c >&-"
  mentions err "standard output"
  # --verify alone writes nothing on success: stdout not needed.
  closed_run ">&-" "vmsplice-touser --verify seq"
  status_in 0 st "vmsplice-touser --verify seq >&-"
  closed_run "2>&-" "vmsplice-touser --verify seq -c"
  status_in 0 st "vmsplice-touser 2>&-"
  count_is out 3145728
  closed_run "<&- >&- 2>&-" "vmsplice-touser -c"
  status_in 1 st "vmsplice-touser -c, 0 1 2 closed"
  need_fd_trace
  fd_trace ">&- 2>&-" "vmsplice-touser --verify seq"
  status_in 0 st "vmsplice-touser --verify seq >&- 2>&- (strace)"
  not_on_0_2 "vmsplice-touser --verify seq >&- 2>&-"
}

tcase t_vmsplice_pipe_resized_mid_stream "vmsplice: the reader grows or shrinks the pipe mid-stream: exact"
t_vmsplice_pipe_resized_mid_stream() {
  seq_ref ref 33554432
  reader_resizes "vmsplice --pipe-size 64K" 1M vmsplice -p seq -s 32M --pipe-size 64K
  reader_resizes "vmsplice" 4K vmsplice -p seq -s 32M
  reader_resizes "vmsplice --reuse" 4K vmsplice --reuse -p seq -s 32M
}

tcase t_touser_pipe_resized_mid_stream "vmsplice-touser: the writer grows or shrinks its stdin pipe mid-stream: exact"
t_touser_pipe_resized_mid_stream() {
  seq_ref ref 16777216
  parts ref
  for size in 1M 4K; do
    { cat p1; sleep 0.5; splice-cat --pipe-size "$size" p2; } |
      { run_status st timeout 30 vmsplice-touser --verify seq -c > n 2> err; }
    cat err >&2
    status_in 0 st "vmsplice-touser, writer resizes to $size"
    count_is n 16777216
  done
}

tcase t_vmsplice_mmap_enomem "vmsplice, vmsplice-touser: ENOMEM from their mmap: exit 1, a message, no output"
t_vmsplice_mmap_enomem() {
  need strace
  for tool in vmsplice vmsplice-touser; do
    ! grep -q __asan_init "$BINDIR/$tool" || skip "sanitizer runtime: its own mmaps would fail"
    # The binary itself (no wrapper), so that the count of mmaps is its own.
    # Skip the dynamic loader's mmaps: the tool's own come after rseq(2).
    if [ "$tool" = vmsplice ]; then
      traced -o trace -e trace=mmap,rseq,set_robust_list "$BINDIR/vmsplice" \
        ${STRICT:+--strict} -s 1M 2> /dev/null | cat > /dev/null
    else
      vmsplice -s 1M | traced -o trace -e trace=mmap,rseq,set_robust_list \
        "$BINDIR/vmsplice-touser" ${STRICT:+--strict} -c > /dev/null 2>&1
    fi
    k=$(awk '/^(rseq|set_robust_list)\(/ { print n; exit } /^mmap\(/ { n++ }' trace)
    [ -n "$k" ] || skip "no rseq/set_robust_list in the trace to tell the loader's mmaps"
    when=$((k + 1))
    # strace without -f, unlike inject: the WHEN-th mmap is the tool's own.
    if [ "$tool" = vmsplice ]; then
      { run_status st traced -o /dev/null -e trace=mmap \
        -e inject=mmap:error=ENOMEM:when="$when"+ \
        "$BINDIR/vmsplice" ${STRICT:+--strict} -p seq -s 8M 2> err; } | cat > out
      [ ! -s out ] || fail "vmsplice wrote $(wc -c < out) bytes though it has no buffer"
    else
      { vmsplice -p seq -s 8M | run_status st traced -o /dev/null -e trace=mmap \
        -e inject=mmap:error=ENOMEM:when="$when"+ "$BINDIR/vmsplice-touser" ${STRICT:+--strict} \
        --verify seq -c 2> err; } | cat > out
    fi
    hung "$tool with mmap ENOMEM"
    status_in 1 st "$tool with mmap ENOMEM"
    mentions err "Cannot allocate memory"
  done
}

tcase t_vmsplice_signals_mid_transfer "vmsplice and vmsplice-touser: SIGTERM, SIGINT, SIGHUP mid-transfer: 128+N"
t_vmsplice_signals_mid_transfer() {
  need_default_signal
  mkfifo a b
  for sig in TERM INT HUP; do
    drain b
    start_tool /dev/null b err vmsplice -s inf -p seq
    signalled vmsplice "$sig" b.got
    # -d: its dump says that it reads.
    feed a
    drain b
    start_tool a b err vmsplice-touser --verify seq -d
    signalled vmsplice-touser "$sig" b.got
  done
}

tcase t_vmsplice_results_unwritable "results into /dev/full and a closed stdout: vmsplice-touser -c/-d, vmsplice: exit 1"
t_vmsplice_results_unwritable() {
  for opts in "-c" "-d" "--verify seq -c"; do
    # shellcheck disable=SC2086
    { vmsplice -p seq -s 1M | run_status st timeout 10 vmsplice-touser $opts > /dev/full 2> err; }
    hung "vmsplice-touser $opts > /dev/full"
    status_in 1 st "vmsplice-touser $opts > /dev/full"
    mentions err "No space left on device"
    # shellcheck disable=SC2086
    { vmsplice -p seq -s 1M | run_status st timeout 10 vmsplice-touser $opts >&- 2> err; }
    hung "vmsplice-touser $opts >&-"
    status_in 1 st "vmsplice-touser $opts >&-"
    mentions err "standard output"
  done
  run_status st timeout 10 vmsplice -s 1M > /dev/full 2> err
  hung "vmsplice > /dev/full"
  status_in 1 st "vmsplice > /dev/full"
  [ -n "${STRICT:-}" ] || mentions err "No space left on device"
}

tcase t_vmsplice_eintr_eagain "vmsplice and vmsplice-touser: EINTR and EAGAIN in the 3rd vmsplice: exact"
t_vmsplice_eintr_eagain() {
  need strace
  for err in EINTR EAGAIN; do
    run_status st inject "vmsplice:$err:3" vmsplice -p seq -s 8M |
      vmsplice-touser --verify seq -c > n || fail "verify after $err in vmsplice"
    status_in 0 st "vmsplice with $err"
    seq_count n
    vmsplice -p seq -s 8M | inject "vmsplice:$err:3" vmsplice-touser --chunk 64K --verify seq -c > n ||
      fail "vmsplice-touser with $err"
    seq_count n
  done
}

tcase t_vmsplice_refused "vmsplice: ENOSYS or EINVAL from vmsplice(2): a clear error, exit 1"
t_vmsplice_refused() {
  need strace
  for err in ENOSYS EINVAL; do
    for when in 1 3; do
      run_status st inject "vmsplice:$err:$when" vmsplice -p seq -s 8M 2> err | cat > out
      status_in 1 st "vmsplice with $err in call $when"
      mentions err "vmsplice: standard output: vmsplice: "
      [ "$(wc -c < out)" -lt 8388608 ] || fail "every byte arrived, yet vmsplice failed"
    done
  done
}

tcase t_touser_refused "vmsplice-touser: ENOSYS from vmsplice(2): a clear error, exit 1, not a short pass"
t_touser_refused() {
  need strace
  vmsplice -p seq -s 8M |
    run_status st inject vmsplice:ENOSYS:3 vmsplice-touser --chunk 64K --verify seq -c > n 2> err
  status_in 1 st "vmsplice-touser with ENOSYS"
  mentions err "vmsplice-touser: standard input: Function not implemented"
}

tcase t_terminal_habits \
  "on a 40- and an 80-column terminal: vmsplice without -s refuses, as gzip does; with -s it writes; vmsplice-touser with nothing to do says what it did"
t_terminal_habits() {
  pty=$(helper pty-screen)
  for cols in 40 80; do
    run_status st "$pty" -s "${cols}x24" -o raw -- vmsplice > screen
    status_in 1 st "vmsplice on a ${cols}-column terminal"
    # The words, however the terminal wrapped them.
    tr -d ' \n' < screen | grep -q "standardoutputisaterminal:give-sSIZEtowritethereanyway,orredirectit" ||
      { cat screen >&2; fail "$cols columns: no refusal on the screen"; }
    [ "$(tr -cd '\000' < raw | wc -c)" = 0 ] || fail "$cols columns: binary written to the terminal"
    # Asked for with -s, it writes (by write(2): a terminal is no pipe, which --strict needs).
    [ -z "${STRICT:-}" ] || continue
    run_status st "$pty" -s "${cols}x24" -- vmsplice -s 7 -p text:abc > screen
    status_in 0 st "vmsplice -s 7 on a ${cols}-column terminal"
    mentions screen "^abcabca"
  done
  # Nothing asked of vmsplice-touser: the count, and what would check it.
  printf abc | vmsplice-touser > out 2> err || fail "vmsplice-touser with no option"
  [ ! -s out ] || fail "vmsplice-touser with no option wrote on stdout"
  mentions err "^vmsplice-touser: 3 bytes read and dropped: -c counts them"
}

run_area "$@"
