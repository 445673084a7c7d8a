"""Durations and timestamps as users write them, checked before anything is sent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

import sdk
from sdk._durations import parse_duration_text, to_datetime, to_millis, to_seconds, to_timedelta


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, timedelta(seconds=3)),
        (0.5, timedelta(milliseconds=500)),
        (timedelta(minutes=2), timedelta(minutes=2)),
        ("500ms", timedelta(milliseconds=500)),
        ("3s", timedelta(seconds=3)),
        ("5m", timedelta(minutes=5)),
        ("2h", timedelta(hours=2)),
        ("7d", timedelta(days=7)),
        (" 30s ", timedelta(seconds=30)),
    ],
)
def test_accepted_durations(value: sdk.Duration, expected: timedelta) -> None:
    """Seconds, timedeltas and `<n>ms|s|m|h|d` strings are all durations."""
    assert to_timedelta(value, name="delay") == expected


@pytest.mark.parametrize(
    "value",
    ["3", "3 s", "1.5s", "3sec", "-3s", "", "1h30m", -1, float("nan"), float("inf"), True, None],
)
def test_refused_durations(value: object) -> None:
    """Anything else is an InvalidDurationError naming the argument."""
    with pytest.raises(sdk.InvalidDurationError, match="delay"):
        to_timedelta(value, name="delay")  # type: ignore[arg-type]


def test_seconds_must_be_whole_and_in_range() -> None:
    """The API's integer seconds: no fractions, no values outside the spec's range."""
    assert to_seconds("2m", name="delay", minimum=0, maximum=604800) == 120
    with pytest.raises(sdk.InvalidDurationError, match="whole number of seconds"):
        to_seconds("1500ms", name="delay", minimum=0, maximum=604800)
    with pytest.raises(sdk.InvalidDurationError, match="between 0 s and 604800 s"):
        to_seconds("8d", name="delay", minimum=0, maximum=604800)
    with pytest.raises(sdk.InvalidDurationError, match="between 1 s and 900 s"):
        to_seconds(0, name="timeout", minimum=1, maximum=900)


def test_milliseconds_must_be_whole_and_in_range() -> None:
    """Millisecond fields get exact values, including from floats like 0.1."""
    assert to_millis(0.1, name="wait", minimum=0, maximum=30000) == 100
    assert to_millis("2s", name="wait", minimum=0, maximum=30000) == 2000
    with pytest.raises(sdk.InvalidDurationError, match="whole number of milliseconds"):
        to_millis(timedelta(microseconds=1500), name="wait", minimum=0, maximum=30000)
    with pytest.raises(sdk.InvalidDurationError):
        to_millis("31s", name="wait", minimum=0, maximum=30000)


def test_duration_text_parsing() -> None:
    """Only the duration grammar parses; other strings (retry_delay expressions) do not."""
    assert parse_duration_text("10s") == timedelta(seconds=10)
    assert parse_duration_text("1000 * pow(2, retried)") is None


def test_timestamps() -> None:
    """Aware datetimes and Unix seconds are accepted; naive datetimes are refused."""
    aware = datetime(2026, 11, 29, 12, tzinfo=timezone(timedelta(hours=2)))
    assert to_datetime(aware, name="not_before") is aware
    assert to_datetime(0, name="not_before") == datetime(1970, 1, 1, tzinfo=UTC)
    with pytest.raises(sdk.InvalidArgumentError, match="timezone-aware"):
        to_datetime(datetime(2026, 11, 29, 12), name="not_before")
    for bad in (float("nan"), "2026-11-29", True, 10**20):
        with pytest.raises(sdk.InvalidArgumentError):
            to_datetime(bad, name="not_before")  # type: ignore[arg-type]
