#!/usr/bin/python3
"""A `latest` SSE reader that reads everything it has every few seconds.

A device that wakes now and then, takes what its socket holds and sleeps
again: between its reads its window's edge stands still, as a reader's
whose kernel narrowed its buffer does, so sluiced's latency gate may send
it padding (SSE comments) to learn what it has read. This measures what
that costs the reader and what it gets: padding bytes, events, and, at
each read, the age of the newest event it has (read then or before).

Each server runs in turn (one sluiced each, on a free loopback port, one
loop, policy.default=latest plus its own settings), for each interval:

  tools/bench/latest_seldom_reader.py \\
      --server "main=/path/to/old/sluiced" \\
      --server "new=build/release/sluiced" \\
      --server "new-4k=build/release/sluiced --set policy.latest_padding_bytes_per_s=4096" \\
      --interval 0.5 --interval 1 --interval 3 --duration 30

A publisher posts SIZE-byte events at RATE a second over one keep-alive
connection; the reader uses the kernel's default (autotuned) receive
buffer unless --rcvbuf says otherwise. Python's standard library only.
"""
import argparse
import re
import shlex
import socket
import statistics
import subprocess
import threading
import time

HOST = "127.0.0.1"


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start_server(command, port):
    argv = shlex.split(command) + ["--listen", f"{HOST}:{port}", "--threads", "1",
                                   "--set", "policy.default=latest"]
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection((HOST, port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.05)
    server.kill()
    raise RuntimeError(f"{command} did not listen on {port}")


def request(port, text):
    """One request on its own connection; the whole reply."""
    with socket.create_connection((HOST, port), timeout=5) as c:
        c.sendall(text.encode())
        reply = b""
        while chunk := c.recv(65536):
            reply += chunk
        return reply


class Publisher(threading.Thread):
    def __init__(self, port, size, rate):
        super().__init__(daemon=True)
        self.port, self.size, self.rate = port, size, rate
        self.stop = threading.Event()
        self.published = 0
        self.error = None

    def run(self):
        try:
            self.publish()
        except OSError as e:
            self.error = e

    def publish(self):
        with socket.create_connection((HOST, self.port)) as c:
            replies = c.makefile("rb")
            start = time.monotonic()
            while not self.stop.is_set():
                n = self.published + 1
                body = f"{time.time():.6f} {n} ".encode()
                body += b"p" * (self.size - len(body))
                c.sendall(f"POST /pub/feed HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                          + body)
                status = replies.readline()
                if b" 200 " not in status:
                    raise OSError(f"publish refused: {status!r}")
                length = 0
                while (line := replies.readline()) not in (b"\r\n", b""):
                    if m := re.match(rb"(?i)content-length: *(\d+)", line):
                        length = int(m.group(1))
                replies.read(length)
                self.published = n
                pause = start + n / self.rate - time.monotonic()
                if pause > 0:
                    time.sleep(pause)


def measure(port, interval, duration, rcvbuf, size, rate):
    reader = socket.socket()
    if rcvbuf:
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    reader.connect((HOST, port))
    reader.sendall(f"GET /sse/feed HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n\r\n".encode())
    reader.setblocking(False)
    publisher = Publisher(port, size, rate)
    publisher.start()
    pending = b""
    padding = events = reads = reads_with_event = 0
    notice = False
    newest = None
    ages = []
    end = time.monotonic() + duration
    while time.monotonic() < end:
        time.sleep(interval)
        reads += 1
        while True:
            try:
                chunk = reader.recv(1 << 20)
            except BlockingIOError:
                break
            if not chunk:
                raise RuntimeError("the server closed the stream")
            pending += chunk
        now = time.time()
        *lines, pending = pending.split(b"\n")
        read_one = False
        for line in lines:
            if line.startswith(b":"):  # padding (heartbeats come only to an idle stream)
                padding += len(line) + 1
            elif line.startswith(b"event: "):
                notice = True  # sluice-dropped: what `latest` replaced
            elif line.startswith(b"data: ") and not notice:
                events += 1
                read_one = True
                newest = float(line[6:].split(b" ")[0])
            elif not line:
                notice = False
        reads_with_event += read_one
        if newest is not None:
            ages.append(now - newest)
    publisher.stop.set()
    publisher.join()
    reader.close()
    if publisher.error:
        raise RuntimeError(f"publisher: {publisher.error}")
    # Counted as queued: padding the reader never took counts too.
    metrics = request(port, f"GET /metrics HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n")
    counted = re.search(rb"sluice_latest_padding_bytes_total (\d+)", metrics)
    return {"published": publisher.published, "events": events, "reads": reads,
            "reads_with_event": reads_with_event, "padding": padding,
            "counted": int(counted.group(1)) if counted else None,
            "age_p50_ms": 1000 * statistics.median(ages) if ages else None,
            "age_max_ms": 1000 * max(ages) if ages else None}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", action="append", required=True, help="NAME=COMMAND (sluiced and its options)")
    parser.add_argument("--interval", action="append", type=float, help="seconds between the reader's reads")
    parser.add_argument("--duration", type=float, default=30, help="seconds per run")
    parser.add_argument("--rcvbuf", type=int, default=0, help="the reader's SO_RCVBUF; 0: autotuned")
    parser.add_argument("--size", type=int, default=1024, help="event bytes")
    parser.add_argument("--rate", type=float, default=100, help="events a second")
    args = parser.parse_args()
    print(f"{'server':>10} {'interval s':>10} {'published':>9} {'events':>7} {'reads w/ event':>14} "
          f"{'padding B':>10} {'counted B':>10} {'age p50 ms':>10} {'age max ms':>10}")
    for interval in args.interval or [1.0]:
        for spec in args.server:
            name, command = spec.split("=", 1)
            port = free_port()
            server = start_server(command, port)
            try:
                r = measure(port, interval, args.duration, args.rcvbuf, args.size, args.rate)
            finally:
                server.terminate()
                server.wait()
            fmt = lambda v: "-" if v is None else f"{v:.0f}"
            print(f"{name:>10} {interval:>10} {r['published']:>9} {r['events']:>7} "
                  f"{str(r['reads_with_event']) + '/' + str(r['reads']):>14} {r['padding']:>10} "
                  f"{fmt(r['counted']):>10} {fmt(r['age_p50_ms']):>10} {fmt(r['age_max_ms']):>10}", flush=True)


if __name__ == "__main__":
    main()
