#!/usr/bin/env bash
# Builds the .deb with cpack from a built tree, checks what it holds (the
# files, the conffile, dependencies found by dpkg-shlibdeps), installs it
# with dpkg into a scratch root (never the machine's own), and runs what was
# installed: both --help, and sluiced with the packaged config until it
# listens, then SIGTERM and a clean exit.
# Usage: deb_package_test.sh BUILD_DIR VERSION
set -euo pipefail

build=$1
version=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/sluice-deb-XXXXXX")
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT
fail() { echo "deb_package_test: FAIL $*" >&2; exit 1; }

# 1. cpack, timed: CI has a budget for it.
start=$(date +%s%N)
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$scratch/out" >"$scratch/cpack.log" 2>&1 ||
  { cat "$scratch/cpack.log" >&2; fail "cpack failed"; }
echo "deb_package_test: cpack -G DEB took $(( ($(date +%s%N) - start) / 1000000 )) ms"
deb="$scratch/out/sluice_${version}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || fail "no $deb; cpack made: $(find "$scratch/out" -name '*.deb')"
echo "deb_package_test: $(basename "$deb"), $(stat -c %s "$deb") bytes"

# 2. The files, exactly.
expected="./etc/sluice/sluiced.toml
./usr/bin/sluice
./usr/bin/sluiced
./usr/lib/systemd/system/sluiced.service
./usr/share/man/man1/sluice.1.gz
./usr/share/man/man8/sluiced.8.gz"
actual=$(dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -v '/$' | sort)
[ "$actual" = "$expected" ] || fail "files differ:
$(diff <(echo "$expected") <(echo "$actual"))"

# 3. The control data: the config is a conffile; dependencies come from
# the binaries' shared libraries.
dpkg-deb -e "$deb" "$scratch/control"
grep -qx /etc/sluice/sluiced.toml "$scratch/control/conffiles" || fail "sluiced.toml is not a conffile"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libstdc++6 libssl3 zlib1g; do
  [[ "$depends" == *"$lib "* || "$depends" == *"$lib" ]] || fail "Depends lacks $lib: $depends"
done
[ "$(dpkg-deb -f "$deb" Package)" = sluice ] || fail "package name"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "version"

# 4. dpkg installs it into a scratch root (its own, empty database; the
# libraries it depends on are the machine's, hence --force-depends).
root="$scratch/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
dpkg --root="$root" --force-not-root --force-depends --log=/dev/null -i "$deb" >"$scratch/dpkg.log" 2>&1 ||
  { cat "$scratch/dpkg.log" >&2; fail "dpkg -i failed"; }
status=$(dpkg --root="$root" -s sluice)
grep -q '^Status: install ok installed' <<<"$status" || fail "not installed: $status"
grep -q '/etc/sluice/sluiced.toml [0-9a-f]\{32\}' <<<"$status" || fail "dpkg recorded no conffile: $status"
for f in $expected; do [ -e "$root/${f#./}" ] || fail "installed tree lacks ${f#./}"; done

# 5. The installed binaries run.
"$root/usr/bin/sluiced" --help >"$scratch/help" 2>&1 || fail "sluiced --help: $(cat "$scratch/help")"
grep -q -- '--config' "$scratch/help" || fail "sluiced --help: $(cat "$scratch/help")"
"$root/usr/bin/sluice" --help >"$scratch/help" 2>&1 || fail "sluice --help: $(cat "$scratch/help")"
grep -q 'Subcommands' "$scratch/help" || fail "sluice --help: $(cat "$scratch/help")"
zcat "$root/usr/share/man/man8/sluiced.8.gz" | grep -q "sluice $version" || fail "man page version"

# 6. sluiced starts with the packaged config (on a free port instead of
# 8080) and drains on SIGTERM with exit status 0. The banner is read from a
# pipe as it comes: no sleeping.
exec 3< <(exec "$root/usr/bin/sluiced" --config "$root/etc/sluice/sluiced.toml" --listen 127.0.0.1:0 2>&1)
server_pid=$!
read -r -t 30 banner <&3 || fail "sluiced printed nothing within 30 s"
[[ "$banner" == *"listening on 127.0.0.1:"* ]] || fail "sluiced did not start: $banner $(timeout 1 cat <&3)"
kill -TERM "$server_pid"
read -r -t 30 last <&3 || true
[[ "$last" == *stopped* ]] || fail "sluiced did not drain: $last"
code=0
wait "$server_pid" || code=$?
server_pid=
[ "$code" -eq 0 ] || fail "sluiced exited with $code"
echo "deb_package_test: ok: $(echo "$expected" | wc -l) files, Depends: $depends; installed sluiced served and drained"
