"""How promptly schedules fire: the lag from a cron tick to the write of what it published.

One server process per store (SQLite file; Redis too when it answers) holds a burst of schedules
that all share the timetable ``* * * * *`` and each publish an entry to a stream, so that every
round is one tick at which the whole burst falls due at once, the scheduler's hardest moment.
A schedule's lag is the time of the entry it published (the millisecond part of its entry id, the
store's clock at the write) minus the tick (``tick_at`` of its run), which covers the scheduler's
sleep, its claim, the publish and nothing of reading it back. Each round waits for the next minute
to start, so a full run takes a few minutes and ``--quick`` up to one.

The goal bounds the lag's p95 (the median over the rounds of each round's p95) at 100 ms on each
store; there is no anchor, as for the delay lag of ``delivery``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import time
import uuid
from collections.abc import Iterator

import sdk

from ._report import Report, Stats, percentile
from ._server import running_server
from .stores import DEFAULT_REDIS_URL, _delete_keys, _redis_answers

__all__ = ["LAG_P95_GOAL_MS", "run"]

LAG_P95_GOAL_MS = 100.0
_CRON = "* * * * *"
_STREAM = "schedule-lag"
# A tick's runs are read this long after it, and again until every schedule has run.
_READ_AFTER_SECONDS = 1.0
_RUN_TIMEOUT_SECONDS = 20.0
# Schedules set this close to a minute's start might get that tick or the next one; such a round
# waits for the minute after.
_SETTLE_SECONDS = 3.0


@dataclasses.dataclass(frozen=True, slots=True)
class _Sizes:
    rounds: int
    schedules: int


_FULL = _Sizes(rounds=3, schedules=100)
_QUICK = _Sizes(rounds=1, schedules=3)


def _next_minute(now: float) -> float:
    """The start of the next minute after ``now``, as a POSIX time."""
    return (int(now // 60) + 1) * 60.0


def _entry_time(entry_id: str) -> float:
    return int(entry_id.partition("-")[0]) / 1000


def _set_burst(client: sdk.Client, names: list[str]) -> None:
    for index, name in enumerate(names):
        client.schedules.set(
            name,
            cron=_CRON,
            destination=sdk.StreamDestination(_STREAM, {"schedule": index}),
            catch_up="skip",
        )


def _lags(client: sdk.Client, names: list[str], tick: float) -> list[float] | str:
    """Each schedule's lag in seconds at ``tick``, or why they cannot all be read."""
    deadline = time.monotonic() + _RUN_TIMEOUT_SECONDS
    lags: dict[str, float] = {}
    while True:
        for name in names:
            if name in lags:
                continue
            schedule = client.schedules.get(name)
            runs = [run for run in schedule.recent_runs if run.tick_at.timestamp() == tick]
            if not runs:
                continue
            (run,) = runs
            if run.outcome != "published":
                return f"{name}'s run at the tick was {run.outcome}: {run.error}"
            lags[name] = _entry_time(run.ids[0]) - tick
        if len(lags) == len(names):
            return list(lags.values())
        if time.monotonic() > deadline:
            missing = len(names) - len(lags)
            return f"{missing} schedules had not fired {_RUN_TIMEOUT_SECONDS:.0f} s after"
        time.sleep(0.2)


@contextlib.contextmanager
def _clients(urls: dict[str, str | None]) -> Iterator[dict[str, sdk.Client]]:
    with contextlib.ExitStack() as stack:
        clients: dict[str, sdk.Client] = {}
        for store, url in urls.items():
            server = stack.enter_context(running_server(store_url=url))
            clients[store] = stack.enter_context(sdk.Client(server.base_url, api_key=server.token))
        yield clients


def run(*, quick: bool = False, redis_url: str | None = DEFAULT_REDIS_URL) -> Report:
    """Measure the schedule-fire lag on SQLite, and on Redis when ``redis_url`` answers."""
    sizes = _QUICK if quick else _FULL
    report = Report(
        "schedules",
        f"entry write - cron tick of {sizes.schedules} schedules all due at one tick, one server "
        f"process per store; {sizes.rounds} rounds (one a minute)",
    )
    prefix = f"bench-{uuid.uuid4().hex[:12]}"
    urls: dict[str, str | None] = {"sqlite": None}
    if redis_url is None:
        report.skipped.append("Redis: no Redis URL given")
    elif _redis_answers(redis_url):
        separator = "&" if "?" in redis_url else "?"
        urls["redis"] = f"{redis_url}{separator}prefix={prefix}"
    else:
        report.skipped.append(f"Redis: no Redis answers at {redis_url}")
    round_p95s: dict[str, list[float]] = {store: [] for store in urls}
    every_lag: dict[str, list[float]] = {store: [] for store in urls}
    try:
        with _clients(urls) as clients:
            for round_index in range(sizes.rounds):
                names = [f"lag-{round_index}-{n}" for n in range(sizes.schedules)]
                for client in clients.values():
                    _set_burst(client, names)
                tick = _next_minute(time.time())
                if tick - time.time() < _SETTLE_SECONDS:
                    for client in clients.values():
                        for name in names:
                            client.schedules.delete(name)
                    time.sleep(max(0.0, tick - time.time()) + _SETTLE_SECONDS)
                    for client in clients.values():
                        _set_burst(client, names)
                    tick = _next_minute(time.time())
                time.sleep(max(0.0, tick - time.time()) + _READ_AFTER_SECONDS)
                for store, client in clients.items():
                    lags = _lags(client, names, tick)
                    if isinstance(lags, str):
                        when = datetime.datetime.fromtimestamp(tick, datetime.UTC)
                        raise RuntimeError(f"{store}, tick {when:%H:%M}: {lags}")
                    round_p95s[store].append(percentile(lags, 0.95) * 1e3)
                    every_lag[store].extend(lags)
                    for name in names:
                        client.schedules.delete(name)
    finally:
        if "redis" in urls and redis_url is not None:
            _delete_keys(redis_url, prefix)
    for store in urls:
        report.goal(
            f"schedule-fire lag, p95, {store}",
            Stats.of(round_p95s[store]),
            "ms",
            at_most=LAG_P95_GOAL_MS,
        )
        for name, fraction in (("p50", 0.5), ("max", 1.0)):
            report.add(
                f"{store} lag {name}, every round",
                percentile(every_lag[store], fraction) * 1e3,
                "ms",
            )
    return report
