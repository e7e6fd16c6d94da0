#!/bin/sh
# Manual pages: mdoc that lints clean, one page per tool, and the same
# options in --help and in the page.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

MAN=$TESTS/../man
# The tools and the installed harness's command, which run.sh does not wrap.
COMMANDS="$TOOLS $WATCHERS splice-selftest"
PATH=$PATH:$BINDIR

tcase --source man t_lint "mandoc -Tlint: no warning in any page"
t_lint() {
  need_source man
  need mandoc
  for page in "$MAN"/*.[17]; do
    mandoc -Tlint -Wwarning "$page" > lint 2>&1 || { cat lint >&2; fail "$page"; }
  done
}

tcase --source man t_page_per_tool "every built tool has a page"
t_page_per_tool() {
  need_source man
  for tool in $COMMANDS; do
    [ -f "$MAN/$tool.1" ] || fail "no man/$tool.1"
  done
}

tcase --source man t_options_documented "every long option in --help is in the page's SYNOPSIS or options"
t_options_documented() {
  need_source man
  for name in $COMMANDS; do
    "$name" --help > help || fail "$name --help"
    for opt in $(grep -o -- '--[a-z][a-z-]*' help | sort -u); do
      # mdoc writes --opt as "Fl -opt".
      grep -q -- "Fl -${opt#--}" "$MAN/$name.1" || fail "$name: $opt not in man/$name.1"
    done
  done
}

tcase t_version_footer "every page as meson installs it shows splice-tools and --version's version"
t_version_footer() {
  need mandoc
  [ -d "$BINDIR/man" ] || skip "no pages configured by meson in $BINDIR/man"
  version=$(splice-cat --version | sed -n 's/^splice-cat (splice-tools) //p')
  [ -n "$version" ] || fail "splice-cat --version: no version"
  for tool in $COMMANDS; do
    [ -f "$BINDIR/man/$tool.1" ] || fail "no $tool.1 in $BINDIR/man"
  done
  for page in "$BINDIR"/man/*.[17]; do
    mandoc -Tascii "$page" | tail -n 1 > footer
    grep -q "^splice-tools $version  .*  splice-tools $version\$" footer ||
      fail "${page##*/}: footer '$(cat footer)'"
  done
}

tcase t_help_width "every tool's --help stays under 80 columns"
t_help_width() {
  for name in $COMMANDS; do
    "$name" --help > help || fail "$name --help"
    awk 'length >= 80' help > long
    [ ! -s long ] || { cat long >&2; fail "$name --help: lines of 80 columns or more"; }
  done
}

# rendered PAGE: the page as man(1) shows it on an 80-column terminal, as
# plain text, in "page.txt"; characters, not bytes, are counted after it.
rendered() {
  MANWIDTH=80 MAN_KEEP_FORMATTING='' man -l "$1" 2> /dev/null | col -bx > page.txt ||
    fail "man -l $1"
  [ -s page.txt ] || fail "man -l $1: nothing rendered"
}

# One rendering of each page for both checks: man(1) costs a tenth of a
# second a page.
tcase --source man t_man_rendered "every page at MANWIDTH=80: under 80 columns, examples included; no doubled punctuation (',,' ',.' ';;' ...); every system error message it quotes whole (mdoc reads a leading No as a macro)"
t_man_rendered() {
  need_source man
  need man col
  for page in "$MAN"/*.[17]; do
    rendered "$page"
    LC_ALL=C.UTF-8 grep -n '.\{80,\}' page.txt > long || :
    [ ! -s long ] || { cat long >&2; fail "${page##*/}: lines of 80 columns or more"; }
    # ("::" is an IPv6 address.)
    grep -n '[,;][,.;:]\|:[,;]' page.txt > doubled || :
    [ ! -s doubled ] || { cat doubled >&2; fail "${page##*/}: doubled punctuation"; }
    tr -s ' \n' '  ' < page.txt > flat
    for msg in "No space left on device" "No such file or directory" "Is a directory" \
      "Broken pipe" "Bad file descriptor" "Permission denied" "Operation not permitted" \
      "Connection refused" "Connection reset by peer" "Invalid argument"; do
      # In the source, a message may be split across a line's macros.
      grep -q "$(echo "$msg" | sed 's/ /.*/g')" "$page" || continue
      grep -q "$msg" flat || fail "${page##*/}: quotes '$msg', renders it otherwise"
    done
  done
}

tcase --source man t_man_names_all "splice-selftest(1) names every area of the harness; splice-tools(7) every command"
t_man_names_all() {
  need_source man
  for area in $(sh "$TESTS/run.sh" --list-areas); do
    grep -q "Cm .*\<$area\>" "$MAN/splice-selftest.1" ||
      fail "splice-selftest.1 does not name the area $area"
  done
  for name in $COMMANDS; do
    grep -q "^\.Xr $name 1" "$MAN/splice-tools.7" || fail "splice-tools.7 does not name $name"
  done
}

tcase --source man t_man_versions "a page's 'in splice-tools X.Y.Z' names an older version than --version's"
t_man_versions() {
  need_source man
  version=$(splice-cat --version | sed -n 's/^splice-cat (splice-tools) //p')
  [ -n "$version" ] || fail "splice-cat --version: no version"
  # Text wraps: the phrase may span two lines of a page.
  cat "$MAN"/*.[17] | tr '\n' ' ' |
    grep -o -i -E '(in splice-tools|before version|since version) [0-9]+\.[0-9]+\.[0-9]+' > said || :
  [ -s said ] || skip "no page names a version"
  while read -r w1 w2 v; do
    newest=$(printf '%s\n%s\n' "$v" "$version" | sort -V | tail -n 1)
    case "$w1 $w2" in
    [Ii]n*) [ "$v" != "$version" ] && [ "$newest" = "$version" ] ||
      fail "a page says '$w1 $w2 $v' of version $version" ;;
    *) [ "$newest" = "$version" ] || fail "a page says '$w1 $w2 $v' of version $version" ;;
    esac
  done < said
}

run_area "$@"
