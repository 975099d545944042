"""What the Python peer scripts share: a deadline on the whole run, one
way to report failure, and a publisher over one kept-alive HTTP connection."""
import asyncio
import http.client
import sys


class PeerFailure(Exception):
    """Something the peer received was not what the server promises."""


def run_bounded(script, coroutine, seconds):
    """Runs the script's coroutine; exits 1 on any failure, 3 past `seconds`."""
    try:
        asyncio.run(asyncio.wait_for(coroutine, seconds))
    except asyncio.TimeoutError:
        print(f"{script}: no result within {seconds} s", file=sys.stderr)
        sys.exit(3)
    except Exception as error:  # a PeerFailure, or the client library's own error
        print(f"{script}: FAIL {error}", file=sys.stderr)
        sys.exit(1)


def publish_all(port, topic, bodies):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for i, body in enumerate(bodies):
        connection.request("POST", f"/pub/{topic}", body=body.encode())
        reply = connection.getresponse()
        reply.read()
        if reply.status != 200:
            raise PeerFailure(f"publish {i} got HTTP {reply.status}")
    connection.close()
