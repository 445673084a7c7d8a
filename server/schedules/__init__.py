"""Cron schedules: their timetables (``_timetable``), what they publish (``_destinations``) and
the scheduler that fires them (``_scheduler``) and resuming them (``_lifecycle``), which the service runs beside the delivery engine.
"""

from __future__ import annotations

from ._destinations import (
    TICK_RECORD_TTL_SECONDS,
    check_destination,
    publish_destination,
    tick_claim,
)
from ._lifecycle import resume_schedule
from ._scheduler import (
    LEASE_SECONDS,
    MISSED_AFTER_SECONDS,
    RECHECK_SECONDS,
    Scheduler,
)
from ._timetable import TimetableError, next_tick

__all__ = [
    "LEASE_SECONDS",
    "MISSED_AFTER_SECONDS",
    "RECHECK_SECONDS",
    "TICK_RECORD_TTL_SECONDS",
    "Scheduler",
    "TimetableError",
    "check_destination",
    "next_tick",
    "publish_destination",
    "resume_schedule",
    "tick_claim",
]
