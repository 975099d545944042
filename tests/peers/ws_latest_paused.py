"""Debian's python3-websockets on /ws/{topic} under `latest`, through a
socket with a 16 KiB receive buffer: takes 20 events of 1,000 bytes as they
come, then takes none while events keep coming for 1.5 s, then takes them
again. While its socket stood still it was sent padding (unsolicited pongs,
which the library takes without answering, counted here); the events come
in order, the newest last, and a close 1000 is answered with 1000.
Usage: /usr/bin/python3 ws_latest_paused.py PORT"""
import asyncio
import http.client
import socket
import sys
import time

import websockets
from websockets.frames import Opcode
from websockets.legacy.client import WebSocketClientProtocol

from peer_common import PeerFailure, run_bounded

SCRIPT = "ws_latest_paused.py"
TOPIC = "peer-py-latest-paused"
READ = 20
PAUSED_SECONDS = 1.5


class CountingPongs(WebSocketClientProtocol):
    """Counts the pongs that arrive, none of which answers a ping of ours."""

    pongs = 0

    async def read_frame(self, max_size):
        frame = await super().read_frame(max_size)
        if frame.opcode == Opcode.PONG:
            CountingPongs.pongs += 1
        return frame


def body(n):
    return f"n{n} ".ljust(1000, "x")


def number(message):
    return int(message[1:].split(" ", 1)[0])


async def main(port):
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    sock.connect(("127.0.0.1", port))
    publisher = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    published = 0

    def publish_next():
        nonlocal published
        published += 1
        publisher.request("POST", f"/pub/{TOPIC}", body=body(published).encode())
        reply = publisher.getresponse()
        reply.read()
        if reply.status != 200:
            raise PeerFailure(f"publish {published} got HTTP {reply.status}")

    # One message queued and a small read buffer: the library stops reading
    # the socket soon after the application stops taking messages.
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/{TOPIC}", sock=sock, max_queue=1,
                                  read_limit=1024, create_protocol=CountingPongs) as ws:
        last = 0

        async def take():
            nonlocal last
            message = await ws.recv()
            if message.startswith('{"sluice":'):  # a notice of events `latest` replaced
                return
            n = number(message)
            if n <= last:
                raise PeerFailure(f"event n{n} after n{last}")
            last = n

        while last < READ:
            await asyncio.to_thread(publish_next)
            await take()
        until = time.monotonic() + PAUSED_SECONDS
        while time.monotonic() < until:
            await asyncio.to_thread(publish_next)
            await asyncio.sleep(0.01)
        held = 0
        while last != published:
            await take()
            held += 1
        if CountingPongs.pongs == 0:
            raise PeerFailure(f"the newest came after {held - 1} events and no padding")
        print(f"{SCRIPT}: {held - 1} events, {CountingPongs.pongs} padding pongs, then n{published}")
        await ws.close(1000)
    if ws.close_code != 1000:
        raise PeerFailure(f"server answered the close with {ws.close_code}")
    print(f"{SCRIPT}: paused, padded, then the newest; close code 1000")


if __name__ == "__main__":
    run_bounded(SCRIPT, main(int(sys.argv[1])), seconds=30)
