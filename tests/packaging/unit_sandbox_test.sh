#!/usr/bin/env bash
# The systemd unit parses without a warning (a misspelt sandboxing option is
# only warned about, and then silently not applied) and its exposure, as
# systemd-analyze security scores it offline, stays at most MAX_EXPOSURE
# (0-100; the unit scores 12 today). Exits 77 (ctest: skipped) when
# systemd-analyze is not installed.
# Usage: unit_sandbox_test.sh UNIT_FILE SLUICED MAX_EXPOSURE
set -euo pipefail

unit=$1
sluiced=$2
max_exposure=$3
command -v systemd-analyze >/dev/null || { echo "unit_sandbox_test: systemd-analyze is not installed"; exit 77; }
root=$(mktemp -d "${TMPDIR:-/tmp}/sluice-unit-XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/lib/systemd/system" "$root/usr/bin" "$root/etc/sluice"
cp "$unit" "$root/usr/lib/systemd/system/sluiced.service"
cp "$sluiced" "$root/usr/bin/sluiced"

code=0
report=$(systemd-analyze security --offline=yes --root="$root" --threshold="$max_exposure" sluiced.service 2>"$root/stderr") ||
  code=$?
if [ -s "$root/stderr" ]; then
  echo "unit_sandbox_test: FAIL systemd warns about the unit:" >&2
  cat "$root/stderr" >&2
  exit 1
fi
echo "$report" | tail -1
[ $code -eq 0 ] || { echo "unit_sandbox_test: FAIL exposure above $max_exposure:" >&2; echo "$report" | grep '✗' >&2; exit 1; }
