"""What every benchmark shares: interleaved rounds, medians with their spread, goals, and the report.

A *goal* is one row of the yardstick in the README: Spool measured beside its anchor in the same run
(or alone, for an absolute target such as deliveries per second), the ratio or value printed beside
the goal with ✔ or ✘.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal

__all__ = [
    "Goal",
    "Ratio",
    "Report",
    "Row",
    "Stats",
    "format_goal",
    "format_report",
    "percentile",
    "side_by_side",
    "side_by_side_async",
    "side_by_side_stats",
    "side_by_side_stats_async",
]

Direction = Literal["at_least", "at_most"]


@dataclasses.dataclass(frozen=True, slots=True)
class Stats:
    """The samples of one case over the rounds: their median and their spread (lowest, highest)."""

    median: float
    low: float
    high: float
    samples: tuple[float, ...]

    @classmethod
    def of(cls, samples: Sequence[float]) -> Stats:
        """The statistics of a non-empty sequence of samples."""
        return cls(statistics.median(samples), min(samples), max(samples), tuple(samples))

    def map(self, function: Callable[[float], float]) -> Stats:
        """The same statistics in another unit (``function`` must be monotonic)."""
        values = sorted(function(sample) for sample in self.samples)
        return Stats.of(values)


@dataclasses.dataclass(frozen=True, slots=True)
class Row:
    """One measured value with its unit."""

    name: str
    value: float
    unit: str


@dataclasses.dataclass(frozen=True, slots=True)
class Ratio:
    """Two values measured side by side, divided, and what the quotient means."""

    name: str
    value: float
    meaning: str


@dataclasses.dataclass(frozen=True, slots=True)
class Goal:
    """A row of the yardstick: Spool's figure, its anchor's in the same run, and the goal.

    With an anchor the goal bounds ``spool / anchor``; without one it bounds Spool's figure itself.
    """

    name: str
    spool: Stats
    unit: str
    direction: Direction
    target: float
    anchor: Stats | None = None
    anchor_name: str | None = None

    @property
    def value(self) -> float:
        """What the goal bounds: the ratio of the medians, or Spool's median without an anchor."""
        if self.anchor is None:
            return self.spool.median
        return self.spool.median / self.anchor.median if self.anchor.median else math.nan

    @property
    def met(self) -> bool:
        """Whether the value is on the right side of the target."""
        if math.isnan(self.value):
            return False
        if self.direction == "at_least":
            return self.value >= self.target
        return self.value <= self.target

    def as_json(self) -> dict[str, Any]:
        """The goal as plain JSON values, for ``bench/results/latest.json``."""
        return {
            "name": self.name,
            "unit": self.unit,
            "spool": dataclasses.asdict(self.spool),
            "anchor": None if self.anchor is None else dataclasses.asdict(self.anchor),
            "anchor_name": self.anchor_name,
            "value": self.value,
            "direction": self.direction,
            "target": self.target,
            "met": self.met,
        }


@dataclasses.dataclass(slots=True)
class Report:
    """What one benchmark measured, the ratios and goals it derives and the parts it had to skip."""

    benchmark: str
    setup: str
    rows: list[Row] = dataclasses.field(default_factory=list)
    ratios: list[Ratio] = dataclasses.field(default_factory=list)
    goals: list[Goal] = dataclasses.field(default_factory=list)
    skipped: list[str] = dataclasses.field(default_factory=list)

    def add(self, name: str, value: float, unit: str) -> None:
        """Record a measured value."""
        self.rows.append(Row(name, value, unit))

    def ratio(self, name: str, numerator: float, denominator: float, meaning: str) -> None:
        """Record ``numerator / denominator`` (NaN when the denominator is zero)."""
        value = numerator / denominator if denominator else math.nan
        self.ratios.append(Ratio(name, value, meaning))

    def goal(
        self,
        name: str,
        spool: Stats,
        unit: str,
        *,
        anchor: Stats | None = None,
        anchor_name: str | None = None,
        at_least: float | None = None,
        at_most: float | None = None,
    ) -> Goal:
        """Record a yardstick row: exactly one of ``at_least`` and ``at_most`` is the target, for
        ``spool / anchor`` when an anchor is given, else for ``spool`` itself.
        """
        if (at_least is None) == (at_most is None):
            raise ValueError("give exactly one of at_least and at_most")
        if (anchor is None) != (anchor_name is None):
            raise ValueError("an anchor needs its name, and a name its anchor")
        direction: Direction = "at_least" if at_least is not None else "at_most"
        target = at_least if at_least is not None else at_most
        assert target is not None
        goal = Goal(name, spool, unit, direction, target, anchor, anchor_name)
        self.goals.append(goal)
        return goal

    def as_json(self) -> dict[str, Any]:
        """The report as plain JSON values."""
        return {
            "benchmark": self.benchmark,
            "setup": self.setup,
            "rows": [dataclasses.asdict(row) for row in self.rows],
            "ratios": [dataclasses.asdict(ratio) for ratio in self.ratios],
            "goals": [goal.as_json() for goal in self.goals],
            "skipped": list(self.skipped),
        }


