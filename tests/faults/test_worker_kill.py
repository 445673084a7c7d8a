"""A worker killed (SIGKILL) in the middle of a run, with jobs or entries handled whose batched
acknowledgements were not sent yet, and others fetched ahead and not handled: a second worker
delivers them again, so every message is handled at least once and none is lost. Sync and async
`run()` with handlers running concurrently, queues and streams, on both stores.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import sdk
from tests.conftest import ROOT, ServerProcess

pytestmark = pytest.mark.slow

MESSAGES = 400
KILL_AFTER = 120
# Short, so that what the killed worker held comes back within the test.
LEASE_SECONDS = 1
REDELIVER_AFTER = "1s"

WORKER = """
import asyncio, os, sys, time
import sdk

url, token, kind, name, mode, log = sys.argv[1:7]
out = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)


def record(body):
    # One write per message on an O_APPEND file: the line is whole even if the process dies.
    os.write(out, f"{body['n']}\\n".encode())
    time.sleep(0.002)


async def arecord(body):
    os.write(out, f"{body['n']}\\n".encode())
    await asyncio.sleep(0.002)


def subscribe(client, queue, handler):
    if kind == "queue":
        queue.subscribe()(handler)
    else:
        client.subscribe(sdk.Stream(name, group="g"), start_id="0", redeliver_after="1s")(handler)


if mode == "sync":
    with sdk.Client(url, token) as client:
        subscribe(client, client.init_queue(name) if kind == "queue" else None, record)
        client.run(concurrency=4, stop_after=60)
else:
    async def main():
        async with sdk.AsyncClient(url, token) as client:
            queue = await client.init_queue(name) if kind == "queue" else None
            subscribe(client, queue, arecord)
            await client.run(concurrency=4, stop_after=60)

    asyncio.run(main())
"""


def _start_worker(
    server: ServerProcess, kind: str, mode: str, log: Path
) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-c", WORKER, server.base_url, server.token, kind, "work", mode]
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")}
    return subprocess.Popen([*command, str(log)], cwd=ROOT, env=environment)


def _handled(log: Path) -> list[int]:
    return [int(line) for line in log.read_text().split()] if log.exists() else []


def _wait_for(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def _backlog(client: sdk.Client, kind: str) -> int:
    if kind == "queue":
        stats = client.init_queue("work").info().stats
        return stats.ready + stats.delayed + stats.leased
    info = client.streams.info("work")
    [group] = info.groups
    return group.pending + (group.last_delivered_id != info.last_id)


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("kind", ["queue", "stream"])
def test_a_killed_worker_loses_nothing(
    spool_server: Callable[..., ServerProcess],
    store_url: str,
    tmp_path: Path,
    kind: str,
    mode: str,
) -> None:
    """Killed after KILL_AFTER handled, the worker's unacknowledged messages are delivered again
    to the next one: every message is handled, and the queue or group ends up with nothing left.
    """
    server = spool_server(store_url)
    log = tmp_path / "handled.log"
    bodies = [{"n": n} for n in range(MESSAGES)]
    with sdk.Client(server.base_url, server.token) as client:
        if kind == "queue":
            client.queues.create("work", lease=LEASE_SECONDS, max_attempts=100)
            queue = client.init_queue("work")
            for start in range(0, MESSAGES, 200):
                queue.publish_many([("t", body) for body in bodies[start : start + 200]])
        else:
            client.publish_many("work", bodies)

        first = _start_worker(server, kind, mode, log)
        try:
            _wait_for(lambda: len(_handled(log)) >= KILL_AFTER, "the first worker to get going")
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait(30)
        at_kill = len(_handled(log))
        assert at_kill < MESSAGES, "the first worker finished before it was killed"

        second = _start_worker(server, kind, mode, log)
        try:
            _wait_for(
                lambda: set(_handled(log)) == set(range(MESSAGES)) and not _backlog(client, kind),
                "every message handled and acknowledged",
            )
        finally:
            second.terminate()
            second.wait(30)
        if kind == "queue":
            done = client.init_queue("work").jobs(state="succeeded", limit=1000)
            assert len(done) == MESSAGES
