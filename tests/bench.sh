#!/bin/sh
# splice-bench: every case runs, every case checks its data, a wrong byte
# fails loudly, and the options do what they say.  Rates are not judged here:
# the machine may be busy.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

ALL_CASES="pipe-rw-64k pipe-rw-1m vmsplice-splice vmsplice-huge vmsplice-busy vmsplice-read
file-pipe-splice file-pipe-rw file-file-splice file-file-cfr file-file-rw
tcp-rw tcp-sendfile tcp-splice tcp-mmap tcp-sendfile-pipe tcp-splice-pipe tcp-vmsplice-pipe
tee-tee tee-copy"

# csv_field FILE CASE N: field N of CASE's row.
csv_field() {
  awk -F, -v c="$2" -v n="$3" '$1 == c { print $n }' "$1"
}

tcase --long t_csv_rows "-t 0.2 --csv: exit 0, every case once, in order, every row verified"
t_csv_rows() {
  run_status st splice-bench -t 0.2 --csv > out 2> err
  cat err >&2
  status_in 0 st "splice-bench -t 0.2 --csv"
  head -n 1 out > header
  printf '%s\n' "case,pipe_bytes,bytes_per_run,runs,gib_s,gib_s_min,gib_s_max,cpu_s_per_gib" \
    | sed 's/$/,ratio_rw,verified/' > want
  same want header
  tail -n +2 out | cut -d, -f1 > got
  # shellcheck disable=SC2086 # one word per case
  printf '%s\n' $ALL_CASES > want
  same want got
  splice-bench --list | awk '{ print $1 }' > listed
  same want listed
  # Every row: verified, a positive rate, min <= median <= max, 3 runs, CPU time measured.
  tail -n +2 out | awk -F, '
    $10 != "yes" { print $1 ": not verified"; bad = 1 }
    !($5 > 0 && $6 <= $5 && $5 <= $7) { print $1 ": rates " $6 " " $5 " " $7; bad = 1 }
    $4 != 3 || $3 < 1 { print $1 ": runs " $4 ", bytes " $3; bad = 1 }
    $8 == "" || $8 < 0 { print $1 ": CPU " $8; bad = 1 }
    END { exit bad }' >&2 || fail "bad rows"
  [ "$(csv_field out pipe-rw-64k 2)" -eq 65536 ] || fail "pipe-rw-64k is not on a 64 KiB pipe"
  [ "$(csv_field out file-file-cfr 2)" -eq 0 ] || fail "file-file-cfr claims a pipe"
  [ "$(csv_field out pipe-rw-64k 9)" = "1.00" ] || fail "the write/read ratio of its own row"
}

tcase t_corrupt "--corrupt: one wrong byte fails every kind of case, names the offset, exit 1"
t_corrupt() {
  run_status st splice-bench --corrupt -t 0.05 --csv -c pipe-rw-64k -c vmsplice-splice \
    -c vmsplice-busy -c file-pipe-rw -c file-file-cfr -c tcp-sendfile -c tcp-sendfile-pipe \
    -c tcp-vmsplice-pipe -c tee-tee > out 2> err
  status_in 1 st "splice-bench --corrupt"
  for c in pipe-rw-64k vmsplice-splice vmsplice-busy file-pipe-rw file-file-cfr tcp-sendfile \
    tcp-sendfile-pipe tcp-vmsplice-pipe tee-tee; do
    [ "$(csv_field out "$c" 10)" = FAIL ] || fail "$c: not marked FAIL"
    mentions err "splice-bench: $c: wrong byte at offset 1048577"
  done
}

