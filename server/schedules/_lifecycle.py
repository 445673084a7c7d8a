"""Resuming a schedule, which the API and the console both do: its next tick is computed from
its settings and now, and a put that replaces the settings in between makes it compute again.
"""

from __future__ import annotations

import time

from ..stores.base import ConflictError, ScheduleRecord, Store
from ._timetable import next_tick

__all__ = ["resume_schedule"]

# How often a resume computes its tick again when puts keep replacing the schedule in between.
_ATTEMPTS = 5


async def resume_schedule(store: Store, name: str) -> tuple[ScheduleRecord, bool]:
    """Resume the schedule ``name`` from its first tick after now, and answer it with whether it
    was paused; one that is not paused is answered as it is (``schedule_not_found``).
    ConflictError when puts replaced it each of a few times it was tried; TimetableError when
    its settings can no longer be read (the time zone database lost its zone).
    """
    attempt = 1
    while True:
        record = await store.get_schedule(name)
        if not record.paused:
            return record, False
        settings = record.settings
        next_run_at = next_tick(settings.cron, settings.timezone, after=time.time())
        try:
            resumed = await store.resume_schedule(
                name, revision=record.revision, next_run_at=next_run_at
            )
        except ConflictError:
            if attempt == _ATTEMPTS:
                raise
            attempt += 1
            continue
        return resumed, True
