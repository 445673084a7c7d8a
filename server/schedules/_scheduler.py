"""The scheduler: the background service that fires every schedule's due ticks.

It claims due ticks from the store (``claim_due_schedules``), publishes each one's destination
idempotently (``publish_destination`` with ``tick_claim``) and records the run with the next tick
(``complete_schedule_tick``). Several service processes may run one each on a shared store: the
claim hands a tick to one of them, and the idempotent publish keeps a tick claimed again after a
crash from publishing twice.

Between passes it sleeps until the store's next due time (``next_schedule_due_at``), so a tick
fires as soon as it is due rather than at the next poll; a schedule put or resumed in this process
wakes it (``wake``), and one changed by another process is seen within ``RECHECK_SECONDS``.

A tick it comes to more than ``MISSED_AFTER_SECONDS`` late was missed (the service was down):
with ``catch_up: once`` it is published once, for all the ticks missed, and with ``skip`` only a
skipped run is recorded; either way the next tick is the first after now.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from ..problems import ProblemError
from ..routes._context import AppContext
from ..stores.base import (
    ConflictError,
    NotFoundError,
    ScheduleRun,
    ScheduleTick,
    StoreError,
    StoreUnavailableError,
)
from ._destinations import publish_destination, tick_claim
from ._timetable import TimetableError, next_tick

__all__ = ["LEASE_SECONDS", "MISSED_AFTER_SECONDS", "RECHECK_SECONDS", "Scheduler"]

# How long a claimed tick is held: its publish checks a message's destinations (a name lookup of
# up to 2 seconds) and writes once, so a tick still held this long was left by a dead process.
LEASE_SECONDS = 30.0
MISSED_AFTER_SECONDS = 60.0
RECHECK_SECONDS = 1.0
# Ticks claimed in one pass; they are fired side by side.
_BATCH = 50
# A due time already past that found nothing to claim is looked at again this soon, not at once:
# timers may wake a hair before the time they were set for.
_LATE_RETRY_SECONDS = 0.001

logger = logging.getLogger("spool.schedules")


class Scheduler:
    """Fires the due ticks of every schedule in ``context.store``; ``clock`` is its time (the
    store's own clock decides leases), and ``recheck_seconds`` bounds each sleep.
    """

    def __init__(
        self,
        context: AppContext,
        *,
        clock: Callable[[], float] = time.time,
        recheck_seconds: float = RECHECK_SECONDS,
    ) -> None:
        self._context = context
        self._clock = clock
        self._recheck = recheck_seconds
        self._woken = asyncio.Event()
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Begin firing in the background."""
        self._stopping.clear()
        self._task = asyncio.create_task(self._loop(), name="spool-scheduler")

    async def stop(self) -> None:
        """Stop; a tick being fired is abandoned, and its lease lets another process take it."""
        task, self._task = self._task, None
        if task is None:
            return
        # The loop also watches the event: redis-py may swallow a cancellation that lands in one
        # of its calls (returning, or raising a connection error), and the loop would go on.
        self._stopping.set()
        self._woken.set()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    def wake(self) -> None:
        """Look at the schedules now: one was put or resumed in this process."""
        self._woken.set()

    async def run_due(self) -> int:
        """Fire every tick due now, once: claim, publish, record. Answers how many it fired."""
        now = self._clock()
        ticks = await self._context.store.claim_due_schedules(
            now=now, limit=_BATCH, lease_seconds=LEASE_SECONDS
        )
        if ticks:
            await asyncio.gather(*(self._fire(tick) for tick in ticks))
        return len(ticks)

    async def _loop(self) -> None:
        while not self._stopping.is_set():
            # Claiming is a write: it is made only once a read says some tick is due, so an idle
            # service writes nothing between its re-checks.
            try:
                due = await self._context.store.next_schedule_due_at()
                if due is not None and due <= self._clock() and await self.run_due():
                    continue
            except StoreUnavailableError as error:
                logger.warning("schedules: the store does not answer: %s", error)
                due = None
            wait = self._recheck
            if due is not None:
                wait = min(wait, max(_LATE_RETRY_SECONDS, due - self._clock()))
            self._woken.clear()
            if self._stopping.is_set():
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), timeout=wait)

    async def _fire(self, tick: ScheduleTick) -> None:
        schedule, settings = tick.schedule, tick.schedule.settings
        fired_at = self._clock()
        try:
            next_run_at = next_tick(settings.cron, settings.timezone, after=fired_at)
        except TimetableError:
            # The time zone database lost the zone the schedule was put with: it cannot go on.
            logger.exception("schedule %r can no longer be read; pausing it", schedule.name)
            await self._context.store.pause_schedule(schedule.name)
            return
        if settings.catch_up == "skip" and fired_at - tick.tick_at > MISSED_AFTER_SECONDS:
            run = ScheduleRun(tick.tick_at, fired_at, "skipped")
        else:
            run = await self._publish(tick, fired_at)
        try:
            await self._context.store.complete_schedule_tick(
                schedule.name, lease_id=tick.lease_id, run=run, next_run_at=next_run_at
            )
        except (ConflictError, NotFoundError) as error:
            # Replaced, resumed or deleted meanwhile: the new settings (or none) go on from here.
            logger.info("schedule %r changed while it fired: %s", schedule.name, error.detail)

    async def _publish(self, tick: ScheduleTick, fired_at: float) -> ScheduleRun:
        try:
            ids = await publish_destination(
                self._context,
                tick.schedule.settings.destination,
                claim=tick_claim(tick.schedule, tick.tick_at),
                schedule=tick.schedule.name,
            )
        except StoreUnavailableError:
            raise
        except (ProblemError, StoreError) as error:
            return ScheduleRun(
                tick.tick_at,
                fired_at,
                "failed",
                error_code=error.code,
                error_detail=error.detail,
            )
        return ScheduleRun(tick.tick_at, fired_at, "published", ids=tuple(ids))
