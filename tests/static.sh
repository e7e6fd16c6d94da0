#!/bin/sh
# Static analysis of the sources: cppcheck and clang-tidy (bugprone-*,
# cert-*, see .clang-tidy) report nothing; a warning that cannot be fixed
# is silenced where it is, with the reason.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

SRC=$(cd "$TESTS/.." && pwd)

tcase --source lib t_cppcheck "cppcheck: no warning, style or portability finding"
t_cppcheck() {
  need_source lib
  need cppcheck
  # variableScope: locals are declared at the top of a block, as style(9) asks.
  (cd "$SRC" && cppcheck --enable=warning,style,performance,portability --std=c11 \
    -D_GNU_SOURCE -D__linux__ --quiet --inline-suppr --error-exitcode=1 \
    --suppress=variableScope \
    ./*.c bench/*.c top/*.c lib/*.c tests/*.c tests/probe/*.c fuzz/*.c) > out 2>&1 || { cat out >&2; fail "cppcheck"; }
}

tcase --long --source lib t_clang_tidy "clang-tidy bugprone-* and cert-*: no warning"
t_clang_tidy() {
  need_source lib
  need clang-tidy
  # Every file in one clang-tidy: one a file cost 9 s, most of it startup.
  clang-tidy --quiet "$SRC"/*.c "$SRC"/bench/*.c "$SRC"/top/*.c "$SRC"/lib/*.c -- -std=gnu11 -D_GNU_SOURCE \
    -D_FILE_OFFSET_BITS=64 -DSPLICE_TOOLS_VERSION='"0"' -I"$SRC" > out 2>&1 ||
    { cat out >&2; fail "clang-tidy"; }
  if grep -E 'warning:|error:' out >&2; then
    fail "clang-tidy findings"
  fi
}

# The tree's C under c/ without comments, strings, characters, struct, enum
# and union tags, or member names: a function's name left there is a call
# or its address taken.  files: the files, from the top of the tree.
strip_c() {
  need cc
  (cd "$SRC" && for f in ./*.c lib/*.c bench/*.c top/*.c tests/*.c tests/probe/*.c fuzz/*.c; do
    echo "${f#./}"
  done) > files
  # One cc for every file (a cc a file took 3 s): its line markers, left
  # alone by the seds, say which file each line goes to.
  # shellcheck disable=SC2046 # one word per file
  mkdir -p $(sed 's|^|c/|; s|/[^/]*$||' files | sort -u)
  # shellcheck disable=SC2046 # one word per file
  (cd "$SRC" && cc -fpreprocessed -E $(cat "$OLDPWD/files")) |
    sed -E "/^# [0-9]+ \"/b; s/'([^'\\\\]|\\\\.)+'/''/g; s/\"([^\"\\\\]|\\\\.)*\"/\"\"/g" |
    sed -E '/^# [0-9]+ "/b; s/(struct|enum|union) +[A-Za-z_0-9]+//g; s/(->|\.) *[A-Za-z_][A-Za-z_0-9]*//g' |
    awk '/^# [0-9]+ "/ { f = $3; gsub(/"/, "", f); out = "c/" f; next } { print > out }'
}

# uses: "NAME HEADER DEFINED-IN USER" for every function that splice.h or
# lib/internal.h declares and every file but its own that calls it; USER
# "-" when none does, DEFINED-IN "-" when no file of lib/ defines it (the
# name at the start of a line, as style(9) writes a definition).
uses() {
  strip_c
  for h in splice.h lib/internal.h; do
    sed -nE 's/^[a-z_][a-z_0-9 *]*[ *]([a-z_0-9]+)\(.*/\1/p' "$SRC/$h" | sed "s|\$| $h|"
  done > decls
  [ -s decls ] || fail "no declaration found in splice.h"
  # One pass of awk over the stripped tree: a grep a name took 10 s of CPU.
  # shellcheck disable=SC2046 # one word per file
  (cd c && awk '
    FILENAME == "../decls" { header[$1] = $2; order[++n] = $1; next }
    FNR == 1 { file = FILENAME }
    file ~ /^lib\// && match($0, /^[a-z_0-9]+\(/) {
      name = substr($0, 1, RLENGTH - 1)
      if ((name in header) && !(name in def)) def[name] = file
    }
    {
      line = $0
      while (match(line, /[A-Za-z_][A-Za-z_0-9]*/)) {
        name = substr(line, RSTART, RLENGTH)
        before = substr(line, 1, RSTART - 1)
        after = substr(line, RSTART + RLENGTH)
        line = after
        if (!(name in header)) continue
        sub(/[ \t]+$/, "", before)
        sub(/^[ \t]+/, "", after)
        if (after ~ /^\(/ || (before ~ /[={(,]$/ && after ~ /^[)},;]/))
          used[name, file] = 1
      }
    }
    END {
      for (i = 1; i <= n; i++) {
        name = order[i]
        if (!(name in def)) { print name, header[name], "-", "-"; continue }
        found = 0
        for (k = 1; k <= nfiles; k++)
          if (((name, files[k]) in used) && files[k] != def[name]) {
            print name, header[name], def[name], files[k]
            found = 1
          }
        if (!found) print name, header[name], def[name], "-"
      }
    }
    FNR == 1 { files[++nfiles] = FILENAME }
  ' ../decls $(cat ../files)) > uses
}

tcase --source lib/internal.h t_decls_called "every function splice.h or lib/internal.h declares has a caller outside its own file; splice.h's a tool, bench/ or fuzz/"
t_decls_called() {
  need_source lib/internal.h
  uses
  awk '$3 == "-" { print $1 ": declared in " $2 ", defined nowhere in lib/"; next }
    $4 == "-" { print $1 ": declared in " $2 ", called only in " $3 " (make it static)"; next }
    $2 == "splice.h" { if (!($1 in tool)) tool[$1] = 0; if ($4 !~ /^lib\//) tool[$1] = 1 }
    END { for (f in tool) if (!tool[f]) print f ": only lib/ calls it: lib/internal.h declares that" }' \
    uses > bad
  if [ -s bad ]; then
    cat bad >&2
    fail "$(wc -l < bad) declarations out of place"
  fi
}

tcase --source lib/internal.h t_lib_map "lib/: no two files call each other, no cycle; splice.h's map names every call, the headers' banners follow it"
t_lib_map() {
  need_source lib/internal.h
  need tsort
  uses
  awk '$4 ~ /^lib\// { a = $4; b = $3; sub(/^lib\//, "", a); sub(/^lib\//, "", b); print a, b }' \
    uses | sort -u > calls
  awk '{ e[$1 " " $2] = 1 }
    END { for (k in e) { split(k, p, " "); if ((p[2] " " p[1]) in e && p[1] < p[2])
      print "lib/" p[1] " and lib/" p[2] " call each other" } }' calls > bad
  tsort calls > /dev/null 2> loop || { echo "a cycle in lib/:"; cat loop; } >> bad
  # The map: "FILE.c  what it holds  -> a, b" (continued on lines of their own) or "(libc only)".
  awk '/^ \*\// { exit }
    /^ \*   [a-z_]+\.c / { f = $2; print f > "mapfiles"; i = index($0, "->")
      if (i) list(substr($0, i + 2)); next }
    f != "" && /^ \*                    +[a-z]/ { list(substr($0, 3)) }
    function list(s,  n, a, k) { n = split(s, a, /[ ,]+/)
      for (k = 1; k <= n; k++) if (a[k] != "") print f, a[k] ".c" }' "$SRC/splice.h" |
    sort -u > mapped
  [ -s mapfiles ] || fail "no map of lib/ in splice.h's head"
  (cd "$SRC/lib" && ls ./*.c) | sed 's|^\./||' | sort > libfiles
  sort mapfiles | diff - libfiles | sed -n 's/^< /the map names a file lib\/ lacks: /p; s/^> /the map leaves out lib\//p' >> bad
  diff mapped calls | sed -n 's/^< \(.*\) \(.*\)/the map says \1 calls \2; it does not/p
    s/^> \(.*\) \(.*\)/\1 calls \2; the map does not say so/p' >> bad
  for h in splice.h lib/internal.h; do
    sed -nE 's|^/\* ---- .*: lib/([a-z_]+\.c) -+ \*/$|\1|p' "$SRC/$h" |
      awk -v h="$h" 'NR == FNR { pos[$1] = NR; next }
        !($1 in pos) { print h ": a banner for " $1 ", which the map does not name"; next }
        pos[$1] <= last { print h ": the banner of " $1 " out of the map'"'"'s order" }
        { last = pos[$1] }' mapfiles - >> bad
  done
  if [ -s bad ]; then
    cat bad >&2
    fail "lib/'s calls and splice.h's map disagree"
  fi
}

tcase --source lib/failure.c t_strict_rule "lib/: --strict is read by fallback_allowed() alone (lib/failure.c): every engine falls back by one rule"
t_strict_rule() {
  need_source lib/failure.c
  need cc
  # options.c makes the engines' options out of the tool's; comments do not count.
  for f in "$SRC"/lib/*.c; do
    case ${f##*/} in failure.c|options.c) continue ;; esac
    cc -fpreprocessed -E -P "$f" | grep -E '(\.|->) *strict\b' | sed "s|^|lib/${f##*/}: |"
  done > bad
  cc -fpreprocessed -E -P "$SRC/lib/failure.c" | grep -qE -- '-> *strict\b' ||
    fail "lib/failure.c does not read --strict: is the rule somewhere else?"
  if [ -s bad ]; then
    cat bad >&2
    fail "$(wc -l < bad) decisions on --strict outside fallback_allowed()"
  fi
}

tcase --source lib t_columns "no line of C passes 100 columns (.editorconfig, tabs of 8)"
t_columns() {
  need_source lib
  (cd "$SRC" && find . \( -name 'build*' -o -name '.*' ! -name . \) -prune -o \
    \( -name '*.c' -o -name '*.h' \) -print) | sort > files
  while read -r f; do
    expand "$SRC/$f" | awk -v f="${f#./}" 'length > 100 { print f ":" NR ": " length " columns" }'
  done < files > long
  if [ -s long ]; then
    cat long >&2
    fail "$(wc -l < long) lines over 100 columns"
  fi
}

tcase --source lib t_main_length "every tool's main() is at most 80 lines: options, then one function per phase"
t_main_length() {
  need_source lib
  for f in "$SRC"/*.c; do
    awk -v f="${f##*/}" '/^main\(/ { start = NR }
      start && /^}/ { if (NR - start + 1 > 80) print f ": main() is " NR - start + 1 " lines"
        start = 0 }' "$f"
  done > long
  [ "$(grep -c '^main(' "$SRC"/*.c | awk -F: '{ n += $2 } END { print n }')" -ge 8 ] ||
    fail "fewer than 8 tools' main() found"
  if [ -s long ]; then
    cat long >&2
    fail "$(wc -l < long) main() over 80 lines"
  fi
}

run_area "$@"
