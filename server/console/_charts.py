"""Line charts of per-minute counts, drawn as inline SVG by the ``_chart.html`` template.

The geometry is computed here and the template only writes it out, escaped like any other page
text: no script draws the charts and nothing is loaded for them, so they pass the console's
content security policy and show at once, even with scripts off.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

__all__ = ["CHART_HEIGHT", "CHART_WIDTH", "Chart", "Line", "chart"]

CHART_WIDTH = 600
CHART_HEIGHT = 180
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 8, 12, 26
# The y axis ends at the first of these (times a power of ten) at or above the largest count.
_STEPS = (1, 2, 5, 10)


@dataclasses.dataclass(frozen=True, slots=True)
class Line:
    """One series: its key (the CSS class ``series-<key>``), label, points and totals."""

    key: str
    label: str
    points: str
    total: int
    last_minute: int
    peak: int


@dataclasses.dataclass(frozen=True, slots=True)
class Chart:
    """A chart's lines and axes, in the SVG's own units (``CHART_WIDTH`` by ``CHART_HEIGHT``)."""

    key: str
    title: str
    lines: list[Line]
    y_ticks: list[tuple[float, str]]
    x_ticks: list[tuple[float, str]]
    left: float
    right: float
    top: float
    bottom: float

    @property
    def description(self) -> str:
        """The chart in words, for screen readers and the SVG's title."""
        parts = [f"{line.label}: {line.total} in the hour" for line in self.lines]
        return f"{self.title}, per minute over the last hour. " + "; ".join(parts) + "."


def _axis_top(peak: int) -> int:
    scale = 1
    while True:
        for step in _STEPS:
            if step * scale >= peak:
                return step * scale
        scale *= 10


def chart(key: str, title: str, series: Sequence[tuple[str, str, Sequence[int]]]) -> Chart:
    """A chart of ``series`` (key, label, counts per minute, oldest first, all of one length)."""
    minutes = max((len(counts) for _, _, counts in series), default=1)
    peak = max((max(counts, default=0) for _, _, counts in series), default=0)
    top_value = _axis_top(max(peak, 1))
    left, right = float(_LEFT), float(CHART_WIDTH - _RIGHT)
    top, bottom = float(_TOP), float(CHART_HEIGHT - _BOTTOM)
    step = (right - left) / max(minutes - 1, 1)

    def y(value: float) -> float:
        return round(bottom - (bottom - top) * value / top_value, 1)

    lines = [
        Line(
            key=series_key,
            label=label,
            points=" ".join(
                f"{round(left + index * step, 1)},{y(count)}" for index, count in enumerate(counts)
            ),
            total=sum(counts),
            last_minute=counts[-1] if counts else 0,
            peak=max(counts, default=0),
        )
        for series_key, label, counts in series
    ]
    y_ticks = [(y(value), str(value)) for value in sorted({0, top_value // 2, top_value})]
    x_ticks = [
        (left, f"{minutes} min ago"),
        (round(left + (minutes - 1) / 2 * step, 1), f"{minutes // 2} min ago"),
        (right, "now"),
    ]
    return Chart(key, title, lines, y_ticks, x_ticks, left, right, top, bottom)
