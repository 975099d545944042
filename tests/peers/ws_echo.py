"""Debian's python3-websockets against /ws-echo with permessage-deflate:
large text and binary messages go out in fragments, compressed, and must
come back whole and unchanged; the bytes received show that the echoes
were compressed. Usage: /usr/bin/python3 ws_echo.py PORT"""
import os
import sys

import websockets
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.legacy.client import WebSocketClientProtocol

from peer_common import PeerFailure, run_bounded

SCRIPT = "ws_echo.py"
FRAGMENT = 64 * 1024


class CountingProtocol(WebSocketClientProtocol):
    """Counts the bytes that arrive off the socket, before inflating."""

    bytes_in = 0

    def data_received(self, data):
        self.bytes_in += len(data)
        super().data_received(data)


def fragments(data):
    return [data[at:at + FRAGMENT] for at in range(0, len(data), FRAGMENT)]


async def main(port):
    text = "€ sluice ✓ ñ 𝄞 " * 25600
    random = os.urandom(700 * 1024)
    compressible = text[:200 * 1024].encode()
    # (what to send, what must come back)
    exchanges = [(fragments(text), text), (fragments(random), random), (compressible, compressible), ("short", "short")]
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws-echo", max_size=2 * 1024 * 1024,
                                  create_protocol=CountingProtocol) as ws:
        if not any(isinstance(e, PerMessageDeflate) for e in ws.extensions):
            raise PeerFailure("no permessage-deflate negotiated")
        for i, (message, want) in enumerate(exchanges):
            await ws.send(message)
            got = await ws.recv()
            if type(got) is not type(want) or got != want:
                raise PeerFailure(f"echo {i}: {type(got).__name__} of {len(got)} differs from what was sent")
        await ws.close(1000)
    if ws.close_code != 1000:
        raise PeerFailure(f"server answered the close with {ws.close_code}")
    plain = len(text.encode()) + len(random) + len(compressible) + 5
    if ws.bytes_in > len(random) + (plain - len(random)) // 10 + 4096:
        raise PeerFailure(f"received {ws.bytes_in} bytes: the echoes were not compressed")
    print(f"{SCRIPT}: {len(exchanges)} fragmented/compressed messages echoed intact "
          f"({plain} bytes, {ws.bytes_in} received), close code 1000")


if __name__ == "__main__":
    run_bounded(SCRIPT, main(int(sys.argv[1])), seconds=30)
