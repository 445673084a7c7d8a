"""What commands print: JSON for scripts, cells for tables."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from sdk._cli._output import cell, to_json


@dataclasses.dataclass
class _Sample:
    at: datetime
    took: timedelta
    tags: tuple[str, ...]


def test_to_json_turns_results_into_plain_data() -> None:
    """Dataclasses become objects, times RFC 3339, durations seconds."""
    sample = _Sample(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), timedelta(minutes=1), ("a",))
    assert to_json({"sample": sample}) == {
        "sample": {"at": "2026-01-02T03:04:05+00:00", "took": 60.0, "tags": ["a"]}
    }


def test_cells() -> None:
    """Nothing is '-', booleans are lower case, bodies are JSON."""
    assert [cell(None), cell(True), cell(3), cell({"a": 1}), cell(timedelta(seconds=30))] == [
        "-",
        "true",
        "3",
        '{"a": 1}',
        "30s",
    ]
