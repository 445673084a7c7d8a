"""The SQLite store against the Redis store, called directly (no HTTP): stream appends (one entry
per call and batches of 100), a queue job's whole life (publish, lease, ack), the cost of
approximate against exact trimming at ``maxlen=1000``, and the CPU this process spends per single
append (for Redis: the store's code and redis-py's, Redis itself being another process).

Both stores are open at once and every round runs each case on each store, so the SQLite/Redis
ratios compare the two under the same machine load. SQLite commits with ``synchronous=FULL`` (an
fsync per transaction) to a file in a temporary directory; Redis uses db 15 under a private key
prefix that is deleted afterwards. Without Redis the Redis column is skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import redis

from server.stores import store_from_url
from server.stores.base import NewJob, QueueSettings, Store, Trim

from ._report import Report, side_by_side_async

__all__ = ["DEFAULT_REDIS_URL", "run"]

DEFAULT_REDIS_URL = os.environ.get("SPOOL_BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")
TRIM_MAXLEN = 1000
BATCH = 100


@dataclasses.dataclass(frozen=True, slots=True)
class _Sizes:
    """How much work one case does per round, and how many rounds there are."""

    rounds: int
    warmup: int
    single_appends: int
    batches: int
    jobs: int
    trimmed_appends: int


_FULL = _Sizes(rounds=5, warmup=1, single_appends=300, batches=20, jobs=150, trimmed_appends=300)
_QUICK = _Sizes(rounds=1, warmup=0, single_appends=5, batches=1, jobs=3, trimmed_appends=5)


def _redis_answers(url: str) -> bool:
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=2)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except redis.RedisError:
        return False


def _delete_keys(url: str, prefix: str) -> None:
    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=5)
    try:
        for key in client.scan_iter(match=f"{prefix}*", count=1000):
            client.delete(key)
    finally:
        client.close()


@contextlib.asynccontextmanager
async def _opened(url: str) -> AsyncIterator[Store]:
    store = store_from_url(url)
    await store.open()
    try:
        yield store
    finally:
        await store.close()


def _timed(work: Callable[[], Awaitable[None]]) -> Callable[[], Awaitable[float]]:
    async def case() -> float:
        started = time.perf_counter()
        await work()
        return time.perf_counter() - started

    return case


def _cpu_timed(work: Callable[[], Awaitable[None]]) -> Callable[[], Awaitable[float]]:
    # This process's CPU, not the wall clock: what the store's own code and its client library
    # cost, which other work on a busy machine changes far less than it changes a rate.
    async def case() -> float:
        started = time.process_time()
        await work()
        return time.process_time() - started

    return case


def _cases(store: Store, sizes: _Sizes) -> dict[str, Callable[[], Awaitable[float]]]:
    async def append_single() -> None:
        for index in range(sizes.single_appends):
            await store.append("single", [{"n": index}], trim=None, nomkstream=False)

    async def append_batch() -> None:
        bodies = [{"n": index} for index in range(BATCH)]
        for _ in range(sizes.batches):
            await store.append("batch", bodies, trim=None, nomkstream=False)

    async def job_life() -> None:
        for index in range(sizes.jobs):
            await store.publish_jobs("jobs", [NewJob(topic="bench", payload={"n": index})])
            leased = await store.lease_jobs(
                "jobs", consumer=None, topics=None, max_jobs=1, lease_seconds=None, wait_ms=0
            )
            for job in leased:
                await store.ack_job("jobs", job.job_id, job.lease_id)

    def trimmed(approximate: bool) -> Callable[[], Awaitable[None]]:
        stream = "trim-approximate" if approximate else "trim-exact"
        trim = Trim(maxlen=TRIM_MAXLEN, approximate=approximate)

        async def append_trimmed() -> None:
            for index in range(sizes.trimmed_appends):
                await store.append(stream, [{"n": index}], trim=trim, nomkstream=False)

        return append_trimmed

    return {
        "append1": _timed(append_single),
        "append1cpu": _cpu_timed(append_single),
        "append100": _timed(append_batch),
        "job": _timed(job_life),
        "trim~": _timed(trimmed(approximate=True)),
        "trim=": _timed(trimmed(approximate=False)),
    }


async def _prepare(store: Store) -> None:
    await store.put_queue("jobs", QueueSettings())
    # Trimming is measured on streams already at maxlen, where every append has to trim.
    bodies = [{"n": index} for index in range(BATCH)]
    for stream in ("trim-approximate", "trim-exact"):
        for _ in range(TRIM_MAXLEN // BATCH):
            await store.append(stream, bodies, trim=None, nomkstream=False)


async def _measure(urls: dict[str, str], sizes: _Sizes) -> dict[str, float]:
    async with contextlib.AsyncExitStack() as stack:
        cases: dict[str, Callable[[], Awaitable[float]]] = {}
        for kind, url in urls.items():
            store = await stack.enter_async_context(_opened(url))
            await _prepare(store)
            for case, measure in _cases(store, sizes).items():
                cases[f"{case}/{kind}"] = measure
        return await side_by_side_async(cases, rounds=sizes.rounds, warmup=sizes.warmup)


def _report_store(report: Report, medians: dict[str, float], kind: str, sizes: _Sizes) -> None:
    report.add(
        f"{kind}: append, 1 entry/call",
        sizes.single_appends / medians[f"append1/{kind}"],
        "entries/s",
    )
    report.add(
        f"{kind}: append, {BATCH} entries/call",
        sizes.batches * BATCH / medians[f"append100/{kind}"],
        "entries/s",
    )
    report.add(f"{kind}: job publish+lease+ack", sizes.jobs / medians[f"job/{kind}"], "jobs/s")
    no_trim = medians[f"append1/{kind}"] / sizes.single_appends * 1e6
    approximate = medians[f"trim~/{kind}"] / sizes.trimmed_appends * 1e6
    exact = medians[f"trim=/{kind}"] / sizes.trimmed_appends * 1e6
    report.add(f"{kind}: append 1 entry, no trim", no_trim, "us/append")
    cpu = medians[f"append1cpu/{kind}"] / sizes.single_appends * 1e6
    report.add(f"{kind}: CPU of this process per append, 1 entry", cpu, "us/append")
    report.add(f"{kind}: append 1, maxlen={TRIM_MAXLEN} approximate", approximate, "us/append")
    report.add(f"{kind}: append 1, maxlen={TRIM_MAXLEN} exact", exact, "us/append")
    report.ratio(
        f"{kind}: exact/approximate trim",
        exact,
        approximate,
        "time per trimming append, exact over approximate (>1: approximate trimming is cheaper)",
    )


def run(*, quick: bool = False, redis_url: str | None = DEFAULT_REDIS_URL) -> Report:
    """Measure both stores side by side (only SQLite when ``redis_url`` is None or silent)."""
    sizes = _QUICK if quick else _FULL
    report = Report(
        "stores",
        f"SQLite file vs Redis, direct store calls; {sizes.rounds} interleaved rounds, medians",
    )
    with tempfile.TemporaryDirectory(prefix="spool-bench-") as directory:
        urls = {"sqlite": f"sqlite:///{directory}/bench.db"}
        prefix = f"bench-{uuid.uuid4().hex[:12]}"
        if redis_url is None:
            report.skipped.append("Redis column: no Redis URL given")
        elif _redis_answers(redis_url):
            separator = "&" if "?" in redis_url else "?"
            urls["redis"] = f"{redis_url}{separator}prefix={prefix}"
        else:
            report.skipped.append(f"Redis column: no Redis answers at {redis_url}")
        try:
            medians = asyncio.run(_measure(urls, sizes))
        finally:
            if "redis" in urls and redis_url is not None:
                _delete_keys(redis_url, prefix)
    for kind in urls:
        _report_store(report, medians, kind, sizes)
    if "redis" in urls:
        for case, label in (
            ("append1", "append, 1 entry/call"),
            ("append100", f"append, {BATCH} entries/call"),
            ("job", "job publish+lease+ack"),
        ):
            report.ratio(
                f"redis/sqlite: {label}",
                medians[f"{case}/sqlite"],
                medians[f"{case}/redis"],
                "Redis throughput over SQLite's (>1: the Redis store is faster)",
            )
    return report
