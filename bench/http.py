"""The service's HTTP publish path against its anchors, and its memory under a long run.

Spool runs as a real ``python -m server`` process (one worker, development mode) on Redis, and
each figure is measured in the same run as its anchor, in interleaved rounds:

* ``publish_many`` of 500 small JSON bodies through ``sdk.Client`` (entries/s) against redis-py
  sending 500 XADDs in one pipeline to the same Redis;
* single publishes (appendEntry) from a raw keep-alive load generator (``bench/_load.py``, 32
  connections) against ``bench/anchors/starlette_xadd.py``: a minimal Starlette app doing one
  redis.asyncio XADD per request, on the same uvicorn. Spool is measured without and with a fresh
  Idempotency-Key per request; the first is also reported alone, as the service's own ceiling for
  a single publish;
* the server's resident memory after 100,000 publishes (batches of 500 and singles), and its growth
  over as many more (a leak shows as growth that does not level off).

Redis is db 15 of ``$SPOOL_BENCH_REDIS_URL`` under a private key prefix, deleted afterwards.
Without Redis, the ceiling and the memory rows are measured on SQLite and the rest is skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import re
import sys
import time
import uuid
from collections.abc import Callable, Iterator

import redis

import sdk

from ._load import LoadResult, post_request, run_load
from ._report import Report, Stats, side_by_side_stats
from ._server import RunningProcess, RunningServer, rss_bytes, running_process, running_server
from .stores import DEFAULT_REDIS_URL, _delete_keys, _redis_answers

__all__ = ["run"]

_ANCHOR_READY = re.compile(r"anchor listening on (http://\S+)\n")
_SINGLE_BODY = json.dumps({"body": {"n": 1, "kind": "bench"}}).encode()


@dataclasses.dataclass(frozen=True, slots=True)
class _Sizes:
    """How much each case does per round, how many rounds, and the memory run's length."""

    rounds: int
    warmup: int
    batch: int
    batches: int
    connections: int
    seconds: float
    memory_publishes: int
    soak_publishes: int


_FULL = _Sizes(
    rounds=5,
    warmup=1,
    batch=500,
    batches=40,
    connections=32,
    seconds=3.0,
    memory_publishes=100_000,
    soak_publishes=100_000,
)
_QUICK = _Sizes(
    rounds=1,
    warmup=0,
    batch=20,
    batches=1,
    connections=4,
    seconds=0.2,
    memory_publishes=200,
    soak_publishes=200,
)


@contextlib.contextmanager
def _anchor(redis_url: str, key_prefix: str) -> Iterator[RunningProcess]:
    command = [sys.executable, "-m", "bench.anchors.starlette_xadd"]
    command += ["--redis", redis_url, "--key-prefix", key_prefix]
    with running_process(command, ready=_ANCHOR_READY) as anchor:
        yield anchor


def _single(target: RunningProcess, token: str, *, with_key: bool) -> bytes | Callable[[], bytes]:
    """appendEntry's request bytes for ``target``, or a factory giving each a fresh key."""
    headers = {"Authorization": f"Bearer {token}"}
    path = "/v1/streams/bench-single/entries"
    if not with_key:
        return post_request(target.host, target.port, path, _SINGLE_BODY, headers)
    marker = "K" * 32
    template = post_request(
        target.host, target.port, path, _SINGLE_BODY, {**headers, "Idempotency-Key": marker}
    )
    before, _, after = template.partition(marker.encode())
    return lambda: before + uuid.uuid4().hex.encode() + after


def _load(
    target: RunningProcess,
    request: bytes | Callable[[], bytes],
    *,
    connections: int,
    duration: float | None = None,
    count: int | None = None,
) -> LoadResult:
    result = asyncio.run(
        run_load(
            target.host,
            target.port,
            request,
            connections=connections,
            duration=duration,
            count=count,
        )
    )
    if result.errors:
        raise RuntimeError(
            f"{result.errors} of {result.requests} requests to {target.base_url} failed; "
            f"first: {result.first_error!r}"
        )
    return result


def _rate_case(
    target: RunningProcess, request: bytes | Callable[[], bytes], sizes: _Sizes
) -> Callable[[], float]:
    def case() -> float:
        return _load(
            target, request, connections=sizes.connections, duration=sizes.seconds
        ).per_second

    return case


def _timed(work: Callable[[], object]) -> Callable[[], float]:
    def case() -> float:
        started = time.perf_counter()
        work()
        return time.perf_counter() - started

    return case


