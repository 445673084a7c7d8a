"""What every benchmark shares: interleaved rounds, medians and percentiles, and the report."""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Awaitable, Callable, Mapping, Sequence

__all__ = [
    "Ratio",
    "Report",
    "Row",
    "format_report",
    "percentile",
    "side_by_side",
    "side_by_side_async",
]


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


@dataclasses.dataclass(slots=True)
class Report:
    """What one benchmark measured, the ratios it derives and the parts it had to skip."""

    benchmark: str
    setup: str
    rows: list[Row] = dataclasses.field(default_factory=list)
    ratios: list[Ratio] = dataclasses.field(default_factory=list)
    skipped: list[str] = dataclasses.field(default_factory=list)

    def add(self, name: str, value: float, unit: str) -> None:
        """Record a measured value."""
        self.rows.append(Row(name, value, unit))

    def ratio(self, name: str, numerator: float, denominator: float, meaning: str) -> None:
        """Record ``numerator / denominator`` (NaN when the denominator is zero)."""
        value = numerator / denominator if denominator else math.nan
        self.ratios.append(Ratio(name, value, meaning))


def _rotated(names: Sequence[str], by: int) -> list[str]:
    # Rotating the order each round spreads any "first in the round" or "right after the other
    # case" effect (caches, a neighbour's burst of load) over every case.
    shift = by % len(names)
    return [*names[shift:], *names[:shift]]


def side_by_side(
    cases: Mapping[str, Callable[[], float]], *, rounds: int, warmup: int = 1
) -> dict[str, float]:
    """Run every case once per round in a rotating order; each returns one sample (e.g. seconds).

    The first ``warmup`` rounds are discarded; the result is each case's median sample.
    """
    names = list(cases)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_index in range(warmup + rounds):
        for name in _rotated(names, round_index):
            sample = cases[name]()
            if round_index >= warmup:
                samples[name].append(sample)
    return {name: statistics.median(values) for name, values in samples.items()}


async def side_by_side_async(
    cases: Mapping[str, Callable[[], Awaitable[float]]], *, rounds: int, warmup: int = 1
) -> dict[str, float]:
    """:func:`side_by_side` for coroutine cases, awaited one at a time."""
    names = list(cases)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_index in range(warmup + rounds):
        for name in _rotated(names, round_index):
            sample = await cases[name]()
            if round_index >= warmup:
                samples[name].append(sample)
    return {name: statistics.median(values) for name, values in samples.items()}


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


def format_report(report: Report) -> str:
    """The report as a compact, aligned block of text."""
    lines = [f"{report.benchmark}: {report.setup}"]
    name_width = max([len(row.name) for row in report.rows + report.ratios] + [10])
    for row in report.rows:
        lines.append(f"  {row.name:<{name_width}}  {_number(row.value):>10} {row.unit}")
    for ratio in report.ratios:
        lines.append(f"  {ratio.name:<{name_width}}  {_number(ratio.value):>9}x  {ratio.meaning}")
    for note in report.skipped:
        lines.append(f"  skipped: {note}")
    return "\n".join(lines)
