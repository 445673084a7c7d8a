"""Per-minute counts of the last hour, kept in memory by each process, for the console's charts.

Prometheus holds the history a dashboard needs, but an operator looking at the console should not
need one to see whether publishes stopped or failures began a few minutes ago. So the places that
count for ``/metrics`` (server/metrics.py), the queue routes that end jobs' leases, and the store
when a lease runs out on a job's last attempt, bump these: one ring of sixty one-minute slots per
series, each slot tagged with its minute and zeroed when the ring comes round to it again. That is
a few hundred integers per process and one dictionary lookup per count; nothing goes to the store.
With several worker processes each keeps its own, so the console shows the view of the process
that answered it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final, Literal

__all__ = ["MINUTES", "RATE_SERIES", "MinuteRates", "RateSeries"]

RateSeries = Literal[
    "entries",
    "jobs",
    "messages",
    "delivered",
    "failed",
    "dead_letters",
    "jobs_acked",
    "jobs_nacked",
    "jobs_dead",
]
# Items published by kind, then HTTP delivery outcomes: attempts delivered, attempts failed (a
# retry or the last try) and messages that went to the dead letters; then what became of jobs:
# acked and nacked, as the queue routes see it (server/routes/queues.py), and dead, whether a nack
# left them so or their last lease ran out. Those die by the clock, in no request: the store tells
# the process whose write moved them to dead (Store.on_lease_deaths), so each is counted once.
RATE_SERIES: Final[tuple[RateSeries, ...]] = (
    "entries",
    "jobs",
    "messages",
    "delivered",
    "failed",
    "dead_letters",
    "jobs_acked",
    "jobs_nacked",
    "jobs_dead",
)
MINUTES = 60


class _Ring:
    __slots__ = ("counts", "minutes")

    def __init__(self) -> None:
        self.counts = [0] * MINUTES
        self.minutes = [-1] * MINUTES


class MinuteRates:
    """How many of each series were counted in each of the last :data:`MINUTES` minutes."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._rings = {series: _Ring() for series in RATE_SERIES}

    def count(self, series: RateSeries, amount: int = 1) -> None:
        """Add ``amount`` to this minute's count of ``series``."""
        minute = int(self._clock() // 60)
        ring = self._rings[series]
        slot = minute % MINUTES
        if ring.minutes[slot] != minute:
            ring.minutes[slot] = minute
            ring.counts[slot] = 0
        ring.counts[slot] += amount

    def last_hour(self) -> dict[RateSeries, list[int]]:
        """Each series' counts per minute, oldest first, ending with the minute now running."""
        now = int(self._clock() // 60)
        window = range(now - MINUTES + 1, now + 1)
        return {
            series: [
                ring.counts[minute % MINUTES] if ring.minutes[minute % MINUTES] == minute else 0
                for minute in window
            ]
            for series, ring in self._rings.items()
        }
