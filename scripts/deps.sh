#!/usr/bin/env bash
# Installs the Debian packages sluice needs to build, test and benchmark,
# only those that are missing, so a second run is quick and offline.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libssl-dev zlib1g-dev
  openssl              # the TLS tests make their certificates with the openssl command
  libtomlplusplus-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  curl python3-websockets
  python3-jwt python3-cryptography  # tests/peers/jwt_peer.py: PyJWT, an independent JWT implementation
  iperf3 libboost-dev  # sluice-bench: the bulk scenario's TCP reference, the Beast peer
  libwebsocketpp-dev   # bench/peers: the websocketpp peer
  chromium             # tests/peers: a real browser's EventSource, run headless
  libnghttp2-dev       # HTTP/2 transport
  libjwt-dev           # bearer tokens (JWT) for publish/subscribe permissions
  libhiredis-dev redis-server  # the Redis broker, and the real Redis its tests start
  liburing-dev         # the optional io_uring backend
  prometheus           # promtool and a real Prometheus for the /metrics test
  liblwip-dev          # the lwIP backend's host test
  gcc-arm-none-eabi libstdc++-arm-none-eabi-newlib picolibc-arm-none-eabi qemu-system-arm  # cortex-m preset
  nginx-light libnginx-mod-nchan  # sluice-bench: Nchan as a peer
  groff-base           # the man pages' formatting check
)
# tests/peers run real Node clients too. A machine with a Node of its own
# (NodeSource's nodejs brings its own npm) keeps it.
command -v node >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
