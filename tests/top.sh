#!/bin/sh
# splice-top: the pipes of running pipelines of any programs, their fill,
# the slow stage, a stalled pipe; nothing it watches behaves otherwise.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

# top_pipeline N CMD: CMD, a pipeline of N stages, run by sh in a session of
# its own (ended, with its stages, at exit); STAGES: the stages' pids,
# writer to reader, once N of them run.  SH: the sh.
top_pipeline() {
  setsid sh -c "$2" < /dev/null > /dev/null 2> pipeline.err &
  SH=$!
  bg_started
  wait_until "setup: the pipeline's $1 stages never ran" stages_run "$SH" "$1"
}

# stages_run PID N: PID has N children (or more); STAGES their pids.
stages_run() {
  _want=$2
  STAGES=$(cat "/proc/$1/task/$1/children" 2> /dev/null) || return 1
  # shellcheck disable=SC2086 # one pid a word
  set -- $STAGES
  [ $# -ge "$_want" ]
}

# stage N: the Nth of STAGES.
stage() {
  _n=$1
  # shellcheck disable=SC2086 # one pid a word
  set -- $STAGES
  shift $((_n - 1))
  echo "$1"
}

# runs_prog PID NAME: PID runs NAME (it has exec'ed).
runs_prog() {
  [ "$(cat "/proc/$1/comm" 2> /dev/null)" = "$2" ]
}

# gone PID: PID has ended (gone, or a zombie).
gone() {
  case $(state_of "$1") in '' | Z) return 0 ;; esac
  return 1
}

# record KIND KEY FILE: KEY's values in FILE's last frame's KIND records.
record() {
  awk -v kind="$1" -v key="$2" '$1 == "frame" { n = 0 } $1 == kind {
      for (i = 2; i <= NF; i++) if (index($i, key "=") == 1) v[++n] = substr($i, length(key) + 2)
    }
    END { for (i = 1; i <= n; i++) print v[i] }' "$3"
}

tcase t_top_fill_exact \
  "a pipe holding the 65536 bytes written, nobody reading: bytes, capacity and percent exact, numbers and screen alike"
t_top_fill_exact() {
  top_pipeline 2 '{ head -c 65536 /dev/zero; exec sleep 300; } | sleep 300'
  writer=$(stage 1) reader=$(stage 2)
  # The writer sleeps once head wrote its bytes.
  wait_until "setup: head never ended" runs_prog "$writer" sleep
  wait_until "setup: the reader never ran" runs_prog "$reader" sleep
  run_status st splice-top --numeric -n 1 -d 0.05 "$reader" > out 2> err
  status_in 0 st "splice-top --numeric"
  [ "$(record pipe writer out)" = "$writer" ] || { cat out >&2; fail "the pipe's writer"; }
  [ "$(record pipe reader out)" = "$reader" ] || { cat out >&2; fail "the pipe's reader"; }
  [ "$(record pipe bytes out)" = 65536 ] || { cat out >&2; fail "not 65536 bytes held"; }
  cap=$(record pipe capacity out)
  [ "$cap" -ge 65536 ] || fail "capacity $cap"
  pct=$((6553600 / cap))
  [ "$(record pipe fill out)" = "$pct" ] || { cat out >&2; fail "fill"; }
  run_status st splice-top -b -n 1 -d 0.05 "$reader" > out 2> err
  status_in 0 st "splice-top -b"
  mentions out "^ *|=\\[#* *\\] 64K/[0-9.]*[KM] *$pct%$"
  mentions out "^ *$reader sleep "
}

tcase t_top_stalled "yes | sleep: the pipe full and stalled, sleep named: it reads nothing"
t_top_stalled() {
  top_pipeline 2 'yes | sleep 300'
  writer=$(stage 1) reader=$(stage 2)
  wait_until "setup: yes never waited on the full pipe" sleeping "$writer"
  wait_until "setup: sleep never ran" runs_prog "$reader" sleep
  run_status st splice-top -b -n 3 -d 0.05 "$writer" > out 2> err
  status_in 0 st "splice-top -b"
  mentions out "^stalled: sleep (pid $reader) reads nothing of a full pipe"
  mentions out "^ *|=\\[#*\\] .* 100% stalled$"
  mentions out "^ *$writer yes  "
  run_status st splice-top --numeric -n 3 -d 0.05 "$reader" > out 2> err
  status_in 0 st "splice-top --numeric"
  [ "$(record pipe bytes out)" = "$(record pipe capacity out)" ] || fail "not full"
  [ "$(record pipe stalled out)" = 1 ] || fail "not stalled"
  [ "$(record verdict kind out)" = stalled ] || fail "verdict $(record verdict kind out)"
  [ "$(record verdict pid out)" = "$reader" ] || fail "the stall named $(record verdict pid out)"
}

