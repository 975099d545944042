#!/usr/bin/env bash
# Runs every scenario against sluiced, the peers that were built or are
# installed (Boost.Beast, websocketpp, Nchan), sluice embedded with an
# in-process publisher (sluiced-inproc) and the speed-of-light server,
# server pinned to core 0 and client to core 1, and leaves JSON and SVG in
# OUT (default docs/bench). The figures in docs/BENCHMARKS.md come
# from this script.
#   tools/bench/run_benchmarks.sh BUILD_DIR [OUT] [SLUICED]
# ONLY=name1,name2 runs just those runs (e.g. ONLY=fanout-ws,connections).
set -euo pipefail
build=${1:?build dir}
out=${2:-docs/bench}
sluiced=${3:-$build/sluiced}
here=$(cd "$(dirname "$0")/../.." && pwd)
bench="taskset -c 1 $build/tools/bench/sluice-bench"
listen="--listen 127.0.0.1:0"
mkdir -p "$out"

# One loop: each server gets core 0 alone, the client core 1.
# websocketpp cannot stream an HTTP response, so it takes part over
# WebSocket only (ws_servers). Nchan (nginx-light + libnginx-mod-nchan)
# runs from bench/peers/nchan_peer.sh, which writes its nginx config: one
# nginx process on a free loopback port, /pub, /sse and /ws mapped to
# Nchan's publisher and subscribers.
servers=(--server "sluice=taskset -c 0 $sluiced $listen --threads 1")
if [ -x "$build/bench/beast-peer" ]; then servers+=(--server "beast=taskset -c 0 $build/bench/beast-peer $listen"); fi
if [ -r /usr/lib/nginx/modules/ngx_nchan_module.so ] && command -v nginx >/dev/null; then
  servers+=(--server "nchan=taskset -c 0 $here/bench/peers/nchan_peer.sh $listen")
else
  echo "Nchan is not installed (nginx-light libnginx-mod-nchan): it takes part in no scenario" >&2
fi
ws_servers=("${servers[@]}")
if [ -x "$build/bench/websocketpp-peer" ]; then
  ws_servers+=(--server "websocketpp=taskset -c 0 $build/bench/websocketpp-peer $listen")
fi
sol="taskset -c 0 $build/bench/sol-server $listen"
# For tens of thousands of connections sluiced must be allowed them
# (max_connections, 10,000 by default), and its pool must hold a block per
# connection (pool.block_count >= max_connections + pool.reserve): 100,352
# blocks of 4 KiB, 392 MiB, faulted in at start. Every client connects from
# loopback, one address, so limits.per_ip_connections (1,024) is raised too.
many_servers=(--server "sluice=taskset -c 0 $sluiced $listen --threads 1 --set max_connections=100000 --set pool.block_count=100352 --set limits.per_ip_connections=100000"
              "${ws_servers[@]:2}")

# A scenario in which one server fails (beast-peer drops a subscriber
# without a close in concurrent-send) still writes its JSON; the run goes on.
run() {
  local name=$1
  shift
  if [ -n "${ONLY:-}" ] && [[ ",$ONLY," != *",$name,"* ]]; then return; fi
  echo "== $name" >&2
  $bench "$@" --json --svg "$out/$name.svg" >"$out/$name.json" || echo "$name: a server failed the scenario (see $out/$name.json)" >&2
}

# The client's own ceiling, in memory (no server): what one core parses.
if [ -z "${ONLY:-}" ] || [[ ",$ONLY," == *",client-ceiling,"* ]]; then
  $bench client-ceiling -d 3 --json >"$out/client-ceiling.json"
fi

# Fan-out: every row states the client's CPU and whether it was the limit.
run fanout fanout "${servers[@]}" --server "sol=$sol" -n 100 -s 64 -d 5
run fanout-publish-ws fanout "${servers[@]}" --server "sol=$sol" --publish ws -n 100 -s 64 -d 5
run fanout-ws fanout "${ws_servers[@]}" --server "sol=$sol" --proto ws -n 100 -s 64 -d 5
run fanout-ws-publish-ws fanout "${ws_servers[@]}" --server "sol=$sol" --proto ws --publish ws -n 100 -s 64 -d 5
run fanout-ws-10k fanout "${many_servers[@]}" --server "sol=$sol" --proto ws -n 10000 -s 64 -d 5 --warmup 2
run fanout-ws-1 fanout "${ws_servers[@]}" --server "sol=$sol" --proto ws -n 1 -s 64 -d 5
# In process: sluice embedded with a thread publishing (sluiced-inproc), by
# Server::publish and by Server::publish_waiting, beside sluiced published
# by POST; each publisher starts once every subscriber is connected.
inproc="taskset -c 0 $build/bench/sluiced-inproc $listen --threads 1"
for n in 1 100; do
  run fanout-ws-inproc-$n fanout --server "inproc=$inproc --start-after $n" \
    --server "inproc-wait-5s=$inproc --start-after $n --publish waiting --wait-ms 5000" "${servers[@]:0:2}" \
    --server "sol=$sol" --proto ws -n $n -s 64 -d 5
