#!/usr/bin/env bash
# Installs the build tree (the dev and runtime components) into a scratch
# prefix, checks that only the public headers went in, then builds
# tests/package/consumer against the installed copy twice, with
# find_package(sluice) and with pkg-config, and runs both programs: each
# starts a server, publishes, and must receive the event with a real client.
# Offline and bounded: every step has a time limit.
# Usage: install_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=${1:?source dir}
build_dir=${2:?build dir}
prefix=$(mktemp -d "${TMPDIR:-/tmp}/sluice-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT

cmake --install "$build_dir" --prefix "$prefix" --component dev >/dev/null
cmake --install "$build_dir" --prefix "$prefix" --component runtime >/dev/null
test -f "$prefix/include/sluice/sluice.hpp"
if find "$prefix/include" -name '*.hpp' |
  grep -vE '/include/sluice/(sluice|server|config|policy|authorization|connection_ref|stats|client/[a-z_]+)\.hpp$'; then
  echo "headers other than the public API were installed" >&2
  exit 1
fi
timeout 10 "$prefix/bin/sluiced" --help >/dev/null
timeout 10 "$prefix/bin/sluice" --help >/dev/null

consumer="$source_dir/tests/package/consumer"
timeout 120 cmake -S "$consumer" -B "$prefix/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
timeout 120 cmake --build "$prefix/build" >/dev/null
timeout 30 "$prefix/build/consumer"

pc_file=$(find "$prefix" -name sluice.pc)
export PKG_CONFIG_PATH=${pc_file%/*}
# shellcheck disable=SC2046  # pkg-config's output is a list of words
timeout 120 c++ -std=c++20 -o "$prefix/consumer-pc" "$consumer/main.cpp" $(pkg-config --cflags --libs sluice)
timeout 30 "$prefix/consumer-pc"
echo "installed package: find_package and pkg-config consumers both received their event"