# --timing: gzip is the slowest stage while it has a CPU of its own; beside
# other cases' load (ASan's, under CI) head was, once.
tcase --timing t_top_bottleneck \
  "head -c 200M /dev/urandom | gzip -1 | cat > /dev/null: gzip named the slowest stage"
t_top_bottleneck() {
  need gzip
  top_pipeline 3 'head -c 200M /dev/urandom | gzip -1 | cat > /dev/null'
  gz=$(stage 2)
  wait_until "setup: gzip never ran" runs_prog "$gz" gzip
  # Both views at once, over the same seconds.
  run_status st.b splice-top -b -n 3 -d 0.4 "$gz" > out.b 2> err.b &
  batch=$!
  run_status st.n splice-top --numeric -n 3 -d 0.4 "$(stage 1)" > out.n 2> err.n
  wait "$batch"
  status_in 0 st.b "splice-top -b"
  status_in 0 st.n "splice-top --numeric"
  tail -n 1 out.b > last
  mentions last "^slowest: gzip (pid $gz): input [0-9]*% full, output [0-9]*%, [0-9]*% CPU$"
  [ "$(record verdict pid out.n)" = "$gz" ] || { cat out.n >&2; fail "--numeric's verdict"; }
  mentions out.b "< /dev/urandom"
  mentions out.b "> /dev/null"
}

tcase t_top_tee_branch "a tee's two output pipes: both shown, each reader a branch under it"
t_top_tee_branch() {
  top_pipeline 3 'yes | (tee /dev/fd/4 | cat 4>&- > /dev/null) 4>&1 | cat > /dev/null'
  wait_until "setup: tee's two pipes never shown" tee_shown "$(stage 1)"
  tee=$(awk '$1 == "stage" && /comm=tee$/ { sub(/pid=/, "", $2); print $2 }' out)
  [ "$(record pipe writer out | grep -c "^$tee\$")" = 2 ] || { cat out >&2; fail "tee's pipes"; }
  record pipe reader out | sort -u > readers
  [ "$(wc -l < readers)" = 3 ] || { cat out >&2; fail "three readers, one a pipe"; }
  run_status st splice-top -b -n 1 -d 0.05 "$tee" > out 2> err
  status_in 0 st "splice-top -b"
  # The readers one step in, each after its own pipe.
  [ "$(grep -c '^ *[0-9][0-9]*   cat  ' out)" = 2 ] || { cat out >&2; fail "two cat branches"; }
  [ "$(grep -c '^          |=\[' out)" = 2 ] || { cat out >&2; fail "two branch pipes"; }
}

# tee_shown PID: splice-top --numeric (into out) shows tee and its two cats.
tee_shown() {
  splice-top --numeric -n 1 -d 0.05 "$1" > out 2> /dev/null &&
    [ "$(grep -c '^stage .*comm=cat$' out)" = 2 ] && grep -q '^stage .*comm=tee$' out
}

tcase t_top_undisturbed \
  "watched every 10 ms: EPIPE still reaches the writer when the reader ends, EOF the reader when the writer ends"
t_top_undisturbed() {
  d=$PWD
  top_pipeline 2 "{ trap '' PIPE; yes 2> $d/yes.err; echo \$? > $d/yes.st; } |
    { while [ ! -e $d/go ]; do sleep 0.01; done; head -c 1 > $d/one; }"
  splice-top --numeric -d 0.01 "$(stage 1)" > watch 2> watch.err &
  top=$!
  bg_started
  wait_until "setup: splice-top never saw the full pipe" grep -q ' fill=100 ' watch
  touch go
  wait_until "yes never got EPIPE (watched at 10 ms)" exists yes.st
  [ "$(cat yes.st)" = 1 ] || fail "yes ended $(cat yes.st), not 1 for EPIPE"
  mentions yes.err "Broken pipe"
  [ "$(cat one)" = y ] || fail "the reader read '$(cat one)'"
  reap_within "$top" 20 "splice-top, the pipeline ended"
  [ "$REAPED" = 0 ] || fail "splice-top ended $REAPED"
  mentions watch.err "the watched pipeline has ended"
  # EOF: the writer ends, the reader must see it at once.
  top_pipeline 2 "{ while [ ! -e $d/go2 ]; do sleep 0.01; done; printf abc; } | cat > $d/got"
  splice-top -b -d 0.01 "$(stage 2)" > watch 2> watch.err &
  top=$!
  bg_started
  wait_until "setup: splice-top never drew" grep -q '^slowest\|^stalled' watch
  touch go2
  reap_within "$SH" 20 "the pipeline, its writer ended (EOF)"
  [ "$(cat got)" = abc ] || fail "the reader got '$(cat got)'"
  reap_within "$top" 20 "splice-top, the pipeline ended"
}

