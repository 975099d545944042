#!/usr/bin/env python3
"""Measures what an idle connection costs sluiced: starts the given sluiced
on a free loopback port, opens COUNT SSE streams and COUNT WebSockets (each
on its own topic among TOPICS), and prints the growth of the process's
resident memory and of the kernel's TCP memory per connection.

Usage: connection_memory.py SLUICED [COUNT] [TOPICS]   (defaults 2000, 100)
The pool is as small as the connections allow (one block each, which
sluiced requires) and faulted in at start, so what grows is the
per-connection memory, not pool pages being touched; max_connections and
limits.per_ip_connections are raised to let them all in."""
import base64
import os
import re
import socket
import subprocess
import sys
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))


def tcp_mem_kib():
    with open("/proc/net/sockstat") as f:
        pages = int(re.search(r"TCP: .* mem (\d+)", f.read()).group(1))
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def open_stream(port, request, expect):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(request.encode())
    head = b""
    deadline = time.monotonic() + 10
    while expect not in head and time.monotonic() < deadline:
        chunk = s.recv(4096)
        if not chunk:
            raise RuntimeError(f"closed: {head!r}")
        head += chunk
    return s


def main():
    sluiced = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    topics = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    server = subprocess.Popen(
        [sluiced, "--listen", "127.0.0.1:0", "--threads", "1",
         "--set", f"pool.block_count={2 * count + 200}", "--set", "pool.reserve=64",
         "--set", f"max_connections={2 * count + 10}",
         # every connection comes from 127.0.0.1: past the per-address
         # limit (1024 by default) it would be refused
         "--set", f"limits.per_ip_connections={2 * count + 10}"],
        stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline().rsplit(":", 1)[1])
        base_rss, base_tcp = rss_kib(server.pid), tcp_mem_kib()
        sse = [open_stream(port, f"GET /sse/t{i % topics} HTTP/1.1\r\nHost: localhost\r\n\r\n", b"\n\n")
               for i in range(count)]
        sse_rss, sse_tcp = rss_kib(server.pid), tcp_mem_kib()
        key = base64.b64encode(os.urandom(16)).decode()
        ws = [open_stream(port, f"GET /ws/t{i % topics} HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
                                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                                f"Sec-WebSocket-Version: 13\r\n\r\n", b"\r\n\r\n")
              for i in range(count)]
        ws_rss, ws_tcp = rss_kib(server.pid), tcp_mem_kib()
        print(f"{count} SSE streams: {(sse_rss - base_rss) * 1024 / count:.0f} B resident each in sluiced, "
              f"{(sse_tcp - base_tcp) * 1024 / count:.0f} B of kernel TCP memory each (both ends)")
        print(f"{count} WebSockets:  {(ws_rss - sse_rss) * 1024 / count:.0f} B resident each in sluiced, "
              f"{(ws_tcp - sse_tcp) * 1024 / count:.0f} B of kernel TCP memory each (both ends)")
        print(f"sluiced resident: {base_rss} KiB idle, {ws_rss} KiB with {2 * count} connections")
        for s in sse + ws:
            s.close()
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