done
inproc_many="$inproc --set max_connections=100000 --set pool.block_count=100352 --set limits.per_ip_connections=100000"
run fanout-ws-10k-inproc fanout --server "inproc=$inproc_many --start-after 10000" \
  --server "inproc-wait-5s=$inproc_many --start-after 10000 --publish waiting --wait-ms 5000" "${many_servers[@]:0:2}" \
  --server "sol=$sol" --proto ws -n 10000 -s 64 -d 5 --warmup 2
# Over TLS: sluiced and sol in clear and with a certificate the run makes
# ({cert}, {key}), which the client verifies; "vs limit" is against sol over TLS.
tls=(--server "sluice=taskset -c 0 $sluiced $listen --threads 1"
     --tls-server "sluice-tls=taskset -c 0 $sluiced $listen --threads 1 --set tls.cert_file={cert} --set tls.key_file={key}"
     --server "sol=$sol" --tls-server "sol-tls=$sol --tls-cert {cert} --tls-key {key}" --limit sol-tls)
run fanout-tls fanout "${tls[@]}" -n 100 -s 64 -d 5
run fanout-ws-tls fanout "${tls[@]}" --proto ws -n 100 -s 64 -d 5
# Over HTTP/2, the transport chosen per server (NAME@h2c/K, NAME@h2/K):
# HTTP/1.1, h2c with one stream to each connection and with all 100 on one,
# and TLS over HTTP/1.1 and over h2 chosen by ALPN; two interleaved rounds.
one="taskset -c 0 $sluiced $listen --threads 1"
cert="--set tls.cert_file={cert} --set tls.key_file={key}"
run fanout-h2 fanout --server "h1=$one" --server "h2c@h2c=$one" --server "h2c@h2c/100=$one" \
  --tls-server "tls=$one $cert" --tls-server "tls@h2/100=$one $cert" -n 100 -s 64 -d 5 --repeat 2
# Many connections: sol relays each published event once to everyone.
run connections connections "${many_servers[@]}" --server "sol=$sol --mode relay" -n 10000 -b 10
# 100,000 subscribers: a process may hold only RLIMIT_NOFILE descriptors
# (20,000 here, hard), so the bench spreads its subscribers over worker
# processes and sluiced runs as 6 nodes joined by a redis-server the bench
# starts (--nodes 6: each node gets --broker), 16,667 subscribers each, so
# max_connections and the pool (a block per connection) are sized per node.
# Every broadcast crosses Redis. sol cannot join a broker: its figures stop
# at the 10,000 above.
node="taskset -c 0 $sluiced $listen --threads 1 --set max_connections=19000 --set pool.block_count=19300 --set limits.per_ip_connections=100000"
run connections-100k connections --server "sluice=$node" -n 100000 --nodes 6 -b 5 --connect-timeout 300 --broadcast-timeout 60
run connections-100k-sse connections --server "sluice=$node" -n 100000 --nodes 6 -b 5 --proto sse --connect-timeout 300 --broadcast-timeout 60
run burst burst "${servers[@]}" --server "sol=$sol --mode burst --events 1000" -k 1000
run burst-ws burst "${ws_servers[@]}" --server "sol=$sol --mode burst --events 1000" --proto ws -k 1000
run burst-ws-live burst "${ws_servers[@]}" --server "sol=$sol --mode burst --events 1000" --proto ws --mode live -k 1000
run burst-wifi burst "${servers[@]}" --server "sol=$sol --mode burst --events 1000" -k 1000 --rounds 3 \
  --link rate=3mbit,delay=20ms,window=5760
# sluiced twice more, with the lossy policies a live feed would choose; the
# reader's receive buffer is small, as a slow link's window is, or the
# kernel's buffers would hold seconds of frames whatever the server does.
# sluice-latest-2k also keeps less unsent in the kernel (tcp.notsent_lowat).
lossy=(--server "sluice-latest=taskset -c 0 $sluiced $listen --threads 1 --set policy.default=latest"
       --server "sluice-latest-2k=taskset -c 0 $sluiced $listen --threads 1 --set policy.default=latest --set tcp.notsent_lowat=2048"
       --server "sluice-drop-oldest=taskset -c 0 $sluiced $listen --threads 1 --set policy.default=drop-oldest")
run slow-consumer slow-consumer "${servers[@]}" "${lossy[@]}" -s 1024 -f 100 -R 20 -d 10 --rcvbuf 4096
run slow-consumer-ws slow-consumer "${ws_servers[@]}" "${lossy[@]}" --proto ws -s 1024 -f 100 -R 20 -d 10 --rcvbuf 4096
run pool-pressure pool-pressure "${ws_servers[@]}" -d 5
run bulk bulk "${servers[@]}" -d 5
run concurrent-send concurrent-send "${ws_servers[@]}"
run concurrent-send-ws concurrent-send "${ws_servers[@]}" --publish ws