tcase t_top_session "no operand: the pipelines of its own session; -g: a process group's; -a: every one"
t_top_session() {
  top_pipeline 2 'yes | sleep 300'
  writer=$(stage 1) reader=$(stage 2)
  wait_until "setup: yes never waited on the full pipe" sleeping "$writer"
  wait_until "setup: sleep never ran" runs_prog "$reader" sleep
  # In a session of its own beside a pipeline of its own: that one alone.
  # The pipeline reads a FIFO this shell holds open: closed, it ends.
  mkfifo fifo
  exec 4<> fifo
  run_status st setsid sh -c \
    'cat fifo | tr a b > /dev/null & exec splice-top --numeric -n 2 -d 0.05' \
    > own < /dev/null 2> err 4>&-
  exec 4>&-
  for p in $(record stage pid own); do
    wait_until "the FIFO closed, its pipeline never ended" gone "$p"
  done
  status_in 0 st "splice-top in a session of its own"
  record stage comm own | sort > comms
  printf '%s\n' cat tr > want
  same want comms
  for way in "-g $SH" -a; do
    # shellcheck disable=SC2086 # the option and its value
    run_status st splice-top --numeric -n 1 -d 0.05 $way > out 2> err
    status_in 0 st "splice-top $way"
    record stage pid out > pids
    if ! grep -qx "$writer" pids || ! grep -qx "$reader" pids; then
      cat out >&2
      fail "$way: the pipeline not shown"
    fi
  done
  # -g: that group's alone.
  run_status st splice-top --numeric -n 1 -d 0.05 -g "$SH" > out 2> err
  [ "$(record stage pid out | wc -l)" = 2 ] || { cat out >&2; fail "-g: more than its group"; }
}

tcase t_top_odd_targets \
  "a thread's id, a zombie, a name of escapes, an output that fails: named, never a hang, no control byte out, no frame after the failure"
t_top_odd_targets() {
  # splice-cat waiting on its input, its progress thread beside it.
  top_pipeline 2 'sleep 300 | splice-cat --progress > /dev/null 2>&1'
  cat_pid=$(stage 2)
  wait_until "setup: splice-cat's second thread never ran" watching "$cat_pid"
  tid=
  for t in /proc/"$cat_pid"/task/*; do
    [ "${t##*/}" = "$cat_pid" ] || { tid=${t##*/}; break; }
  done
  run_status st splice-top -b -n 1 "$tid" > out 2> err
  status_in 1 st "splice-top of a thread's id"
  mentions err "^splice-top: $tid: a thread, not a process"
  # A zombie: its parent, a sleep by then, never reaps it.
  sh -c 'while [ ! -e die ]; do sleep 0.01; done & echo $! > zombie.pid; exec sleep 300' &
  parent=$!
  bg_started
  wait_until "setup: the zombie's parent never became a sleep" runs_prog "$parent" sleep
  touch die
  wait_until "setup: no zombie" zombie_is
  run_status st timeout 10 splice-top -b -d 0.05 "$(cat zombie.pid)" > out 2> err
  [ "$(cat st)" != 124 ] || fail "splice-top watched a zombie for ever"
  # A file whose name clears the screen, held by a watched stage.
  name=$(printf 'f\033[2Jx')
  : > "$name"
  top_pipeline 2 "sleep 300 < '$PWD/$name' | cat"
  run_status st splice-top -b -n 1 -d 0.05 "$(stage 1)" > out 2> err
  status_in 0 st "splice-top of a stage holding an odd name"
  mentions out "< $PWD/f?\\[2Jx 0$"
  [ "$(tr -cd '\033' < out | wc -c)" = 0 ] || fail "an escape byte reached the output"
  # Frames one after another, a blank line between, until stdout fails.
  splice-top -b -d 0.05 "$(stage 1)" > frames 2> /dev/null &
  top=$!
  bg_started
  wait_until "two frames never came" grep -q '^$' frames
  kill "$top"
  run_status st timeout 10 splice-top -b -d 0.05 "$(stage 1)" > /dev/full 2> err
  status_in 1 st "splice-top into /dev/full"
  mentions err "No space left on device"
}

# zombie_is: the pid in zombie.pid is a zombie.
zombie_is() {
  [ -s zombie.pid ] && [ "$(state_of "$(cat zombie.pid)")" = Z ]
}

tcase t_top_pipe_size_defaults \
  "each tool's --pipe-size default, as its --help words it, seen from outside: vmsplice-touser keeps its writer's pipe, splice-buffer grows it to 1M"
