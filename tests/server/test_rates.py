"""The per-minute counts of the last hour (server/rates.py) and how the metrics feed them."""

from __future__ import annotations

from server.config import MetricsSettings
from server.metrics import Metrics
from server.rates import MINUTES, RATE_SERIES, MinuteRates


class _Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_counts_land_in_their_minute_and_age_out_after_an_hour() -> None:
    """This minute's counts add up; a minute later they move one slot back; an hour on, the slot
    comes round again and starts from zero.
    """
    clock = _Clock()
    rates = MinuteRates(clock)
    rates.count("jobs", 3)
    rates.count("jobs")
    hour = rates.last_hour()
    assert set(hour) == set(RATE_SERIES)
    assert len(hour["jobs"]) == MINUTES and hour["jobs"][-1] == 4 and sum(hour["jobs"]) == 4
    clock.now += 60
    rates.count("failed")
    hour = rates.last_hour()
    assert (hour["jobs"][-2], hour["jobs"][-1], hour["failed"][-1]) == (4, 0, 1)
    clock.now += 60 * (MINUTES - 1)
    assert sum(rates.last_hour()["jobs"]) == 0
    rates.count("jobs")
    assert rates.last_hour()["jobs"] == [0] * (MINUTES - 1) + [1]


def test_metrics_feed_the_rates_with_what_they_count() -> None:
    """Written publishes by kind (not replays), delivered and failed attempts, dead letters."""
    metrics = Metrics(MetricsSettings(enabled=True))
    metrics.publishing["publishJobs"].answered(5, replayed=False)
    metrics.publishing["appendEntry"].answered(1, replayed=True)
    metrics.publishing["publishMessage"].refused(2)
    for succeeded, last in ((True, False), (False, False), (False, True)):
        metrics.delivery_attempt_ended(
            succeeded=succeeded, last=last, error=None, status=500, seconds=0.1
        )
    totals = {series: sum(counts) for series, counts in metrics.rates.last_hour().items()}
    assert totals == {
        "entries": 0,
        "jobs": 5,
        "messages": 0,
        "delivered": 1,
        "failed": 2,
        "dead_letters": 1,
        "jobs_acked": 0,
        "jobs_nacked": 0,
        "jobs_dead": 0,
    }
