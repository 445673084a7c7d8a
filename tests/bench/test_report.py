"""The report's goals: ratio or absolute value against the target, ✔ or ✘, and their JSON."""

from __future__ import annotations

import math

import pytest

from bench._report import Report, Stats, format_report, side_by_side_stats


def test_a_goal_with_an_anchor_bounds_the_ratio_of_the_medians() -> None:
    """Spool 60 against an anchor of 100 is a ratio of 0.6: met for ≥ 0.5, not for ≥ 0.7."""
    report = Report("x", "setup")
    met = report.goal(
        "batch",
        Stats.of([50, 60, 70]),
        "entries/s",
        anchor=Stats.of([100]),
        anchor_name="redis-py",
        at_least=0.5,
    )
    missed = report.goal(
        "batch",
        Stats.of([60]),
        "entries/s",
        anchor=Stats.of([100]),
        anchor_name="redis-py",
        at_least=0.7,
    )

    assert met.value == pytest.approx(0.6) and met.met
    assert not missed.met
    text = format_report(report)
    assert "✔ batch: spool 60 [50–70] entries/s | redis-py 100 [100–100] entries/s" in text
    assert "ratio 0.6 (goal ≥ 0.5)" in text
    assert "✘ batch" in text
    assert report.as_json()["goals"][0]["met"] is True


def test_a_goal_without_an_anchor_bounds_the_value_itself() -> None:
    """An absolute goal such as a p95 of at most 100 ms compares Spool's median with it."""
    report = Report("x", "setup")
    goal = report.goal("lag p95", Stats.of([80, 120, 90]), "ms", at_most=100)

    assert goal.value == 90 and goal.met
    assert "✔ lag p95: 90 [80–120] ms  (goal ≤ 100)" in format_report(report)


def test_a_goal_needs_exactly_one_bound_and_a_named_anchor() -> None:
    """Both bounds, no bound, or an unnamed anchor are programming errors."""
    report = Report("x", "setup")
    with pytest.raises(ValueError, match="exactly one"):
        report.goal("g", Stats.of([1]), "s", at_least=1, at_most=2)
    with pytest.raises(ValueError, match="exactly one"):
        report.goal("g", Stats.of([1]), "s")
    with pytest.raises(ValueError, match="anchor needs its name"):
        report.goal("g", Stats.of([1]), "s", anchor=Stats.of([1]), at_least=1)


def test_a_zero_anchor_is_never_met() -> None:
    """A ratio over an anchor that measured nothing is n/a and not met."""
    goal = Report("x", "s").goal(
        "g", Stats.of([1]), "s", anchor=Stats.of([0]), anchor_name="a", at_least=0
    )
    assert math.isnan(goal.value) and not goal.met


def test_side_by_side_stats_drops_warmup_and_keeps_the_spread() -> None:
    """Each case's samples after the warm-up give its median, lowest and highest."""
    counter = iter(range(100))
    stats = side_by_side_stats({"a": lambda: float(next(counter))}, rounds=3, warmup=1)
    assert stats["a"] == Stats(median=2.0, low=1.0, high=3.0, samples=(1.0, 2.0, 3.0))


def test_stats_map_converts_units_and_keeps_the_order() -> None:
    """Seconds per call turned into calls per second swap the low and high ends."""
    per_second = Stats.of([0.5, 0.25, 1.0]).map(lambda seconds: 1 / seconds)
    assert (per_second.median, per_second.low, per_second.high) == (2.0, 1.0, 4.0)
