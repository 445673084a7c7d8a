"""The contract of cron schedules: what each public method promises and checks.

A store keeps schedules and hands their due ticks to schedulers; it does not read cron
expressions. The caller (the service) computes every ``next_run_at`` and passes it in, and the
store keeps it, compares it with ``now`` and answers it.

Exactly one run per tick, however many schedulers share the store: ``claim_due_schedules`` hands
a due tick to one caller at a time, under a lease; ``complete_schedule_tick`` records its run and
moves the schedule to its next tick only while that lease is current. A scheduler that dies
between the two leaves its lease to end, and the tick is handed out again: what it publishes is
keyed by the schedule's revision and the tick (see server/schedules/), so a second run of the same
tick replays the first publish instead of making another.

Every public method checks its arguments (``..checks``) and then calls its hook, the method of the
same name with a leading underscore, which a backend implements. A hook is only ever called with
arguments that passed: a known ``catch_up`` and outcome, finite times, limits and leases of at
least 1, and the destination already written as JSON text by ``dump_json``.
"""

from __future__ import annotations

import abc
import math
from typing import get_args

from ..checks import check_at_least_one, dump_json
from ..cursors import schedule_cursor, schedule_cursor_position
from ..errors import StoreError
from ..records import (
    ScheduleCatchUp,
    ScheduleOutcome,
    SchedulePage,
    ScheduleRecord,
    ScheduleRun,
    ScheduleSettings,
    ScheduleTick,
)

__all__ = ["RECENT_RUNS", "SchedulesContract"]

# How many runs a schedule keeps, newest first; openapi.yaml's Schedule.recent_runs says as many.
RECENT_RUNS = 20
_CATCH_UPS: tuple[str, ...] = get_args(ScheduleCatchUp)
_OUTCOMES: tuple[str, ...] = get_args(ScheduleOutcome)


def _check_time(value: float, *, name: str) -> None:
    if not math.isfinite(value):
        raise StoreError("validation_failed", f"{name} must be a finite time: {value}")


def _check_settings(settings: ScheduleSettings) -> str:
    """The checked settings' destination as JSON text."""
    if settings.catch_up not in _CATCH_UPS:
        raise StoreError("validation_failed", f"unknown catch_up {settings.catch_up!r}")
    if not settings.cron or not settings.timezone:
        raise StoreError("validation_failed", "a schedule needs a cron expression and a time zone")
    return dump_json(settings.destination, what="a schedule's destination")


def _check_run(run: ScheduleRun) -> None:
    if run.outcome not in _OUTCOMES:
        raise StoreError("validation_failed", f"unknown schedule outcome {run.outcome!r}")
    _check_time(run.tick_at, name="tick_at")
    _check_time(run.fired_at, name="fired_at")


