"""A schedule's timetable (server/schedules/_timetable.py): cron read in a time zone."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo

import pytest

from server.schedules import TimetableError, next_tick

BERLIN = ZoneInfo("Europe/Berlin")


def _at(zone: tzinfo, year: int, month: int, day: int, hour: int, minute: int) -> float:
    return datetime(year, month, day, hour, minute, tzinfo=zone).timestamp()


def test_the_next_tick_is_strictly_after() -> None:
    """A time that is itself a tick gives the one after it."""
    noon = _at(UTC, 2026, 1, 1, 12, 0)
    assert next_tick("* * * * *", "UTC", after=noon) == noon + 60
    assert next_tick("* * * * *", "UTC", after=noon - 0.5) == noon
    assert next_tick("*/15 * * * *", "UTC", after=noon + 1) == noon + 900


def test_the_expression_is_read_in_its_time_zone() -> None:
    """``0 9 * * *`` in Berlin is 08:00 UTC in winter and 07:00 UTC in summer."""
    winter = next_tick("0 9 * * *", "Europe/Berlin", after=_at(BERLIN, 2026, 1, 10, 10, 0))
    summer = next_tick("0 9 * * *", "Europe/Berlin", after=_at(BERLIN, 2026, 7, 10, 10, 0))
    assert datetime.fromtimestamp(winter, tz=UTC).hour == 8
    assert datetime.fromtimestamp(summer, tz=UTC).hour == 7


def test_daylight_saving_gaps_and_repeats() -> None:
    """A tick in the spring gap fires at the first minute after it; a tick in the repeated
    autumn hour fires once.
    """
    gap = next_tick("30 2 * * *", "Europe/Berlin", after=_at(BERLIN, 2026, 3, 29, 0, 0))
    assert datetime.fromtimestamp(gap, tz=BERLIN).strftime("%H:%M") == "03:00"
    night = _at(BERLIN, 2026, 10, 25, 0, 0)
    first = next_tick("30 2 * * *", "Europe/Berlin", after=night)
    after_first = next_tick("30 2 * * *", "Europe/Berlin", after=first)
    assert after_first - first > 23 * 3600


@pytest.mark.parametrize(
    ("cron", "timezone", "code"),
    [
        ("61 * * * *", "UTC", "invalid_cron"),
        ("* * * *", "UTC", "invalid_cron"),
        ("*/5 * * * * *", "UTC", "invalid_cron"),
        ("0 0 31 4 *", "UTC", "invalid_cron"),
        ("* * * * *", "Nowhere/City", "invalid_timezone"),
        ("* * * * *", "../../etc/passwd", "invalid_timezone"),
    ],
)
def test_what_cannot_be_read_is_a_typed_error(cron: str, timezone: str, code: str) -> None:
    """An expression that is not five readable fields or never fires, or an unknown zone."""
    with pytest.raises(TimetableError) as raised:
        next_tick(cron, timezone, after=0.0)
    assert raised.value.code == code
