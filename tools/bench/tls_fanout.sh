#!/usr/bin/env bash
# SSE fan-out over TLS against plain TCP, side by side in one run: one
# sluiced loop, SUBS curl subscribers of one topic, EVENTS events of 64
# bytes published by PUBS kept-alive curls at once (one: every event
# leaves in a flush of its own; more: events arrive together and a flush
# carries several, which is where packing them into records shows). Prints the server's CPU (user +
# system, from /proc/PID/stat) per delivered event for each transport.
# The publishing is inside the figure for both (over TLS it is decrypted
# too); the subscribers' curl processes are not.
# Usage: tools/bench/tls_fanout.sh BUILD_DIR [SUBS] [EVENTS] [PUBS]
set -euo pipefail
build=${1:?build directory}
subs=${2:-100}
events=${3:-2000}
pubs=${4:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tick=$(getconf CLK_TCK)

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
printf '%064d' 0 > "$work/body"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

run() {  # $1: plain | tls
  local scheme=http extra=()
  if [[ $1 == tls ]]; then
    scheme=https
    extra=(--set "tls.cert_file=$work/cert.pem" --set "tls.key_file=$work/key.pem")
  fi
  "$build/sluiced" --listen 127.0.0.1:0 --threads 1 "${extra[@]}" > "$work/$1.log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do grep -q listening "$work/$1.log" && break; sleep 0.05; done
  local port; port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/$1.log")
  local url="$scheme://127.0.0.1:$port"
  local readers=()
  for i in $(seq "$subs"); do
    curl -sN --cacert "$work/cert.pem" --max-time 120 "$url/sse/fan" -o "$work/$1.sub$i" &
    readers+=($!)
  done
  for _ in $(seq 200); do
    [[ $(grep -l '^retry:' "$work/$1".sub* 2>/dev/null | wc -l) -ge $subs ]] && break; sleep 0.05
  done
  local before; before=$(cpu_ticks "$pid")
  local urls=(); for _ in $(seq $((events / pubs))); do urls+=("$url/pub/fan"); done
  local publishers=()
  for _ in $(seq "$pubs"); do
    curl -s --cacert "$work/cert.pem" --data-binary "@$work/body" "${urls[@]}" > /dev/null &
    publishers+=($!)
  done
  wait "${publishers[@]}"
  for _ in $(seq 1200); do
    local done_subs=0
    for i in $(seq "$subs"); do
      [[ $(grep -c '^data:' "$work/$1.sub$i") -ge $events ]] && done_subs=$((done_subs + 1))
    done
    [[ $done_subs -ge $subs ]] && break; sleep 0.1
  done
  local after; after=$(cpu_ticks "$pid")
  local delivered=$((subs * events))
  local ns=$(( (after - before) * 1000000000 / tick / delivered ))
  printf '%-6s %4d subscribers x %5d events of 64 B from %d publishers: %d of %d delivered, server CPU %d ms, %d ns/event\n' \
    "$1" "$subs" "$events" "$pubs" "$done_subs" "$subs" $(( (after - before) * 1000 / tick )) "$ns"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  kill "${readers[@]}" 2>/dev/null || true
  wait "${readers[@]}" 2>/dev/null || true
}

run plain
run tls