tcase --long t_sweep "--sweep: pipe and request sizes per case, each verified, the fixed and best marked; over TCP socket buffers and SPLICE_F_MORE too"
t_sweep() {
  run_status st splice-bench --sweep -s 1M --csv > out 2> err
  cat err >&2
  status_in 0 st "splice-bench --sweep -s 1M --csv"
  head -n 1 out > header
  echo "case,pipe_bytes,request_bytes,bytes_per_run,runs,gib_s,gib_s_min,gib_s_max,cpu_s_per_gib,ratio_fixed,verified,note,socket_bytes,more" \
    > want
  same want header
  tail -n +2 out | cut -d, -f1 | uniq > got
  printf '%s\n' vmsplice-splice vmsplice-huge vmsplice-busy file-pipe-splice tcp-sendfile \
    tcp-splice tcp-sendfile-pipe tcp-splice-pipe tcp-vmsplice-pipe tee-tee > want
  same want got
  # Per case: every row verified and 1 MiB per run; one fixed row (the 1 MiB
  # pipe read whole, ratio 1.00) and one best; the pipes and requests searched.
  tail -n +2 out > rows
  # The TCP cases have a grid of their own, below.
  grep -v '^tcp-' rows | awk -F, '
    $11 != "yes" || $4 != 1048576 || !($6 > 0) { print "row: " $0; bad = 1 }
    $12 ~ /fixed/ { fixed[$1]++; if ($2 != 1048576 || $3 != 1048576 || $10 != "1.00") {
      print "fixed: " $0; bad = 1 } }
    $12 ~ /best/ { best[$1]++ }
    { seen[$1 "," $2 "," $3] = 1; cases[$1] = 1 }
    END {
      for (c in cases) {
        if (fixed[c] != 1 || best[c] != 1) { print c ": fixed " fixed[c] ", best " best[c]; bad = 1 }
        split("65536,16384 65536,65536 262144,65536 262144,262144 1048576,65536 " \
          "1048576,262144 1048576,524288", want, " ")
        for (w in want) if (!((c "," want[w]) in seen)) { print c ": no " want[w]; bad = 1 }
      }
      exit bad
    }' >&2 || fail "bad sweep rows"
  # Over TCP, socket buffers and SPLICE_F_MORE too.
  # The case's own configuration is the fixed row: kernel autotuning (0),
  # SPLICE_F_MORE when the pipe is full, the whole 1 MiB pipe or 16 MiB of
  # sendfile(2) per call.
  grep -E '^tcp-(sendfile|vmsplice-pipe),' rows | awk -F, '
    $11 != "yes" || $4 != 1048576 || !($6 > 0) { print "row: " $0; bad = 1 }
    $12 ~ /fixed/ { fixed[$1]++
      if ($13 != 0 || $10 != "1.00") { print "fixed: " $0; bad = 1 }
      if ($1 == "tcp-sendfile" && ($3 != 16777216 || $14 != "-")) { print "fixed: " $0; bad = 1 }
      if ($1 == "tcp-vmsplice-pipe" && ($2 != 1048576 || $3 != 1048576 || $14 != "full")) {
        print "fixed: " $0; bad = 1 } }
    $12 ~ /best/ { best[$1]++ }
    { seen[$1 "," $2 "," $3 "," $13 "," $14] = 1 }
    END {
      if (fixed["tcp-sendfile"] != 1 || best["tcp-sendfile"] != 1 ||
          fixed["tcp-vmsplice-pipe"] != 1 || best["tcp-vmsplice-pipe"] != 1) {
        print "fixed or best missing"; bad = 1 }
      split("tcp-sendfile,0,16777216,262144,- tcp-sendfile,0,16777216,4194304,- " \
        "tcp-sendfile,0,65536,0,- tcp-sendfile,0,4194304,0,- " \
        "tcp-vmsplice-pipe,1048576,1048576,1048576,full " \
        "tcp-vmsplice-pipe,1048576,1048576,4194304,full " \
        "tcp-vmsplice-pipe,1048576,1048576,0,off tcp-vmsplice-pipe,1048576,1048576,0,always " \
        "tcp-vmsplice-pipe,1048576,65536,0,full tcp-vmsplice-pipe,1048576,524288,0,full " \
        "tcp-vmsplice-pipe,262144,131072,0,full", want, " ")
      for (w in want) if (!(want[w] in seen)) { print "no " want[w]; bad = 1 }
      exit bad
    }' >&2 || fail "bad TCP sweep rows: $(cat rows)"
  # tcp-rw has nothing to sweep.
  run_status st splice-bench --sweep -c tcp-rw > out 2> err
  status_in 2 st "splice-bench --sweep -c tcp-rw"
  # The text table: its header and a row per configuration.
  splice-bench --sweep -s 1M -c vmsplice-splice > out || fail "text table"
  head -n 1 out |
    grep -q '^case *pipe *request *socket *more *GiB/s *min *max *CPU s/GiB *x fixed *data *note' ||
    fail "header: $(head -n 1 out)"
  grep -q '^vmsplice-splice *1024K *256K *- *- .* yes' out || fail "no 1024K/256K row: $(cat out)"
  # A case with no request size to sweep is a usage error.
  run_status st splice-bench --sweep -c pipe-rw-64k > out 2> err
  status_in 2 st "splice-bench --sweep -c pipe-rw-64k"
  mentions err "--sweep: case 'pipe-rw-64k' has no request size to sweep"
}

