"""``python -m bench peers``: Spool beside dramatiq, taskiq, saq, Celery, RQ, arq and FastStream on
the same local Redis, the same workloads, in the same interleaved rounds.

Every run is one driver process (``bench/peers/drivers/drive.py``) in the side's own interpreter
(a peers' virtualenv, or Spool's for Spool), starting the side's worker process itself where the
workload has one; its Redis database is flushed before and after it. The driver checks that every
job ran exactly once and none is left; a run that fails those checks fails the side.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import statistics
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import redis

from .._report import Report, Stats, percentile
from .._server import ROOT, RunningServer, running_server
from ._sides import FLOOR, SIDES, WORKLOADS, Side, Workload
from ._venvs import GROUPS, ensure

__all__ = ["FULL", "QUICK", "Outcome", "Sizes", "database_url", "run", "run_suite", "sample"]

DRIVERS = Path(__file__).resolve().parent / "drivers"
PEERS_DATABASE = 14
SPOOL_DATABASE = 13
_RUN_TIMEOUT_SECONDS = 1800.0


@dataclasses.dataclass(frozen=True, slots=True)
class Sizes:
    """Rounds, and jobs per run of each workload (keyed as ``Workload.key``)."""

    rounds: int
    jobs: Mapping[str, int]


FULL = Sizes(
    rounds=3,
    jobs={
        "w1_one": 5000,
        "w1_bulk": 30_000,
        "w2": 10_000,
        "w3": 200,
        "w4_one": 5000,
        "w4_bulk": 30_000,
        "w4_consume": 10_000,
    },
)
QUICK = Sizes(
    rounds=1,
    jobs={
        "w1_one": 10,
        "w1_bulk": 600,
        "w2": 30,
        "w3": 5,
        "w4_one": 10,
        "w4_bulk": 600,
        "w4_consume": 30,
    },
)


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """What one side measured in one workload over the rounds, or why it failed."""

    samples: tuple[float, ...] = ()
    p95: tuple[float, ...] = ()
    error: str | None = None

    @property
    def stats(self) -> Stats:
        """The statistics of the samples (jobs/s, or the p50 in ms for a latency)."""
        return Stats.of(self.samples)

    @property
    def p95_stats(self) -> Stats:
        """The statistics of the per-round p95 latencies, in ms."""
        return Stats.of(self.p95)


def database_url(url: str, database: int) -> str:
    """``url`` (``redis://host:port[/db]``) with its database number replaced."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{database}", parts.query, parts.fragment))


def _redis_base() -> str:
    return os.environ.get("SPOOL_TEST_REDIS_URL", "redis://127.0.0.1:6379")


def run(*, quick: bool = False) -> Report:
    """The whole suite on the local Redis, making the peers' virtualenvs first if need be."""
    base = _redis_base()
    bins = {name: ensure(venv) for name, venv in GROUPS.items()}
    store = database_url(base, SPOOL_DATABASE)
    _flush(store)
    try:
        with running_server(store_url=store) as server:
            return run_suite(
                quick=quick,
                redis_url=database_url(base, PEERS_DATABASE),
                server=server,
                bins=bins,
            )
    finally:
        _flush(store)


def _flush(url: str) -> None:
    with redis.Redis.from_url(url) as client:
        client.flushdb()


def run_suite(
    *,
    quick: bool,
    redis_url: str,
    server: RunningServer,
    bins: Mapping[str, Path],
    sides: Mapping[str, Side] = SIDES,
    workloads: Sequence[Workload] = WORKLOADS,
    drivers: Path = DRIVERS,
) -> Report:
    """Every workload in rounds, each side once a round in a rotating order, and the report."""
    sizes = QUICK if quick else FULL
    report = Report(
        "peers",
        f"Spool (a `python -m server` on the Redis store, db {SPOOL_DATABASE}) beside its peers "
        f"(their virtualenvs in bench/.peers: "
        f"{', '.join(r for venv in GROUPS.values() for r in venv.requirements)}) on one Redis "
        f"({urlsplit(redis_url).netloc}, db {urlsplit(redis_url).path.lstrip('/')} flushed "
        f"around every run), no-op jobs, one worker process each; {sizes.rounds} interleaved "
        "rounds, medians [lowest–highest]",
    )
    results: dict[str, dict[str, Outcome]] = {}
    for workload in workloads:
        count = sizes.jobs[workload.key]
        load_before = os.getloadavg()[0]
        outcomes = _rounds(
            workload,
            [sides[name] for name in workload.sides],
            sizes.rounds,
            functools.partial(
                _run_side,
                workload=workload,
                count=count,
                redis_url=redis_url,
                server=server,
                bins=bins,
                drivers=drivers,
            ),
        )
        results[workload.key] = outcomes
        report.add(f"load average before {workload.key}", load_before, "")
        report.add(f"load average after {workload.key}", os.getloadavg()[0], "")
        _rows(report, workload, outcomes, sides, count)
    _goals(report, results, sides)
    return report


def _rounds(
    workload: Workload,
    sides: Sequence[Side],
    rounds: int,
    measure: Callable[[Side], tuple[float, float | None]],
) -> dict[str, Outcome]:
    samples: dict[str, list[tuple[float, float | None]]] = {side.name: [] for side in sides}
    errors: dict[str, str] = {}
    for round_index in range(rounds):
        # Rotating the order each round spreads a "first in the round" effect over every side.
        shift = round_index % len(sides)
        for side in [*sides[shift:], *sides[:shift]]:
            if side.name in errors:
                continue
            try:
                samples[side.name].append(measure(side))
            except Exception as error:
                if side.is_spool:
                    raise
                errors[side.name] = f"{type(error).__name__}: {error}"
                print(f"  {workload.key}: {side.name} failed: {errors[side.name]}", flush=True)
    outcomes = {}
    for side in sides:
        if side.name in errors:
            outcomes[side.name] = Outcome(error=errors[side.name])
        else:
            values = samples[side.name]
            outcomes[side.name] = Outcome(
                tuple(value for value, _ in values),
                tuple(p95 for _, p95 in values if p95 is not None),
            )
    return outcomes


def _environment(
    side: Side, redis_url: str, server: RunningServer, bins: Mapping[str, Path]
) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")}
    environment.pop("PYTHONPATH", None)
    environment.pop("VIRTUAL_ENV", None)
    environment["BENCH_PEERS_REDIS_URL"] = redis_url
    if side.is_spool:
        environment["PYTHONPATH"] = str(ROOT)
        environment["BENCH_SPOOL_URL"] = server.base_url
        environment["BENCH_SPOOL_TOKEN"] = server.token
        environment["BENCH_SPOOL_NAME"] = f"bench-peers-{uuid.uuid4().hex[:10]}"
    elif side.venv is not None:
        # The peer's CLIs (rq, celery, dramatiq, ...) come from its virtualenv.
        environment["PATH"] = os.pathsep.join([str(bins[side.venv]), environment.get("PATH", "")])
    environment.update(side.environment)
    return environment


def _python(side: Side, bins: Mapping[str, Path]) -> str:
    if side.venv is None:
        return sys.executable
    return str(bins[side.venv] / "python")


def _run_side(
    side: Side,
    workload: Workload,
    count: int,
    *,
    redis_url: str,
    server: RunningServer,
    bins: Mapping[str, Path],
    drivers: Path,
) -> tuple[float, float | None]:
    """One run: the sample (jobs/s, or p50 in ms) and, for a latency, the p95 in ms."""
    if workload.action == "drain" and side.drain_cap is not None:
        count = min(count, side.drain_cap)
    _flush(redis_url)
    try:
        completed = subprocess.run(
            [_python(side, bins), "drive.py", side.module, workload.action, str(count)],
            cwd=drivers,
            env=_environment(side, redis_url, server, bins),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_RUN_TIMEOUT_SECONDS,
        )
    finally:
        _flush(redis_url)
    if completed.returncode != 0:
        # The driver's last line of error output is the exception that ended it.
        lines = completed.stderr.strip().splitlines() or ["(no error output)"]
        raise RuntimeError(
            f"{side.name} {workload.action} exited with {completed.returncode}: {lines[-1]}"
        )
    return sample(workload.action, count, json.loads(completed.stdout.strip().splitlines()[-1]))


def sample(action: str, count: int, document: Mapping[str, object]) -> tuple[float, float | None]:
    """What a driver's answer for ``count`` jobs says: jobs per second (and None), or for a
    latency run its p50 and p95 in milliseconds.
    """
    if action == "latency":
        latencies = [float(value) * 1e3 for value in document["latencies"]]  # type: ignore[attr-defined]
        return statistics.median(latencies), percentile(latencies, 0.95)
    seconds = float(document["seconds"])  # type: ignore[arg-type]
    # A drain is timed from the first handler start to the last: count - 1 intervals.
    jobs = count - 1 if action == "drain" else count
    return (jobs / seconds if seconds > 0 else math.inf), None


def _rows(
    report: Report,
    workload: Workload,
    outcomes: Mapping[str, Outcome],
    sides: Mapping[str, Side],
    count: int,
) -> None:
    spool = [name for name in outcomes if sides[name].is_spool]
    for name, outcome in outcomes.items():
        if outcome.error is not None:
            report.skipped.append(f"{workload.key} {name}: {outcome.error}")
            continue
        cap = sides[name].drain_cap
        jobs = min(count, cap) if workload.action == "drain" and cap else count
        label = f"{workload.key} {name} ({jobs:,} jobs)"
        if workload.action == "latency":
            report.add(f"{label} p50", outcome.stats.median, "ms")
            report.add(f"{label} p95", outcome.p95_stats.median, "ms")
        else:
            report.add(label, outcome.stats.median, "jobs/s")
    for name in spool:
        for peer, outcome in outcomes.items():
            if sides[peer].is_spool or outcome.error is not None or outcomes[name].error:
                continue
            if workload.action == "latency":
                report.ratio(
                    f"{workload.key} p95 {name} / {peer}",
                    outcomes[name].p95_stats.median,
                    outcome.p95_stats.median,
                    "publish to handler start, p95 (lower is better)",
                )
            else:
                report.ratio(
                    f"{workload.key} {name} / {peer}",
                    outcomes[name].stats.median,
                    outcome.stats.median,
                    f"{workload.title} (higher is better)",
                )


def _measured(outcomes: Mapping[str, Outcome], names: Iterable[str]) -> dict[str, Outcome]:
    return {name: outcomes[name] for name in names if name in outcomes and not outcomes[name].error}


def _goals(
    report: Report, results: Mapping[str, Mapping[str, Outcome]], sides: Mapping[str, Side]
) -> None:
    def peers_of(key: str) -> dict[str, Outcome]:
        outcomes = results.get(key, {})
        return _measured(outcomes, (name for name in outcomes if sides[name].is_peer))

    def best(key: str, *, lowest_p95: bool = False) -> tuple[str, Stats] | None:
        peers = peers_of(key)
        if not peers:
            return None
        if lowest_p95:
            name = min(peers, key=lambda peer: peers[peer].p95_stats.median)
            return name, peers[name].p95_stats
        name = max(peers, key=lambda peer: peers[peer].stats.median)
        return name, peers[name].stats

    def goal(
        key: str,
        spool: str,
        title: str,
        *,
        at_least: float | None = None,
        at_most: float | None = None,
    ) -> None:
        outcome = results.get(key, {}).get(spool)
        anchor = best(key, lowest_p95=at_most is not None)
        if outcome is None or outcome.error is not None or anchor is None:
            report.skipped.append(f"goal {title}: nothing to compare")
            return
        mine = outcome.p95_stats if at_most is not None else outcome.stats
        report.goal(
            title,
            mine,
            "ms" if at_most is not None else "jobs/s",
            anchor=anchor[1],
            anchor_name=f"best peer, {anchor[0]}",
            at_least=at_least,
            at_most=at_most,
        )

    def floor_of_best(key: str, meaning: str, *, p95: bool = False) -> None:
        # What a goal's target asks of the stack itself: the floor over the goal's best peer.
        floor = _measured(results.get(key, {}), [FLOOR]).get(FLOOR)
        anchor = best(key, lowest_p95=p95)
        if floor is None or anchor is None:
            return
        mine = floor.p95_stats if p95 else floor.stats
        report.ratio(
            f"{key}{' p95' if p95 else ''} {FLOOR} / best peer, {anchor[0]}",
            mine.median,
            anchor[1].median,
            meaning,
        )

    floor_of_best("w1_one", "one HTTP round trip per call, against the W1 goals (>= 0.5)")
    floor_of_best(
        "w3", "one HTTP round trip to an idle server, against the W3 goal (<= 2)", p95=True
    )
    floor_of_best("w4_one", "one HTTP round trip per call, against the W4 goal (>= 0.5)")
    goal(
        "w2", "spool sync run()", "W2 sync run() drains a queue, of the fastest peer", at_least=1.0
    )
    goal(
        "w2",
        "spool async run()",
        "W2 async run() drains a queue, of the fastest peer",
        at_least=1.0,
    )
    goal(
        "w1_one",
        "spool publish_nowait",
        "W1 queue.publish_nowait one at a time, of the fastest peer",
        at_least=1.0,
    )
    goal("w1_one", "spool", "W1 queue.publish one at a time, of the fastest peer", at_least=0.5)
    goal("w1_bulk", "spool", "W1 publish_many x500, of the fastest peer's bulk", at_least=2.0)
    goal(
        "w3",
        "spool sync run()",
        "W3 sync run() p95 publish to start, of the best peer",
        at_most=2.0,
    )
    goal(
        "w3",
        "spool async run()",
        "W3 async run() p95 publish to start, of the best peer",
        at_most=2.0,
    )
    goal(
        "w4_consume",
        "spool stream sync run()",
        "W4 sync stream consumer, of FastStream",
        at_least=1.0,
    )
    goal(
        "w4_consume",
        "spool stream async run()",
        "W4 async stream consumer, of FastStream",
        at_least=1.0,
    )
    goal(
        "w4_one",
        "spool stream publish_nowait",
        "W4 stream publish_nowait one at a time, of FastStream",
        at_least=1.0,
    )
    goal("w4_one", "spool stream", "W4 stream publish one at a time, of FastStream", at_least=0.5)
    goal("w4_bulk", "spool stream", "W4 publish_many x500, of FastStream's pipeline", at_least=2.0)
