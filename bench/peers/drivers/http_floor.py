"""The HTTP floor: the least a job queue behind HTTP can do on Spool's own stack, as an anchor.

A Starlette app on uvicorn (the versions Spool pins, uvicorn's h11 protocol as
``python -m server`` uses, one process) keeps jobs in memory: ``POST /jobs`` appends one,
``POST /lease`` waits up to a second for one and hands it out, ``POST /ack`` settles it and
``GET /backlog`` counts the jobs queued or handed out. Its producer and its worker speak to it
with ``httpx.Client``, as the SDK's sync client does. No store, no authentication, no
validation, no durability: whatever Spool does on top of this stack costs time on top of these
figures, so they bound what a one-at-a-time publish (W1) and a publish to handler start (W3) can
reach through one HTTP round trip per call.
"""

from __future__ import annotations

import asyncio
import collections
import os
import socket
import subprocess
import sys

import httpx
import uvicorn
from _common import HERE, Side, record
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

__all__ = ["SIDE", "HttpFloorSide", "create_app", "serve", "work"]

_URL_VARIABLE = "BENCH_FLOOR_URL"
_LEASE_WAIT_SECONDS = 1.0


def create_app() -> Starlette:
    """The in-memory queue."""
    queued: collections.deque[str] = collections.deque()
    handed_out = 0
    arrived = asyncio.Event()

    async def publish(request: Request) -> Response:
        job_id = (await request.json())["id"]
        queued.append(job_id)
        arrived.set()
        return JSONResponse({"id": job_id}, status_code=201)

    async def lease(_request: Request) -> Response:
        nonlocal handed_out
        if not queued:
            arrived.clear()
            try:
                await asyncio.wait_for(arrived.wait(), _LEASE_WAIT_SECONDS)
            except TimeoutError:
                return Response(status_code=204)
            if not queued:
                return Response(status_code=204)
        handed_out += 1
        return JSONResponse({"id": queued.popleft()})

    async def ack(_request: Request) -> Response:
        nonlocal handed_out
        handed_out -= 1
        return Response(status_code=204)

    async def backlog(_request: Request) -> Response:
        return JSONResponse({"backlog": len(queued) + handed_out})

    return Starlette(
        routes=[
            Route("/jobs", publish, methods=["POST"]),
            Route("/lease", lease, methods=["POST"]),
            Route("/ack", ack, methods=["POST"]),
            Route("/backlog", backlog, methods=["GET"]),
        ]
    )


def serve() -> None:
    """The app's process: prints its port, then serves until interrupted."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # As python -m server does: asyncio sets TCP_NODELAY only on sockets whose protocol is TCP by
    # number, and a socket made as this one is has protocol 0; accepted connections inherit it.
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    print(listener.getsockname()[1], flush=True)
    config = uvicorn.Config(create_app(), http="h11", log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[listener])


class HttpFloorSide(Side):
    async def open(self) -> None:
        self._server = subprocess.Popen(
            [sys.executable, "-c", "import http_floor; http_floor.serve()"],
            cwd=HERE,
            env={**os.environ, "PYTHONPATH": str(HERE)},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._server.stdout is not None
        port = self._server.stdout.readline().strip()
        if not port:
            raise RuntimeError(f"the floor's server exited with {self._server.wait()}")
        # The worker process is started with this process's environment.
        os.environ[_URL_VARIABLE] = f"http://127.0.0.1:{port}"
        self._client = httpx.Client(base_url=os.environ[_URL_VARIABLE])

    async def close(self) -> None:
        self._client.close()
        self._server.terminate()
        self._server.wait(timeout=10)

    async def enqueue_one(self, job_id: str) -> None:
        self._client.post("/jobs", json={"id": job_id}).raise_for_status()

    async def backlog(self) -> int:
        return int(self._client.get("/backlog").json()["backlog"])

    def worker_command(self) -> list[str]:
        return [sys.executable, "-c", "import http_floor; http_floor.work()"]


def work() -> None:
    """The worker process: lease, run, acknowledge, one job at a time, until interrupted."""
    with httpx.Client(
        base_url=os.environ[_URL_VARIABLE], timeout=_LEASE_WAIT_SECONDS + 5
    ) as client:
        while True:
            response = client.post("/lease")
            response.raise_for_status()
            if response.status_code == 204:
                continue
            record(response.json()["id"])
            client.post("/ack").raise_for_status()


SIDE = HttpFloorSide()