tcase t_sweep_corrupt "--sweep --corrupt: a wrong byte fails every configuration, exit 1"
t_sweep_corrupt() {
  run_status st splice-bench --sweep --corrupt -s 1M --csv -c vmsplice-busy -c tee-tee \
    -c tcp-sendfile -c tcp-splice-pipe -c tcp-vmsplice-pipe > out 2> err
  status_in 1 st "splice-bench --sweep --corrupt"
  [ "$(tail -n +2 out | grep -c ',yes,')" -eq 0 ] || fail "rows verified: $(cat out)"
  [ "$(tail -n +2 out | grep -c ',FAIL,')" -ge 60 ] || fail "rows not FAIL: $(cat out)"
  mentions err "splice-bench: vmsplice-busy: wrong byte at offset 524288"
  mentions err "splice-bench: tee-tee: wrong byte at offset 524288"
  for c in tcp-sendfile tcp-splice-pipe tcp-vmsplice-pipe; do
    [ "$(grep -c "^$c,.*,FAIL," out)" -ge 12 ] || fail "$c: rows not FAIL: $(cat out)"
    mentions err "splice-bench: $c: wrong byte at offset 524288"
  done
}

tcase t_table "the default table: a header, one row per case, each row verified"
t_table() {
  splice-bench -t 0.05 -c pipe-rw-1m -c tee-copy > out 2> err || { cat err >&2; fail "exit"; }
  head -n 1 out | grep -q '^case *pipe *GiB/s *min *max *CPU s/GiB *x rw *data' ||
    fail "header: $(head -n 1 out)"
  [ "$(wc -l < out)" -eq 3 ] || fail "$(cat out)"
  grep -q '^pipe-rw-1m *1024K .* yes ' out || fail "pipe-rw-1m row: $(cat out)"
  grep -q '^tee-copy .* yes ' out || fail "tee-copy row: $(cat out)"
}

tcase t_size_runs_pipe "-s, -r, --pipe-size and --case: exact bytes, runs and pipe per row"
t_size_runs_pipe() {
  splice-bench --csv -c vmsplice-read -c file-file-rw -s 10M -r 4 --pipe-size 256K > out ||
    fail "exit"
  [ "$(wc -l < out)" -eq 3 ] || fail "$(cat out)"
  [ "$(csv_field out vmsplice-read 3)" -eq 10485760 ] || fail "bytes per run: $(cat out)"
  [ "$(csv_field out vmsplice-read 4)" -eq 4 ] || fail "runs: $(cat out)"
  [ "$(csv_field out vmsplice-read 2)" -eq 262144 ] || fail "pipe size: $(cat out)"
  [ "$(csv_field out file-file-rw 10)" = yes ] || fail "file-file-rw: $(cat out)"
  # Odd sizes, smaller than a pattern block and than a page, still verified.
  splice-bench --csv -c pipe-rw-64k -c file-file-splice -c tcp-mmap -s 4097 > out2 ||
    fail "odd size"
  [ "$(grep -c ',yes$' out2)" -eq 3 ] || fail "$(cat out2)"
}

