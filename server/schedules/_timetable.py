"""A schedule's timetable: its cron expression read in its time zone, by cronsim.

cronsim reads the five fields as standard cron does (lists, ranges, steps, names, ``L``, ``W`` and
``#``; either day field matching when both are restricted) and walks an aware time across
daylight-saving changes: a tick in a gap fires at the first minute after it, a tick in a repeated
hour once, at its first occurrence. It also reads a sixth field of seconds, which openapi.yaml
does not allow, so the fields are counted here first.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError

__all__ = ["TimetableError", "next_tick"]

_FIELDS = 5


class TimetableError(ValueError):
    """A cron expression that cannot be read or never fires (``invalid_cron``), or a time zone
    that is not known (``invalid_timezone``); ``code`` is the ErrorCode.
    """

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def _zone(timezone: str) -> ZoneInfo:
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError, OSError) as error:
        raise TimetableError(
            "invalid_timezone", f"{timezone!r} is not an IANA time zone this service knows"
        ) from error


def next_tick(cron: str, timezone: str, *, after: float) -> float:
    """The first tick of ``cron`` in ``timezone`` strictly after the time ``after`` (seconds
    since the epoch); TimetableError when either cannot be read or the expression never fires.
    """
    zone = _zone(timezone)
    if len(cron.split()) != _FIELDS:
        raise TimetableError(
            "invalid_cron",
            f"{cron!r} is not a cron expression of five fields (minute, hour, day of month, "
            "month, day of week)",
        )
    try:
        ticks = CronSim(cron, datetime.fromtimestamp(after, tz=zone))
        return next(ticks).timestamp()
    except CronSimError as error:
        raise TimetableError(
            "invalid_cron", f"{cron!r} is not a cron expression: {error}"
        ) from error
    except StopIteration as error:
        raise TimetableError("invalid_cron", f"{cron!r} never fires") from error