t_top_pipe_size_defaults() {
  page=$(helper splice-probe)
  [ "$("$page" page-size)" = 4096 ] || skip "pipes of 16 pages of 4 KiB expected"
  [ "$(cat /proc/sys/fs/pipe-max-size)" -ge 1048576 ] || skip "pipe-max-size below 1M"
  vmsplice-touser --help | grep -q -- "--pipe-size SIZE  grow standard input's pipe to SIZE (default: as" ||
    fail "vmsplice-touser --help: its --pipe-size default"
  # (--pipe-siz: an abbreviation, as getopt_long takes it, not ambiguous.)
  for tool in "vmsplice-touser 65536" "vmsplice-touser --pipe-siz 256K 262144" \
    "splice-buffer 1048576"; do
    want=${tool##* }
    cmd=${tool% *}
    top_pipeline 2 "sleep 300 | $cmd > /dev/null"
    wait_until "setup: $cmd never ran" runs_prog "$(stage 2)" "${cmd%% *}"
    wait_until "$cmd: its input pipe never became $want bytes" pipe_is "$(stage 2)" "$want"
    kill $STAGES 2> /dev/null || :
  done
}

# pipe_is PID BYTES: the pipe PID reads is BYTES bytes, as splice-top sees it.
pipe_is() {
  splice-top --numeric -n 1 -d 0.01 "$1" > sizes 2> /dev/null &&
    [ "$(record pipe capacity sizes)" = "$2" ]
}

tcase t_top_gone "a pid that ended, a group of none: no such process, exit 1, no frame"
t_top_gone() {
  sh -c 'exit 0' &
  p=$!
  wait "$p"
  run_status st splice-top -b -n 1 "$p" > out 2> err
  status_in 1 st "splice-top of an ended pid"
  mentions err "^splice-top: $p: no such process$"
  [ ! -s out ] || fail "splice-top wrote a frame for nothing"
  run_status st splice-top -g "$p" > out 2> err
  status_in 1 st "splice-top -g of no group"
  mentions err "no such process group"
}

tcase t_top_other_user "as nobody, a pid or a group of root's: operation not permitted, exit 1"
t_top_other_user() {
  [ "$(id -u)" = 0 ] || skip "needs root, to run as nobody"
  need setpriv
  cp "$(command -v splice-top)" top
  chmod 755 top .
  run_status st setpriv --reuid=nobody --regid=nogroup --clear-groups ./top -b -n 1 $$ \
    > out 2> err
  status_in 1 st "splice-top as nobody"
  # (Under --strict, run.sh's splice-top is a script that runs the tool.)
  mentions err "top: $$: operation not permitted: run as the pid's user or root$"
  run_status st setpriv --reuid=nobody --regid=nogroup --clear-groups ./top -b -n 1 \
    -g "$(stat_field $$ 3)" > out 2> err
  status_in 1 st "splice-top -g of root's group, as nobody"
  mentions err "operation not permitted: run as its user or root$"
}

tcase t_top_screen "on a 40- and an 80-column terminal: redrawn in place, fitted to the width"
t_top_screen() {
  pty=$(helper pty-screen)
  top_pipeline 2 'yes | sleep 300'
  writer=$(stage 1) reader=$(stage 2)
  wait_until "setup: yes never waited on the full pipe" sleeping "$writer"
  wait_until "setup: sleep never ran" runs_prog "$reader" sleep
  for cols in 40 80; do
    run_status st "$pty" -s "${cols}x24" -o raw.$cols -- splice-top -n 3 -d 0.05 "$writer" \
      > screen.$cols
    status_in 0 st "splice-top on a ${cols}-column terminal"
    # Redrawn from the top: one header, three frames drawn over each other.
    [ "$(grep -c '^splice-top ' screen.$cols)" = 1 ] || { cat screen.$cols >&2; fail "$cols: header"; }
    [ "$(grep -c 'splice-top' raw.$cols)" -ge 1 ] || fail "$cols: nothing drawn"
    mentions screen.$cols "^ *$writer yes "
    mentions screen.$cols "^ *$reader sleep "
    mentions screen.$cols "^stalled: sleep (pid $reader)"
    awk -v w="$cols" 'length > w { exit 1 }' screen.$cols || fail "$cols: a row too long"
  done
  mentions screen.80 "READ/s WRITE/s$"
  grep -q 'READ/s' screen.40 && fail "40 columns: the rates stayed"
  mentions screen.40 '^ *|=\[#*\] 64K/64K 100%'
  :
}

tcase t_top_usage "bad options and operands: a usage error naming them, exit 2; --help lists every option"
t_top_usage() {
  for bad in "-d 0" "-d x" "-n 0" "-n 1x" "-g 0" "-g x" "abc" "-1" "--bogus" "1 -g 1" "-a 1"; do
    # shellcheck disable=SC2086 # the words of each
    run_status st splice-top $bad > out 2> err
    status_in 2 st "splice-top $bad"
    mentions err "^Try 'splice-top --help'\\.$"
    [ ! -s out ] || fail "splice-top $bad printed a frame"
  done
  splice-top --help > help || fail "--help"
  for opt in --delay --iterations --batch --numeric --pgid --all --help --version; do
    mentions help "$opt"
  done
}

run_area "$@"
