"""Debian's python3-websockets on /ws/{topic}: receives 1,000 published
events, one message each, in order; then closes and sees the server's
close 1000. Usage: /usr/bin/python3 ws_events.py PORT"""
import asyncio
import sys

import websockets

from peer_common import PeerFailure, publish_all, run_bounded

SCRIPT = "ws_events.py"
EVENTS = 1000
TOPIC = "peer-py-events"


async def main(port):
    bodies = [f"n{i}" for i in range(EVENTS)]
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/{TOPIC}") as ws:

        async def receive():
            for i, want in enumerate(bodies):
                got = await ws.recv()
                if got != want:
                    raise PeerFailure(f"message {i} was {got!r}, wanted {want!r}")

        # The subscription is made during the handshake, so publishing may
        # start at once; a failure on either side ends the run.
        await asyncio.gather(receive(), asyncio.to_thread(publish_all, port, TOPIC, bodies))
        await ws.close(1000)
    if ws.close_code != 1000:
        raise PeerFailure(f"server answered the close with {ws.close_code}")
    print(f"{SCRIPT}: {EVENTS} events in order, close code 1000")


if __name__ == "__main__":
    run_bounded(SCRIPT, main(int(sys.argv[1])), seconds=30)