def _measure_publishing(
    report: Report, server: RunningServer, redis_url: str, prefix: str, sizes: _Sizes
) -> None:
    bodies = [{"n": index, "kind": "bench"} for index in range(sizes.batch)]
    encoded = [json.dumps(body) for body in bodies]
    pipelined = redis.Redis.from_url(redis_url)
    anchor_key = f"{prefix}-anchor:pipelined"

    def spool_batches() -> None:
        for _ in range(sizes.batches):
            client.publish_many("bench-batch", bodies)

    def redis_batches() -> None:
        for _ in range(sizes.batches):
            pipeline = pipelined.pipeline(transaction=False)
            for body in encoded:
                pipeline.xadd(anchor_key, {"body": body})
            pipeline.execute()

    with (
        _anchor(redis_url, f"{prefix}-anchor:") as anchor,
        sdk.Client(server.base_url, api_key=server.token, max_retries=0) as client,
    ):
        spool_request = _single(server, server.token, with_key=False)
        keyed_request = _single(server, server.token, with_key=True)
        anchor_request = _single(anchor, server.token, with_key=False)
        stats = side_by_side_stats(
            {
                "spool publish_many": _timed(spool_batches),
                "redis pipeline": _timed(redis_batches),
                "spool single": _rate_case(server, spool_request, sizes),
                "spool single + key": _rate_case(server, keyed_request, sizes),
                "anchor single": _rate_case(anchor, anchor_request, sizes),
            },
            rounds=sizes.rounds,
            warmup=sizes.warmup,
        )
    pipelined.close()
    entries = sizes.batch * sizes.batches
    report.goal(
        f"publish_many {sizes.batch} bodies (sdk, Redis store)",
        stats["spool publish_many"].map(lambda seconds: entries / seconds),
        "entries/s",
        anchor=stats["redis pipeline"].map(lambda seconds: entries / seconds),
        anchor_name=f"redis-py pipelined XADD x{sizes.batch}",
        at_least=0.5,
    )
    report.goal(
        f"appendEntry, {sizes.connections} connections, 1 worker",
        stats["spool single"],
        "req/s",
        anchor=stats["anchor single"],
        anchor_name="Starlette + XADD",
        at_least=0.8,
    )
    report.goal(
        f"appendEntry + Idempotency-Key, {sizes.connections} connections",
        stats["spool single + key"],
        "req/s",
        anchor=stats["anchor single"],
        anchor_name="Starlette + XADD",
        at_least=0.7,
    )
    _ceiling(report, stats["spool single"], "Redis", sizes)
    report.ratio(
        "Idempotency-Key cost",
        stats["spool single"].median,
        stats["spool single + key"].median,
        "appendEntry rate without a key over with one (1.00: keys cost nothing)",
    )


def _ceiling(report: Report, stats: Stats, store: str, sizes: _Sizes) -> None:
    report.add(
        f"ceiling: appendEntry, {sizes.connections} connections, 1 worker, {store}",
        stats.median,
        "req/s",
    )


def _measure_memory(report: Report, server: RunningServer, sizes: _Sizes) -> None:
    headers = {"Authorization": f"Bearer {server.token}"}
    batch = json.dumps({"entries": [{"body": {"n": index}} for index in range(sizes.batch)]})
    batch_request = post_request(
        server.host, server.port, "/v1/streams/bench-memory/batch", batch.encode(), headers
    )
    keyed = _single(server, server.token, with_key=True)
    connections = min(4, sizes.connections)

    def publish(count: int) -> None:
        # Nine in ten entries come in batches, the rest one request each with a fresh key.
        singles = count // 10
        batches = max(1, (count - singles) // sizes.batch)
        _load(server, batch_request, connections=connections, count=batches)
        _load(server, keyed, connections=connections, count=singles)

    started = rss_bytes(server.pid)
    publish(sizes.memory_publishes)
    loaded = rss_bytes(server.pid)
    publish(sizes.soak_publishes)
    soaked = rss_bytes(server.pid)
    mebibyte = 1024 * 1024
    report.add("RSS after start", started / mebibyte, "MiB")
    report.add(f"RSS after {sizes.memory_publishes:,} publishes", loaded / mebibyte, "MiB")
    report.add(f"RSS after {sizes.soak_publishes:,} more", soaked / mebibyte, "MiB")
    growth = (soaked - loaded) / loaded * 100
    report.goal(
        f"RSS growth over {sizes.soak_publishes:,} more publishes",
        Stats.of([growth]),
        "%",
        at_most=10.0,
    )


def run(*, quick: bool = False, redis_url: str | None = DEFAULT_REDIS_URL) -> Report:
    """Measure the publish path against its anchors (on Redis) and the server's memory."""
    sizes = _QUICK if quick else _FULL
    report = Report(
        "http",
        f"python -m server (1 worker) vs anchors in their own processes; {sizes.rounds} "
        f"interleaved rounds, medians [low-high]; single publishes from {sizes.connections} "
        f"keep-alive connections for {sizes.seconds:g} s each",
    )
    prefix = f"bench-{uuid.uuid4().hex[:12]}"
    if redis_url is not None and _redis_answers(redis_url):
        separator = "&" if "?" in redis_url else "?"
        try:
            with running_server(store_url=f"{redis_url}{separator}prefix={prefix}") as server:
                _measure_publishing(report, server, redis_url, prefix, sizes)
            with running_server(
                store_url=f"{redis_url}{separator}prefix={prefix}-memory"
            ) as server:
                _measure_memory(report, server, sizes)
        finally:
            _delete_keys(redis_url, prefix)
        return report
    reason = "no Redis URL given" if redis_url is None else f"no Redis answers at {redis_url}"
    report.skipped.append(f"Redis rows (publish_many, anchors, Idempotency-Key): {reason}")
    with running_server() as server:
        single = _single(server, server.token, with_key=False)
        stats = side_by_side_stats(
            {"spool single": _rate_case(server, single, sizes)},
            rounds=sizes.rounds,
            warmup=sizes.warmup,
        )
        _ceiling(report, stats["spool single"], "SQLite", sizes)
        _measure_memory(report, server, sizes)
    return report
