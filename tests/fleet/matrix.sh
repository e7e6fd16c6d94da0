#!/bin/sh
# matrix.sh: the kernel smoke test's matrix, kernel x architecture x page
# size, pass, skip or fail per case, and why a case did not pass where it
# did not, as markdown; with --update FILE, written between FILE's markers
# (tests/KERNELS.md: "<!-- matrix -->" ... "<!-- end of matrix -->").
#
#   sh tests/fleet/matrix.sh [--results DIR] [--update FILE] [--bindir DIR]
#                            [--timeout SECS] RUN...
#   sh tests/fleet/matrix.sh --from DIR [--update FILE]
#
# RUN    "here": this machine's kernel, tests/run.sh --ktap --strict kernel;
#        IMAGE: a kernel (a bzImage, Image, vmlinux or a Debian .deb of one)
#        booted by tests/vm.sh --busybox --ktap --strict kernel;
#        IMAGE,BINDIR,BUSYBOX: one of another architecture, its tools and
#        helpers cross-built in BINDIR (cross/*.ini), BUSYBOX its busybox
# --results DIR  keep each run's KTAP as DIR/N.ktap (default: a temporary
#        directory, removed)
# --from DIR     make the matrix from DIR/*.ktap again, running nothing
# --bindir DIR   the tools of "here" and of this architecture's guests
#        (default: build)
# --timeout SECS a guest's time (tests/vm.sh --timeout; default 1200)
#
# Exit status: 0 the matrix was made (whatever the cases did), 1 a run
# left no KTAP to read, 2 a usage error.
set -u
TESTS=$(cd "$(dirname "$0")/.." && pwd)
PROG=matrix.sh
RESULTS=
FROM=
UPDATE=
BINDIR=$TESTS/../build
TIMEOUT_SECS=1200

usage_error() {
  echo "$PROG: $1" >&2
  echo "usage: $PROG [--results DIR] [--update FILE] [--bindir DIR] [--timeout SECS] RUN..." >&2
  echo "       $PROG --from DIR [--update FILE]" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case $1 in
  --results) [ $# -ge 2 ] || usage_error "--results needs a directory"; RESULTS=$2; shift 2 ;;
  --from) [ $# -ge 2 ] || usage_error "--from needs a directory"; FROM=$2; shift 2 ;;
  --update) [ $# -ge 2 ] || usage_error "--update needs a file"; UPDATE=$2; shift 2 ;;
  --bindir) [ $# -ge 2 ] || usage_error "--bindir needs a directory"; BINDIR=$2; shift 2 ;;
  --timeout) [ $# -ge 2 ] || usage_error "--timeout needs seconds"; TIMEOUT_SECS=$2; shift 2 ;;
  -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  --) shift; break ;;
  -*) usage_error "unknown option $1" ;;
  *) break ;;
  esac
done
if [ -n "$UPDATE" ]; then
  [ -w "$UPDATE" ] || usage_error "--update: $UPDATE: not a file it can write"
  if ! grep -q '^<!-- matrix -->$' "$UPDATE" || ! grep -q '^<!-- end of matrix -->$' "$UPDATE"; then
    usage_error "--update: $UPDATE has no lines <!-- matrix --> and <!-- end of matrix -->"
  fi
fi

if [ -n "$FROM" ]; then
  [ $# -eq 0 ] || usage_error "--from runs nothing: no RUN with it"
  [ -d "$FROM" ] || usage_error "--from: no such directory: $FROM"
  dir=$FROM
else
  [ $# -gt 0 ] || usage_error "nothing to run: give RUN (here, or a kernel image)"
  if [ -n "$RESULTS" ]; then
    mkdir -p "$RESULTS" || exit 2
    dir=$RESULTS
  else
    dir=$(mktemp -d) || exit 2
    trap 'rm -rf "$dir"' EXIT
  fi
  n=0
  for run in "$@"; do
    n=$((n + 1))
    out=$dir/$n.ktap
    case $run in
    here)
      echo "$PROG: $n: this machine's kernel" >&2
      sh "$TESTS/run.sh" --bindir "$BINDIR" --ktap --strict kernel > "$out" 2>&1
      ;;
    *,*,*)
      image=${run%%,*} rest=${run#*,}
      echo "$PROG: $n: $image" >&2
      sh "$TESTS/vm.sh" --bindir "${rest%%,*}" --busybox-binary "${rest#*,}" \
        --timeout "$TIMEOUT_SECS" "$image" --ktap --strict kernel > "$out" 2>&1
      ;;
    *)
      echo "$PROG: $n: $run" >&2
      sh "$TESTS/vm.sh" --bindir "$BINDIR" --busybox --timeout "$TIMEOUT_SECS" "$run" \
        --ktap --strict kernel > "$out" 2>&1
      ;;
    esac
    grep -q '^# Totals: ' "$out" ||
      { echo "$PROG: $run: no KTAP totals: the run did not finish (see $out)" >&2; [ -n "$RESULTS" ] ||
        tail -n 20 "$out" >&2; exit 1; }
  done
fi

