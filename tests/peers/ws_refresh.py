"""Debian's python3-websockets on /ws with tokens that expire: of two
connections opened with the same short-lived token, the one that sends a
refresh before exp still gets events after the other was closed 4401 at
exp. Usage: /usr/bin/python3 ws_refresh.py PORT SHORT_TOKEN NEW_TOKEN
PUBLISH_TOKEN EXP_MS (EXP_MS: the short token's exp, ms since the epoch;
sluiced runs with auth.clock_skew_ms=0)."""
import asyncio
import http.client
import json
import sys
import time

import websockets

from peer_common import PeerFailure, run_bounded

SCRIPT = "ws_refresh.py"
TOPIC = "news"
CLOCK_SLACK_MS = 20  # wall and steady clocks drift apart by a hair


def publish(port, token, body):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", f"/pub/{TOPIC}", body=body.encode(), headers={"Authorization": f"Bearer {token}"})
    reply = connection.getresponse()
    reply.read()
    connection.close()
    if reply.status != 200:
        raise PeerFailure(f"publish got HTTP {reply.status}")


async def answer(ws, req):
    ack = json.loads(await ws.recv())
    if ack.get("op") != "ack" or ack.get("req") != req or ack.get("ok") is not True:
        raise PeerFailure(f"request {req} was answered {ack}")


async def main(port, short_token, new_token, publish_token, exp_ms):
    url = f"ws://127.0.0.1:{port}/ws"
    headers = {"Authorization": f"Bearer {short_token}"}
    async with websockets.connect(url, extra_headers=headers) as left, \
            websockets.connect(url, extra_headers=headers) as kept:
        for ws in (left, kept):
            await ws.send(json.dumps({"op": "subscribe", "topic": TOPIC, "req": 1}))
            await answer(ws, 1)
        await kept.send(json.dumps({"op": "refresh", "token": new_token, "req": 2}))
        await answer(kept, 2)
        if time.time() * 1000 >= exp_ms:
            raise PeerFailure("the refresh was answered only after the first token's exp: nothing was shown")
        try:
            message = await left.recv()
            raise PeerFailure(f"the unrefreshed connection got {message!r} instead of its close")
        except websockets.ConnectionClosed:
            pass
        closed_ms = time.time() * 1000
        if left.close_code != 4401 or left.close_reason != "401 token expired":
            raise PeerFailure(f"closed {left.close_code} {left.close_reason!r}")
        if closed_ms < exp_ms - CLOCK_SLACK_MS:
            raise PeerFailure(f"closed {exp_ms - closed_ms:.0f} ms before exp")
        await asyncio.to_thread(publish, port, publish_token, "after")
        event = json.loads(await kept.recv())
        if event.get("op") != "event" or event.get("data") != "after":
            raise PeerFailure(f"the refreshed connection got {event}")
    print(f"{SCRIPT}: unrefreshed closed 4401 '401 token expired' at exp, refreshed one got an event after it")


if __name__ == "__main__":
    run_bounded(SCRIPT, main(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])), seconds=20)
