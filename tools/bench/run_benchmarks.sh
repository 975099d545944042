#!/usr/bin/env bash
# Runs every scenario against sluiced, the peers that were built and the
# speed-of-light server, server pinned to core 0 and client to core 1, and
# leaves JSON and SVG in OUT (default docs/bench). The figures in
# docs/BENCHMARKS.md come from this script.
#   tools/bench/run_benchmarks.sh BUILD_DIR [OUT] [SLUICED]
set -euo pipefail
build=${1:?build dir}
out=${2:-docs/bench}
sluiced=${3:-$build/sluiced}
bench="taskset -c 1 $build/tools/bench/sluice-bench"
listen="--listen 127.0.0.1:0"
mkdir -p "$out"

servers=(--server "sluice=taskset -c 0 $sluiced $listen")
for peer in beast-peer websocketpp-peer; do
  if [ -x "$build/bench/$peer" ]; then servers+=(--server "${peer%-peer}=taskset -c 0 $build/bench/$peer $listen"); fi
done
sol="taskset -c 0 $build/bench/sol-server $listen"

$bench fanout "${servers[@]}" --server "sol=$sol" -n 100 -s 64 -d 5 --json --svg "$out/fanout.svg" >"$out/fanout.json"
$bench burst "${servers[@]}" --server "sol=$sol --mode burst --events 1000" -k 1000 --json --svg "$out/burst.svg" >"$out/burst.json"
$bench burst "${servers[@]}" --server "sol=$sol --mode burst --events 1000" -k 1000 --rounds 3 \
  --link rate=3mbit,delay=20ms,window=5760 --json --svg "$out/burst-wifi.svg" >"$out/burst-wifi.json"
$bench slow-consumer "${servers[@]}" -s 1024 -f 100 -R 20 -d 10 --json --svg "$out/slow-consumer.svg" >"$out/slow-consumer.json"
$bench pool-pressure "${servers[@]}" -d 5 --json --svg "$out/pool-pressure.svg" >"$out/pool-pressure.json"
$bench bulk "${servers[@]}" -d 5 --json --svg "$out/bulk.svg" >"$out/bulk.json"
$bench fanout "${servers[@]}" --server "sol=$sol" --proto ws -n 100 -s 64 -d 5 --json --svg "$out/fanout-ws.svg" >"$out/fanout-ws.json"
$bench fanout "${servers[@]}" --server "sol=$sol" --proto ws --publish ws -n 100 -s 64 -d 5 --json \
  --svg "$out/fanout-ws-publish-ws.svg" >"$out/fanout-ws-publish-ws.json"
$bench slow-consumer "${servers[@]}" --proto ws -s 1024 -f 100 -R 20 -d 10 --json --svg "$out/slow-consumer-ws.svg" \
  >"$out/slow-consumer-ws.json"
$bench concurrent-send "${servers[@]}" --json --svg "$out/concurrent-send.svg" >"$out/concurrent-send.json"
$bench concurrent-send "${servers[@]}" --publish ws --json --svg "$out/concurrent-send-ws.svg" >"$out/concurrent-send-ws.json"