# The KTAP of each run, in its number's order.
files=$(for f in "$dir"/[0-9]*.ktap; do
  [ -f "$f" ] && echo "$f"
done | awk -F/ '{ n = $NF; sub(/\.ktap$/, "", n); print n, $0 }' | sort -n | cut -d' ' -f2-)
[ -n "$files" ] || { echo "$PROG: no N.ktap in $dir" >&2; exit 1; }

# shellcheck disable=SC2086 # one file a word
matrix=$(awk -v date="$(date -u '+%Y-%m-%d')" '
  FNR == 1 { col++; release[col] = "?"; arch[col] = "?"; page[col] = "?"; why = "" }
  { sub(/\r$/, "") }
  /^# kernel / { r = $3; sub(/,$/, "", r); release[col] = r }
  /^# machine / { a = $3; sub(/,$/, "", a); arch[col] = a; page[col] = $6 }
  /^ +# FAIL: / { why = $0; sub(/^ +# FAIL: /, "", why) }
  /^ +(not )?ok [0-9]+ [a-z][a-z0-9_]*( |$)/ {
    line = $0; sub(/^ +/, "", line)
    bad = line ~ /^not /; sub(/^(not )?ok [0-9]+ /, "", line)
    id = line; sub(/ .*/, "", id)
    if (!(id in seen)) { seen[id] = 1; ids[++nid] = id }
    if (line ~ / # SKIP /) { r = line; sub(/.* # SKIP /, "", r); res[id, col] = "skip"; reason[id, col] = r }
    else if (line ~ / # TIMEOUT /) { res[id, col] = "TIMEOUT"; reason[id, col] = "timed out" }
    else if (bad) { res[id, col] = "FAIL"; reason[id, col] = why == "" ? "failed" : why }
    else res[id, col] = "pass"
    why = ""
  }
  function label(c,   p) {
    p = page[c] + 0
    p = p >= 1024 ? (p / 1024) " KiB" : page[c] " B"
    return release[c] " " arch[c] ", " p
  }
  END {
    printf "<!-- matrix -->\n"
    printf "Made by `tests/fleet/matrix.sh` on %s from %d runs of `--ktap --strict kernel`", date, col
    printf " (a case with no result in a run: -).\n\n"
    printf "| case |"; for (c = 1; c <= col; c++) printf " %s |", label(c); printf "\n"
    printf "|---|"; for (c = 1; c <= col; c++) printf "---|"; printf "\n"
    for (i = 1; i <= nid; i++) {
      id = ids[i]; printf "| %s |", id
      for (c = 1; c <= col; c++) {
        v = ((id, c) in res) ? res[id, c] : "-"
        printf " %s |", v
        n[v, c]++
      }
      printf "\n"
    }
    split("pass skip FAIL TIMEOUT -", kinds, " ")
    for (k = 1; k <= 5; k++) {
      any = 0; for (c = 1; c <= col; c++) if (n[kinds[k], c]) any = 1
      if (!any) continue
      printf "| **%s** |", kinds[k]
      for (c = 1; c <= col; c++) printf " %d |", n[kinds[k], c]
      printf "\n"
    }
    # Why each case that differs does: the runs of each other outcome, by reason.
    printf "\nEvery case that did not pass on every run, and why:\n\n"
    diffs = 0
    for (i = 1; i <= nid; i++) {
      id = ids[i]; first = ""; same = 1
      for (c = 1; c <= col; c++) {
        v = ((id, c) in res) ? res[id, c] : "-"
        if (c == 1) first = v; else if (v != first) same = 0
      }
      if (same && first == "pass") continue
      diffs++; nw = 0; passed = 0; split("", wlist); split("", wcols)
      for (c = 1; c <= col; c++) {
        v = ((id, c) in res) ? res[id, c] : "-"
        if (v == "pass") { passed = 1; continue }
        w = v == "-" ? "no result (the run ended before it)" : v ": " reason[id, c]
        if (!(w in wcols)) { wlist[++nw] = w; wcols[w] = ""; wn[w] = 0 }
        wcols[w] = wcols[w] (wcols[w] == "" ? "" : "; ") label(c)
        if (++wn[w] == col && col > 1) wcols[w] = "every run"
      }
      printf "- `%s`:", id
      for (k = 1; k <= nw; k++) printf " %s (%s).", wlist[k], wcols[wlist[k]]
      printf "%s\n", passed ? " Passed on the others." : ""
    }
    if (!diffs) printf "- none: every case passed on every run.\n"
    printf "<!-- end of matrix -->\n"
  }' $files)

if [ -z "$UPDATE" ]; then
  printf '%s\n' "$matrix"
  exit 0
fi
tmp=$UPDATE.matrix.$$
printf '%s\n' "$matrix" > "$tmp.new" &&
  awk -v new="$tmp.new" '
    /^<!-- matrix -->$/ { while ((getline l < new) > 0) print l; skip = 1; next }
    /^<!-- end of matrix -->$/ { skip = 0; next }
    !skip' "$UPDATE" > "$tmp" && mv "$tmp" "$UPDATE" && rm -f "$tmp.new" ||
  { rm -f "$tmp" "$tmp.new"; echo "$PROG: cannot update $UPDATE" >&2; exit 1; }
echo "$PROG: $UPDATE: the matrix of $(echo "$files" | wc -l) runs" >&2