class SchedulesContract(abc.ABC):
    """Cron schedules: the public methods with their checks, and hooks."""

    async def put_schedule(
        self, name: str, settings: ScheduleSettings, *, revision: str, next_run_at: float
    ) -> tuple[ScheduleRecord, bool]:
        """Create the schedule, or replace its settings, and answer it with whether it is new.

        A new schedule is not paused and has no runs. A replaced one keeps its ``created_at``,
        whether it is paused, its ``last_run_at`` and its runs; its tick in progress (claimed, not
        completed) is forgotten, so that tick's ``complete_schedule_tick`` is ``lease_expired``.
        Either way its ``revision`` is ``revision`` and, unless it is paused, its next tick is
        ``next_run_at``. An unknown ``catch_up``, an empty cron or time zone, a destination that
        is not JSON or a time that is not finite is ``validation_failed``.
        """
        destination = _check_settings(settings)
        _check_time(next_run_at, name="next_run_at")
        if not revision:
            raise StoreError("validation_failed", "a schedule needs a revision")
        return await self._put_schedule(
            name, settings, destination=destination, revision=revision, next_run_at=next_run_at
        )

    async def get_schedule(self, name: str) -> ScheduleRecord:
        """The schedule with its recent runs (``schedule_not_found``)."""
        return await self._get_schedule(name)

    async def list_schedules(self, *, limit: int, cursor: str | None) -> SchedulePage:
        """Up to ``limit`` schedules by name, after ``cursor`` (an earlier page's
        ``next_cursor``; None for the first page); the last page's ``next_cursor`` is None. A
        cursor that is not a schedule listing's is ``validation_failed``.
        """
        check_at_least_one(limit, name="limit")
        after = None if cursor is None else schedule_cursor_position(cursor)
        schedules = await self._list_schedules(limit=limit + 1, cursor=after)
        page = schedules[:limit]
        more = len(schedules) > limit
        return SchedulePage(
            schedules=page, next_cursor=schedule_cursor(page[-1].name) if more else None
        )

    async def delete_schedule(self, name: str) -> None:
        """Delete the schedule and its runs (``schedule_not_found``); a tick of it in progress
        completes as ``schedule_not_found``.
        """
        await self._delete_schedule(name)

    async def pause_schedule(self, name: str) -> ScheduleRecord:
        """Pause the schedule: no tick of it is claimed until it is resumed, and its
        ``next_run_at`` is None. A tick in progress may still complete, and records its run.
        Pausing a paused schedule changes nothing (``schedule_not_found``).
        """
        return await self._pause_schedule(name)

    async def resume_schedule(
        self, name: str, *, revision: str, next_run_at: float
    ) -> ScheduleRecord:
        """Resume a paused schedule at ``next_run_at``, the first tick after now by the settings
        of ``revision``; a schedule that is not paused is answered unchanged. When the schedule's
        revision is no longer ``revision`` (it was replaced meanwhile), this is
        ``ConflictError("conflict")`` and changes nothing (``schedule_not_found``).
        """
        _check_time(next_run_at, name="next_run_at")
        return await self._resume_schedule(name, revision=revision, next_run_at=next_run_at)

    async def claim_due_schedules(
        self, *, now: float, limit: int, lease_seconds: float
    ) -> list[ScheduleTick]:
        """For a scheduler: atomically claim up to ``limit`` ticks that are due, earliest first,
        each under a fresh ``lease_id`` for ``lease_seconds``. A tick is due when its schedule is
        not paused, its ``next_run_at`` is at or before ``now`` and no lease on it is current (a
        claimed tick whose lease ended, because its scheduler died, is due again). No tick is
        claimed by two callers at once. A limit below 1, a lease that is not a number of seconds
        of at least 1 or a ``now`` that is not finite is ``validation_failed``.
        """
        check_at_least_one(limit, name="limit")
        _check_time(now, name="now")
        if not (math.isfinite(lease_seconds) and lease_seconds >= 1):
            raise StoreError(
                "validation_failed", f"lease_seconds must be a number >= 1: {lease_seconds}"
            )
        return await self._claim_due_schedules(now=now, limit=limit, lease_seconds=lease_seconds)

    async def complete_schedule_tick(
        self, name: str, *, lease_id: str, run: ScheduleRun, next_run_at: float
    ) -> ScheduleRecord:
        """Record ``run`` for the tick claimed under ``lease_id`` and end the lease: the run goes
        first in ``recent_runs`` (which keeps the newest ``RECENT_RUNS``), ``last_run_at`` becomes
        its ``fired_at``, and the schedule's next tick is ``next_run_at`` (None while it is
        paused). Unless the lease is current (the tick was claimed under ``lease_id`` and not
        completed, nor the schedule replaced or resumed since), ``ConflictError("lease_expired")``
        and nothing is written; a lease that ended without the tick being claimed again is still
        current. An unknown schedule is ``schedule_not_found``; an unknown outcome or a time that
        is not finite is ``validation_failed``.
        """
        _check_run(run)
        _check_time(next_run_at, name="next_run_at")
        return await self._complete_schedule_tick(
            name, lease_id=lease_id, run=run, next_run_at=next_run_at
        )

    async def next_schedule_due_at(self) -> float | None:
        """For a scheduler: the earliest time a tick may next be claimed, whether that time has
        passed or not: a schedule's ``next_run_at``, or when the lease on its claimed tick ends.
        None when no schedule is unpaused. Reads only.
        """
        return await self._next_schedule_due_at()

    # Hooks ---------------------------------------------------------------------------------

    @abc.abstractmethod
    async def _put_schedule(
        self,
        name: str,
        settings: ScheduleSettings,
        *,
        destination: str,
        revision: str,
        next_run_at: float,
    ) -> tuple[ScheduleRecord, bool]:
        """``put_schedule``; ``destination`` is the settings' destination as JSON text."""

    @abc.abstractmethod
    async def _get_schedule(self, name: str) -> ScheduleRecord:
        """``get_schedule``."""

    @abc.abstractmethod
    async def _list_schedules(self, *, limit: int, cursor: str | None) -> list[ScheduleRecord]:
        """``list_schedules`` with its cursor read: up to ``limit`` schedules by name, those
        after the name ``cursor`` (None: from the first).
        """

    @abc.abstractmethod
    async def _delete_schedule(self, name: str) -> None:
        """``delete_schedule``."""

    @abc.abstractmethod
    async def _pause_schedule(self, name: str) -> ScheduleRecord:
        """``pause_schedule``."""

    @abc.abstractmethod
    async def _resume_schedule(
        self, name: str, *, revision: str, next_run_at: float
    ) -> ScheduleRecord:
        """``resume_schedule`` with a finite ``next_run_at``."""

    @abc.abstractmethod
    async def _claim_due_schedules(
        self, *, now: float, limit: int, lease_seconds: float
    ) -> list[ScheduleTick]:
        """``claim_due_schedules`` with checked arguments."""

    @abc.abstractmethod
    async def _complete_schedule_tick(
        self, name: str, *, lease_id: str, run: ScheduleRun, next_run_at: float
    ) -> ScheduleRecord:
        """``complete_schedule_tick`` with a checked run; keep the newest ``RECENT_RUNS``."""

    @abc.abstractmethod
    async def _next_schedule_due_at(self) -> float | None:
        """``next_schedule_due_at``."""
