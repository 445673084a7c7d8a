"""The anchor for a single publish over HTTP: a minimal Starlette app whose one route reads a JSON
body, XADDs its ``body`` to a Redis stream with redis.asyncio and answers 201 with the entry id.

It runs under the same uvicorn version and settings as ``python -m server`` (one worker, asyncio
loop, warning log level, TCP_NODELAY on accepted sockets), so the ratio against it is what Spool's
own routing, checks and store code cost. ``python -m bench.anchors.starlette_xadd --redis URL
--key-prefix P`` prints ``anchor listening on http://HOST:PORT`` once its socket listens.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from collections.abc import Sequence

import redis.asyncio
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

__all__ = ["READY_LINE", "create_app", "main"]

READY_LINE = "anchor listening on http://{host}:{port}"


def create_app(redis_url: str, key_prefix: str) -> Starlette:
    """The app: ``POST /v1/streams/{stream}/entries`` appends to the stream ``key_prefix + stream``."""
    client = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)

    async def append(request: Request) -> Response:
        document = json.loads(await request.body())
        stream = request.path_params["stream"]
        entry_id = await client.xadd(
            f"{key_prefix}{stream}", {"body": json.dumps(document["body"])}
        )
        return JSONResponse({"id": entry_id, "stream": stream}, status_code=201)

    return Starlette(routes=[Route("/v1/streams/{stream}/entries", append, methods=["POST"])])


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the anchor on a free loopback port until SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m bench.anchors.starlette_xadd")
    parser.add_argument("--redis", required=True, help="Redis URL")
    parser.add_argument("--key-prefix", required=True, help="prefix of every stream key")
    arguments = parser.parse_args(argv)
    config = uvicorn.Config(
        create_app(arguments.redis, arguments.key_prefix),
        host="127.0.0.1",
        port=0,
        log_level="warning",
        lifespan="off",
    )
    listener = config.bind_socket()
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    # Listening before uvicorn serves: a client that connects on the ready line waits in the
    # backlog until the server accepts it, rather than being refused.
    listener.listen(config.backlog)
    sys.stdout.write(READY_LINE.format(host="127.0.0.1", port=listener.getsockname()[1]) + "\n")
    sys.stdout.flush()
    uvicorn.Server(config).run(sockets=[listener])


if __name__ == "__main__":
    main()
