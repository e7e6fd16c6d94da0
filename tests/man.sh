#!/bin/sh
# Manual pages: mdoc that lints clean, one page per tool, and the same
# options in --help and in the page.
. "${TESTS:?run me through tests/run.sh}/lib.sh"

MAN=$TESTS/../man
# The tools and the installed harness's command, which run.sh does not wrap.
COMMANDS="$TOOLS splice-selftest"
PATH=$PATH:$BINDIR

tcase t_lint "mandoc -Tlint: no warning in any page"
t_lint() {
  need_source man
  need mandoc
  for page in "$MAN"/*.[17]; do
    mandoc -Tlint -Wwarning "$page" > lint 2>&1 || { cat lint >&2; fail "$page"; }
  done
}

tcase t_page_per_tool "every built tool has a page"
t_page_per_tool() {
  need_source man
  for tool in $COMMANDS; do
    [ -f "$MAN/$tool.1" ] || fail "no man/$tool.1"
  done
}

tcase t_options_documented "every long option in --help is in the page's SYNOPSIS or options"
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

tcase t_help_width "every tool's --help fits 80 columns"
t_help_width() {
  for name in $COMMANDS; do
    "$name" --help > help || fail "$name --help"
    awk 'length > 80' help > long
    [ ! -s long ] || { cat long >&2; fail "$name --help: lines over 80 columns"; }
  done
}

run_area "$@"
