#!/usr/bin/env bash
# Unpacks Debian's lwIP source package (the same version as the installed
# liblwip-dev, with Debian's patches) into build/lwip-source, for the
# Cortex-M build: lwIP compiled for the target, the push server linked with
# it and its lwIP tests run on QEMU. Nothing of it is committed.
#
# Debian's binary packages carry lwIP for the host only (a shared library
# and headers), so the sources come from the source package, through apt,
# from the archives this machine already uses for binaries: their entries
# are copied as deb-src into a private apt configuration under build/, so
# the machine's own apt setup is left as it is. Quick and offline once
# unpacked.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest=${SLUICE_LWIP_SOURCE:-$root/build/lwip-source}
[ -f "$dest/src/core/tcp.c" ] && exit 0

version=$(dpkg-query -W -f='${source:Version}' liblwip-dev)
work=$root/build/lwip-apt
rm -rf "$work"
mkdir -p "$work/lists/partial" "$work/sources.list.d" "$work/download"

# The Debian archives of this machine (deb822 or one-line form), as deb-src.
shopt -s nullglob
for f in /etc/apt/sources.list.d/debian*.sources; do
  sed -E 's/^Types:.*/Types: deb-src/' "$f" >"$work/sources.list.d/$(basename "$f")"
done
if [ -f /etc/apt/sources.list ]; then
  sed -nE 's/^deb (.*)/deb-src \1/p' /etc/apt/sources.list >"$work/sources.list"
else
  : >"$work/sources.list"
fi

apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/sources.list.d"
          -o "Dir::State::Lists=$work/lists" -o "APT::Sandbox::User=root" -qq)
echo "lwip-source: fetching Debian's lwip $version source package"
apt-get "${apt_opts[@]}" update
(cd "$work/download" && apt-get "${apt_opts[@]}" source --download-only "lwip=$version")

rm -rf "$dest"
# apt has checked the files against the archive's signed index.
dpkg-source --no-check -x "$work"/download/lwip_*.dsc "$dest" >/dev/null
rm -rf "$work"
[ -f "$dest/src/core/tcp.c" ] || { echo "lwip-source: no src/core/tcp.c in $dest" >&2; exit 1; }
echo "lwip-source: lwIP $version in $dest"
