#!/usr/bin/env bash
# nchan-peer: Nchan (the nginx push module, Debian's libnginx-mod-nchan on
# nginx-light) set up as sluice-bench expects of a server: it writes an
# nginx config to a fresh directory, listens on a loopback port, prints
# "nchan-peer listening on HOST:PORT" once nginx accepts, and becomes nginx
# (exec), so that the bench's pid, CPU and memory figures are nginx's own.
# One process does all the work: master_process off is nginx running its
# one worker's event loop itself, which is what Nchan with one worker does.
#   POST /pub/{topic}   publish (HTTP); Nchan answers 201/202 with its
#                       channel's state, in text, not sluiced's JSON
#   GET  /pub/{topic}   WebSocket publisher; Nchan acknowledges every
#                       message with a text message of the same state
#   GET  /sse/{topic}   EventSource subscriber (needs Accept: text/event-stream)
#   GET  /ws/{topic}    WebSocket subscriber
# Port 0 picks a free port below the ephemeral range. Exit 3 when nginx or
# the module is missing; 2 on a bad argument.
#
#   bench/peers/nchan_peer.sh --listen 127.0.0.1:0 [--module PATH]
set -euo pipefail

usage() { echo "usage: nchan_peer.sh --listen HOST:PORT [--module PATH]" >&2; exit 2; }

listen=127.0.0.1:8080
module=/usr/lib/nginx/modules/ngx_nchan_module.so
while [ $# -gt 0 ]; do
  case $1 in
    --listen) [ $# -ge 2 ] || usage; listen=$2; shift 2 ;;
    --module) [ $# -ge 2 ] || usage; module=$2; shift 2 ;;
    *) usage ;;
  esac
done
host=${listen%:*}
port=${listen##*:}
[[ $host =~ ^[0-9.]+$ && $port =~ ^[0-9]+$ && $port -le 65535 ]] || usage
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || { echo "nchan-peer: nginx not found (Debian: nginx-light)" >&2; exit 3; }
[ -r "$module" ] || { echo "nchan-peer: $module not found (Debian: libnginx-mod-nchan)" >&2; exit 3; }

# Whether something accepts on host:port (bash's /dev/tcp connect).
accepts() { (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null; }

if [ "$port" -eq 0 ]; then
  read -r ephemeral_low _ </proc/sys/net/ipv4/ip_local_port_range
  for _ in $(seq 1 50); do
    port=$((10000 + RANDOM % (ephemeral_low - 10000)))
    accepts "$port" || break
  done
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/nchan-peer.XXXXXX")
cat >"$dir/nginx.conf" <<CONF
load_module $module;
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events {
  worker_connections $(ulimit -n);
  multi_accept on;
}
http {
  access_log off;
  client_body_temp_path $dir;
  # Bodies stay in memory: the directory is removed once nginx runs.
  client_max_body_size 4m;
  client_body_buffer_size 4m;
  server {
    listen $host:$port backlog=65535;
    location ~ ^/pub/([^/]+)\$ {
      nchan_publisher http websocket;
      nchan_channel_id \$1;
    }
    location ~ ^/sse/([^/]+)\$ {
      nchan_subscriber eventsource;
      nchan_channel_id \$1;
    }
    location ~ ^/ws/([^/]+)\$ {
      nchan_subscriber websocket;
      nchan_channel_id \$1;
    }
    location = /healthz { return 200 "ok\n"; }
  }
}
CONF

# Says "listening" once nginx accepts (nginx prints nothing itself), then
# removes the directory: nginx has read its config and keeps its log open.
# Waits 10 s at most; on failure it shows nginx's error log.
(
  for _ in $(seq 1 200); do
    if accepts "$port"; then
      echo "nchan-peer listening on $host:$port"
      rm -rf "$dir"
      exit 0
    fi
    sleep 0.05
  done
  cat "$dir/error.log" >&2 || true
  rm -rf "$dir"
) &
exec "$nginx" -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf"
