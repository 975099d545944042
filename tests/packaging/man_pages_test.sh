#!/usr/bin/env bash
# The man pages say what the programs do: every option in a SYNOPSIS or
# OPTIONS section is one the program's --help lists, every option --help
# lists is in the OPTIONS section, and every config key the server's page
# names is one `sluiced --help-config` lists. Where groff is installed, the
# pages must also format without a warning.
# Usage: man_pages_test.sh SOURCE_DIR SLUICED SLUICE
set -euo pipefail

source_dir=$1
sluiced=$2
sluice=$3
failed=0
fail() { echo "man_pages_test: FAIL $*" >&2; failed=1; }

# Options in a --help text: the first column's -x and --long names.
help_options() { grep -oE '^ +(-[a-zA-Z],)?--[a-z][a-z0-9-]*' | tr ',' '\n' | tr -d ' ' | sort -u; }

# Options named in the page's sections $2.. (roff: \-\-long, \-x).
page_options() {
  local page=$1
  shift
  local sections
  sections=$(printf '%s|' "$@")
  awk -v want="^(${sections%|})$" '/^\.SH /{on = ($2 ~ want)} on' "$page" |
    grep -oE '(^|[ "])(\\-\\-[a-z](\\-|[a-z0-9])*|\\-[a-zA-Z])([ ",]|$)' |
    sed -E 's/^[ "]//; s/[ ",]$//; s/\\-/-/g' | sort -u
}

check_page() {
  local page=$1 help=$2
  local in_help in_options in_page before=$failed
  failed=0
  in_help=$(help_options <<<"$help")
  in_options=$(page_options "$page" OPTIONS)
  in_page=$(page_options "$page" SYNOPSIS OPTIONS)
  for o in $in_help; do
    grep -qx -- "$o" <<<"$in_options" || fail "$(basename "$page"): OPTIONS lacks $o, which --help lists"
  done
  for o in $in_page; do
    grep -qx -- "$o" <<<"$in_help" || fail "$(basename "$page"): names $o, which --help does not list"
  done
  if command -v groff >/dev/null; then
    warnings=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1 || true)
    [ -z "$warnings" ] || fail "$(basename "$page") formats with warnings: $warnings"
  else
    echo "man_pages_test: groff is not installed (Debian: groff-base): formatting not checked"
  fi
  [ $failed -eq 1 ] || echo "man_pages_test: $(basename "$page"): $(wc -w <<<"$in_help") options, all documented, none invented"
  [ $before -eq 0 ] || failed=1
}

check_page "$source_dir/packaging/sluiced.8" "$("$sluiced" --help)"
check_page "$source_dir/packaging/sluice.1" \
  "$("$sluice" --help; "$sluice" sub --help; "$sluice" pub --help; "$sluice" token --help)"

# Both pages name --version: each program prints its name and version.
for program in "$sluiced" "$sluice"; do
  said=$("$program" --version 2>&1 || true)
  grep -qE "^$(basename "$program") [0-9]+\.[0-9]+" <<<"$said" || fail "$(basename "$program") --version said: $said"
done

# Config keys the server's page names (in bold, in CONFIGURATION).
config=$("$sluiced" --help-config)
keys=$(awk '/^\.SH /{on = ($2 == "CONFIGURATION")} on && /^\.B/' "$source_dir/packaging/sluiced.8" |
  grep -oE '[a-z_]+\.[a-z_.]+' | sed 's/\.$//' | sort -u)
[ -n "$keys" ] || fail "found no config key in sluiced.8"
for key in $keys; do
  grep -qF -- "$key" <<<"$config" || fail "sluiced.8 names config key $key, which --help-config does not list"
done
exit $failed