tcase t_dir "-d: the test files go there and are gone at the end; a missing dir fails, exit 1"
t_dir() {
  mkdir d
  splice-bench -d d -t 0.05 -c file-file-cfr > /dev/null || fail "-d d"
  [ -z "$(ls d)" ] || fail "files left in d: $(ls d)"
  run_status st splice-bench -d missing -c file-file-rw > /dev/null 2> err
  status_in 1 st "splice-bench -d missing"
  mentions err "splice-bench: missing/splice-bench"
  # A case that needs no file does not need the directory.
  splice-bench -d missing -t 0.05 -c pipe-rw-64k > /dev/null || fail "no file needed"
}

tcase t_file_size "--file-size: the input file is that size, rounded up to 2 MiB, every case verified; 0 exits 2"
t_file_size() {
  need strace
  # The file is written in 2 MiB pieces: 5M makes three of them.
  traced -f -e trace=write -o log splice-bench --file-size 5M -s 16M \
    -c file-pipe-splice -c tcp-vmsplice-pipe -c tcp-sendfile-pipe --csv > out ||
    fail "splice-bench --file-size 5M"
  [ "$(grep -c ', 2097152) = 2097152' log)" -eq 3 ] || { cat log >&2; fail "not 3 writes of 2 MiB"; }
  [ "$(tail -n +2 out | awk -F, '$10 == "yes"' | wc -l)" -eq 3 ] || { cat out >&2; fail "not verified"; }
  traced -f -e trace=write -o log splice-bench -s 4M -c file-pipe-splice > /dev/null ||
    fail "splice-bench without --file-size"
  [ "$(grep -c ', 2097152) = 2097152' log)" -eq 32 ] || fail "the default file is not 64 MiB"
  run_status st splice-bench --file-size 0 > out 2> err
  status_in 2 st "splice-bench --file-size 0"
  mentions err "--file-size: must be 1 byte to 1T"
}

tcase t_syscall_fails "strace: a failing vmsplice or copy_file_range fails its case by name, exit 1"
t_syscall_fails() {
  need strace
  run_status st inject vmsplice:EIO splice-bench --csv -t 0.05 -c vmsplice-read -c pipe-rw-1m \
    > out 2> err
  status_in 1 st "splice-bench under vmsplice EIO"
  mentions err "splice-bench: vmsplice-read: vmsplice: Input/output error"
  [ "$(csv_field out vmsplice-read 10)" = FAIL ] || fail "vmsplice-read not FAIL: $(cat out)"
  # The other cases still run, and pass.
  [ "$(csv_field out pipe-rw-1m 10)" = yes ] || fail "pipe-rw-1m: $(cat out)"
  run_status st inject copy_file_range:EXDEV splice-bench --csv -t 0.05 -c file-file-cfr \
    > out 2> err
  status_in 1 st "splice-bench under copy_file_range EXDEV"
  mentions err "file-file-cfr: copy_file_range: Invalid cross-device link"
}

tcase t_verbose_progress "-v prints every timed run, --progress every finished case, on stderr"
t_verbose_progress() {
  splice-bench -v --progress -r 4 -s 1M -c vmsplice-read -c tee-tee > out 2> err ||
    { cat err >&2; fail "exit"; }
  for c in vmsplice-read tee-tee; do
    [ "$(grep -c "^splice-bench: $c: run [1-4]: 1048576 bytes in .* GiB/s" err)" -eq 4 ] ||
      { cat err >&2; fail "$c: not 4 run lines"; }
    mentions err "splice-bench: $c: done"
  done
  [ "$(wc -l < out)" -eq 3 ] || fail "stdout: $(cat out)"
}

