"""How closely two server processes sharing one store hold a flow control key's rate.

Two server processes (development mode, loopback destinations allowed) share one SQLite file.
Each round publishes, half through each process, enough messages under one key with ``rate``
per ``period`` to keep it busy for the round's length, to the fast receiver of
``bench/_receiver.py``, and waits for them all. The key lets ``rate`` attempts start in any
``period`` (a sliding window), so the first window's attempts start at once and each later
window's when the window slides; the delivered rate is therefore the arrivals after the first
window's ``rate`` over the time from the first arrival to the last. The goal bounds it on both
sides at 5 % of the set rate: over the limit means the key was not shared; well under, that the
held-back messages waited past their turn.
"""

from __future__ import annotations

import contextlib
import dataclasses
import tempfile
import time
from collections.abc import Iterator

import sdk

from ._receiver import FastReceiver, fast_receiver
from ._report import Report, Stats
from ._server import RunningServer, running_server

__all__ = ["run"]

RATE_TOLERANCE = 0.05
# The most messages one batch publish takes (openapi.yaml).
_BATCH_LIMIT = 1000
_SETTLE_SECONDS = 60.0


@dataclasses.dataclass(frozen=True, slots=True)
class _Sizes:
    """Rounds, the key's rate per period, and how many seconds of work each round publishes."""

    rounds: int
    rate: int
    period: int
    seconds: int


_FULL = _Sizes(rounds=2, rate=20, period=1, seconds=60)
_QUICK = _Sizes(rounds=1, rate=10, period=1, seconds=2)


@contextlib.contextmanager
def _two_servers() -> Iterator[list[RunningServer]]:
    environment = {"SPOOL_ALLOW_DESTINATIONS": "127.0.0.1"}
    with tempfile.TemporaryDirectory(prefix="spool-bench-flow-") as directory:
        store_url = f"sqlite:///{directory}/spool.db"
        with (
            running_server(environment=environment, store_url=store_url) as first,
            running_server(environment=environment, store_url=store_url) as second,
        ):
            yield [first, second]


def _round(
    servers: list[RunningServer], receiver: FastReceiver, sizes: _Sizes, number: int
) -> float | None:
    """The delivered rate of one round, per second; None when some messages did not arrive."""
    receiver.reset()
    count = sizes.rate * sizes.seconds // sizes.period
    limits = sdk.FlowControl(f"bench-{number}", rate=sizes.rate, period=sizes.period)
    for offset, server in enumerate(servers):
        indexes = list(range(offset, count, len(servers)))
        with sdk.Client(server.base_url, api_key=server.token) as client:
            for start in range(0, len(indexes), _BATCH_LIMIT):
                client.messages.batch(
                    [
                        sdk.MessageRequest(
                            f"flow message {index}",
                            url=receiver.url(f"/flow/{index}"),
                            retries=0,
                            flow_control=limits,
                        )
                        for index in indexes[start : start + _BATCH_LIMIT]
                    ]
                )
    deadline = time.monotonic() + sizes.seconds + _SETTLE_SECONDS
    while True:
        arrived, first, last = receiver.stats()
        if arrived >= count:
            break
        if time.monotonic() > deadline:
            return None
        time.sleep(0.2)
    if last <= first:
        return None
    return (arrived - sizes.rate) / (last - first) * sizes.period


def run(*, quick: bool = False) -> Report:
    """Measure the delivered rate of one flow control key against its set rate, with two server
    processes on one SQLite file delivering.
    """
    sizes = _QUICK if quick else _FULL
    set_rate = sizes.rate / sizes.period
    report = Report(
        "flow_control",
        f"{sizes.rounds} rounds of {sizes.seconds} s of work at rate={sizes.rate} per "
        f"period={sizes.period}s on one key, published through and delivered by two server "
        "processes on one SQLite file, to a fast receiver",
    )
    rates: list[float] = []
    with _two_servers() as servers, fast_receiver() as receiver:
        for number in range(sizes.rounds):
            measured = _round(servers, receiver, sizes, number)
            if measured is None:
                report.skipped.append(
                    f"a round's messages did not all arrive within {_SETTLE_SECONDS:.0f} s of "
                    "its length"
                )
                return report
            rates.append(measured)
    stats = Stats.of([rate / set_rate for rate in rates])
    report.goal(
        "delivered rate of one key / its set rate, at least",
        stats,
        "x",
        at_least=1 - RATE_TOLERANCE,
    )
    report.goal(
        "delivered rate of one key / its set rate, at most",
        stats,
        "x",
        at_most=1 + RATE_TOLERANCE,
    )
    report.add("set rate", set_rate, "messages/s")
    report.add("delivered rate, median", Stats.of(rates).median, "messages/s")
    report.ratio(
        "delivered / set rate",
        Stats.of(rates).median,
        set_rate,
        "1: the two processes together keep the key's rate exactly",
    )
    return report
