"""What an idle subscription costs a busy one in ``run()``: a queue worker alone, against the same
worker with an idle stream subscription beside it (goal: ≥ 0.8 of the jobs per second).

Both handle the same number of jobs, published beforehand, from one real service process (SQLite
file), with the sync ``Client`` and with the ``AsyncClient``, in interleaved rounds. The stream
never gets an entry, so every poll of it finds nothing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid

import sdk

from ._report import Report, side_by_side_stats
from ._server import running_server

__all__ = ["run"]


@dataclasses.dataclass(frozen=True, slots=True)
class _Sizes:
    rounds: int
    warmup: int
    jobs: int


_FULL = _Sizes(rounds=5, warmup=1, jobs=200)
_QUICK = _Sizes(rounds=1, warmup=0, jobs=5)


def run(*, quick: bool = False) -> Report:
    """Jobs per second of a queue worker alone and beside an idle stream, sync and async."""
    sizes = _QUICK if quick else _FULL
    report = Report(
        "worker",
        f"run() handling {sizes.jobs} queued jobs, alone and beside an idle stream subscription, "
        f"one service process (SQLite file); {sizes.rounds} interleaved rounds, medians",
    )
    with running_server() as server:
        url, token = server.base_url, server.token
        stats = side_by_side_stats(
            {
                "sync alone": lambda: _sync_rate(url, token, sizes, False),
                "sync with idle stream": lambda: _sync_rate(url, token, sizes, True),
                "async alone": lambda: _async_rate(url, token, sizes, False),
                "async with idle stream": lambda: _async_rate(url, token, sizes, True),
            },
            rounds=sizes.rounds,
            warmup=sizes.warmup,
        )
    for kind in ("sync", "async"):
        report.goal(
            f"{kind} run(): queue worker beside an idle stream",
            stats[f"{kind} with idle stream"],
            "jobs/s",
            anchor=stats[f"{kind} alone"],
            anchor_name="the queue worker alone",
            at_least=0.8,
        )
    return report


def _ignore(_: object) -> None:
    """A handler with nothing to do: the benchmark measures the loop, not the work."""


def _fresh_queue(client: sdk.Client, jobs: int) -> str:
    name = f"bench-worker-{uuid.uuid4().hex[:10]}"
    client.queues.create(name)
    client.init_queue(name).publish_many([("work", {"n": n}) for n in range(jobs)])
    return name


def _sync_rate(base_url: str, token: str, sizes: _Sizes, idle_stream: bool) -> float:
    with sdk.Client(base_url, token) as worker:
        name = _fresh_queue(worker, sizes.jobs)
        worker.init_queue(name).subscribe("work")(_ignore)
        if idle_stream:
            worker.subscribe(sdk.Stream(f"{name}-idle", group="idle"))(_ignore)
        started = time.perf_counter()
        worker.run(max_messages=sizes.jobs)
        return sizes.jobs / (time.perf_counter() - started)


def _async_rate(base_url: str, token: str, sizes: _Sizes, idle_stream: bool) -> float:
    with sdk.Client(base_url, token) as client:
        name = _fresh_queue(client, sizes.jobs)

    async def work() -> float:
        async with sdk.AsyncClient(base_url, token) as worker:
            queue = await worker.init_queue(name)
            queue.subscribe("work")(_ignore)
            if idle_stream:
                worker.subscribe(sdk.Stream(f"{name}-idle", group="idle"))(_ignore)
            started = time.perf_counter()
            await worker.run(max_messages=sizes.jobs)
            return sizes.jobs / (time.perf_counter() - started)

    return asyncio.run(work())