tcase --source bench/run.sh t_suite_args "bench/run.sh parses: --list names its cases; bad arguments exit 2 before any build"
t_suite_args() {
  need_source bench/run.sh
  suite=$TESTS/../bench/run.sh
  sh -n "$suite" || fail "bench/run.sh does not parse"
  sh "$suite" --list > out || fail "--list"
  printf '%s\n' gen gen-busy-huge gen-seq pipe copy tee tee-file tcp buffer buffer-burst \
    buffer-memfd > want
  same want out
  for bad in "--case nope" "--runs 2" "--runs x" "--bogus"; do
    # shellcheck disable=SC2086
    run_status st sh "$suite" $bad > out 2> err
    status_in 2 st "bench/run.sh $bad"
    [ ! -s out ] || fail "bench/run.sh $bad wrote to stdout"
  done
}

tcase --source man/splice-bench.1 t_cases_in_page "every case of --list has its entry in the manual page's list of cases"
t_cases_in_page() {
  need_source man/splice-bench.1
  splice-bench --list | awk '{ print $1 }' > cases
  [ -s cases ] || fail "--list printed no case"
  while read -r c; do
    grep -Eq "^\.It (.* )?Cm $c( |$)" "$TESTS/../man/splice-bench.1" ||
      fail "$c: no .It entry in man/splice-bench.1"
  done < cases
}

tcase t_bench_usage_errors "bad options: exit 2, the option named, a hint, nothing on stdout"
t_bench_usage_errors() {
  for bad in "-t 0" "-t -1" "-t abc" "-t 5000" "-s 0" "-s 1Q" "-s -5" "-r 2" "-r x" \
    "-c nope" "--pipe-size 0" "-x" "--bogus" "extra"; do
    # shellcheck disable=SC2086
    run_status st splice-bench $bad > out 2> err
    status_in 2 st "splice-bench $bad"
    mentions err "Try 'splice-bench --help'"
    [ ! -s out ] || fail "splice-bench $bad wrote to stdout"
  done
  run_status st splice-bench -c nope 2> err
  mentions err "--case: no such case: 'nope'"
  run_status st splice-bench -r 2 2> err
  mentions err "runs"
}

tcase t_bench_help_version "--help on stdout exit 0; --version names the suite"
t_bench_help_version() {
  help_lists splice-bench --list --case --time --size --runs --dir --csv --corrupt --sweep \
    --pipe-size
}

tcase t_bench_sigterm_reaps_workers "splice-bench -s 1T, SIGTERM and SIGINT: ends, its workers reaped, 128+N"
t_bench_sigterm_reaps_workers() {
  need_default_signal
  for sig in TERM INT; do
    start_tool /dev/null out err splice-bench -s 1T -c pipe-rw-64k -c vmsplice-splice
    wait_until "splice-bench started no worker" has_children "$TPID"
    kill -"$sig" "$TPID"
    reap_within "$TPID" 5 "splice-bench after SIG$sig"
    no_leftovers "$TPID" "splice-bench after SIG$sig"
    status $((128 + $(sig_number "$sig"))) "$REAPED" "splice-bench after SIG$sig"
  done
}

tcase t_bench_results_unwritable "splice-bench: table into /dev/full or closed stdout: exit 1, a message"
t_bench_results_unwritable() {
  for redir in "> /dev/full" ">&-"; do
    for fmt in "" --csv; do
      run_status st timeout 20 sh -c "splice-bench -t 0.05 -c pipe-rw-64k $fmt $redir" 2> err
      hung "splice-bench $fmt $redir"
      status_in 1 st "splice-bench $fmt $redir"
      mentions err "standard output"
    done
  done
}