def _rotated(names: Sequence[str], by: int) -> list[str]:
    # Rotating the order each round spreads any "first in the round" or "right after the other
    # case" effect (caches, a neighbour's burst of load) over every case.
    shift = by % len(names)
    return [*names[shift:], *names[:shift]]


def side_by_side_stats(
    cases: Mapping[str, Callable[[], float]], *, rounds: int, warmup: int = 1
) -> dict[str, Stats]:
    """Run every case once per round in a rotating order; each returns one sample (e.g. seconds).

    The first ``warmup`` rounds are discarded; the result is each case's statistics.
    """
    names = list(cases)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_index in range(warmup + rounds):
        for name in _rotated(names, round_index):
            sample = cases[name]()
            if round_index >= warmup:
                samples[name].append(sample)
    return {name: Stats.of(values) for name, values in samples.items()}


async def side_by_side_stats_async(
    cases: Mapping[str, Callable[[], Awaitable[float]]], *, rounds: int, warmup: int = 1
) -> dict[str, Stats]:
    """:func:`side_by_side_stats` for coroutine cases, awaited one at a time."""
    names = list(cases)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_index in range(warmup + rounds):
        for name in _rotated(names, round_index):
            sample = await cases[name]()
            if round_index >= warmup:
                samples[name].append(sample)
    return {name: Stats.of(values) for name, values in samples.items()}


def side_by_side(
    cases: Mapping[str, Callable[[], float]], *, rounds: int, warmup: int = 1
) -> dict[str, float]:
    """:func:`side_by_side_stats`, each case's median only."""
    stats = side_by_side_stats(cases, rounds=rounds, warmup=warmup)
    return {name: value.median for name, value in stats.items()}


async def side_by_side_async(
    cases: Mapping[str, Callable[[], Awaitable[float]]], *, rounds: int, warmup: int = 1
) -> dict[str, float]:
    """:func:`side_by_side_stats_async`, each case's median only."""
    stats = await side_by_side_stats_async(cases, rounds=rounds, warmup=warmup)
    return {name: value.median for name, value in stats.items()}


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (``fraction`` in [0, 1]) of a non-empty sequence."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def _number(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def _spread(stats: Stats) -> str:
    return f"{_number(stats.median)} [{_number(stats.low)}–{_number(stats.high)}]"


def format_goal(goal: Goal) -> str:
    """One yardstick row: the figures with their spread, the ratio, the goal and ✔ or ✘."""
    mark = "✔" if goal.met else "✘"
    bound = "≥" if goal.direction == "at_least" else "≤"
    spool = f"{_spread(goal.spool)} {goal.unit}"
    if goal.anchor is None:
        return f"  {mark} {goal.name}: {spool}  (goal {bound} {_number(goal.target)})"
    anchor = f"{goal.anchor_name} {_spread(goal.anchor)} {goal.unit}"
    ratio = f"ratio {_number(goal.value)} (goal {bound} {_number(goal.target)})"
    return f"  {mark} {goal.name}: spool {spool} | {anchor} | {ratio}"


def format_report(report: Report) -> str:
    """The report as a compact, aligned block of text."""
    lines = [f"{report.benchmark}: {report.setup}"]
    lines.extend(format_goal(goal) for goal in report.goals)
    name_width = max([len(row.name) for row in report.rows + report.ratios] + [10])
    for row in report.rows:
        lines.append(f"  {row.name:<{name_width}}  {_number(row.value):>10} {row.unit}")
    for ratio in report.ratios:
        lines.append(f"  {ratio.name:<{name_width}}  {_number(ratio.value):>9}x  {ratio.meaning}")
    for note in report.skipped:
        lines.append(f"  skipped: {note}")
    return "\n".join(lines)