tcase t_bench_corrupt_small_sizes "splice-bench --corrupt with -s 100K, 1M+1, 4097: every case fails, exit 1"
t_bench_corrupt_small_sizes() {
  for size in 100K 1048577 4097; do
    run_status st splice-bench --corrupt -t 0.05 -s "$size" --csv -c pipe-rw-64k \
      -c vmsplice-splice -c file-file-cfr -c tcp-sendfile -c tee-tee > out 2> err
    status_in 1 st "splice-bench --corrupt -s $size"
    for c in pipe-rw-64k vmsplice-splice file-file-cfr tcp-sendfile tee-tee; do
      [ "$(awk -F, -v c="$c" '$1 == c { print $10 }' out)" = FAIL ] ||
        fail "-s $size: $c not marked FAIL: $(grep "^$c," out)"
    done
  done
}

tcase t_bench_closed_std_fds "splice-bench with 0, 1, 2 closed: stdout needed (exit 1), the others filled"
t_bench_closed_std_fds() {
  for r in "<&-" "2>&-" "<&- 2>&-"; do
    closed_run "$r" "splice-bench -t 0.05 --csv -c pipe-rw-64k"
    status_in 0 st "splice-bench $r"
    grep -q '^pipe-rw-64k,.*,yes$' out || fail "splice-bench $r: $(cat out)"
  done
  closed_run ">&-" "splice-bench -t 0.05 -c pipe-rw-64k"
  status_in 1 st "splice-bench >&-"
  mentions err "standard output"
  closed_run "<&- >&- 2>&-" "splice-bench -t 0.05 -c pipe-rw-64k"
  status_in 1 st "splice-bench, 0 1 2 closed"
  need_fd_trace
  fd_trace "<&- 2>&-" "splice-bench -t 0.05 --csv -c pipe-rw-64k -c file-file-splice -c tcp-splice"
  status_in 0 st "splice-bench <&- 2>&- (strace)"
  not_on_0_2 "splice-bench <&- 2>&-"
}

tcase t_bench_signals_mid_run "splice-bench: SIGTERM, SIGINT, SIGHUP mid-run: exit 128+N, no worker left"
t_bench_signals_mid_run() {
  need_default_signal
  for sig in TERM INT HUP; do
    for c in pipe-rw-64k tcp-splice tee-tee; do
      start_tool /dev/null out err splice-bench -s 1T -c "$c"
      wait_until "splice-bench -c $c started no worker" has_children "$TPID"
      signalled "splice-bench -c $c" "$sig"
    done
  done
}

tcase t_bench_ending_signals_last_line "SIGINT, SIGTERM: splice-bench ends its workers, last line, 128+N"
t_bench_ending_signals_last_line() {
  for sig in INT TERM; do
    $SIGNALS_BACK splice-bench -c pipe-rw-64k -s 1T -r 3 --progress > /dev/null 2> err &
    pid=$!
    wait_watcher $pid
    # The first run's workers, once the reference data is made.
    for _i in $(seq 200); do
      workers=$(ps -o pid= --ppid $pid || :)
      [ -z "$workers" ] || break
      sleep 0.05
    done
    [ -n "$workers" ] || fail "no workers seen"
    # Bytes counted, so that the lines have their estimate.
    wait_counted splice-bench err
    kill -$sig $pid
    ends_by $sig splice-bench $pid err
    mentions err ", done  *[0-9]*%, ETA "
    # The last line says how far it came, with no estimate: it is over.
    tail -n 1 err | grep -q ", done  *[0-9]*%$" || { cat err >&2; fail "the last line"; }
    # Gone, or dead and waiting for init to reap it.
    for w in $workers; do
      state=$(sed 's/.*) \(.\).*/\1/' "/proc/$w/stat" 2> /dev/null || :)
      case $state in '' | Z | X) ;; *) fail "worker $w outlived splice-bench ($state)" ;; esac
    done
  done
}

run_area "$@"
