"""Cron schedules: a hash and a list of recent runs each, all in the slot of ``{schedules}``.

A schedule's hash holds its settings (the destination as JSON text), ``revision``, ``paused``
(``0``/``1``), ``created_at``, ``updated_at``, ``last_run_at`` and, unless it is paused,
``next_run_at``; while a scheduler holds a tick of it, also that claim's ``lease_id`` and
``lease_until``. Its runs are a list of JSON texts, newest first, trimmed to ``RECENT_RUNS`` by the
script that adds one. The ``due`` zset scores each unpaused schedule by when a tick of it may next
be claimed: its ``next_run_at``, or its claim's ``lease_until``; so a claim finds the due ticks
with one ZRANGEBYSCORE, and the earliest time is its first member. Every write is one script, so
two processes never claim one tick twice; on a cluster, every key is in one slot.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any, cast

from ..base import (
    ConflictError,
    NotFoundError,
    ScheduleCatchUp,
    ScheduleOutcome,
    ScheduleRecord,
    ScheduleRun,
    ScheduleSettings,
    ScheduleTick,
)
from ..contract._schedules import RECENT_RUNS
from .arguments import number_text
from .core import RedisCore
from .records import pairs

__all__ = ["RedisSchedules"]

_MISSING, _REFUSED = 0, 1


def _not_found(name: str) -> NotFoundError:
    return NotFoundError("schedule_not_found", f"schedule {name!r} does not exist")


def _optional_float(fields: dict[str, str], name: str) -> float | None:
    value = fields.get(name)
    return None if value is None else float(value)


def _run_json(run: ScheduleRun) -> str:
    return json.dumps(
        {
            "tick_at": run.tick_at,
            "fired_at": run.fired_at,
            "outcome": run.outcome,
            "ids": list(run.ids),
            "error_code": run.error_code,
            "error_detail": run.error_detail,
        },
        separators=(",", ":"),
    )


def _run(text: str) -> ScheduleRun:
    kept = json.loads(text)
    return ScheduleRun(
        tick_at=kept["tick_at"],
        fired_at=kept["fired_at"],
        outcome=cast(ScheduleOutcome, kept["outcome"]),
        ids=tuple(kept["ids"]),
        error_code=kept["error_code"],
        error_detail=kept["error_detail"],
    )


def _schedule(name: str, answer: Sequence[Any]) -> ScheduleRecord:
    """A schedule from what ``schedule_answer`` (``lua/lib/schedules.lua``) returns."""
    fields = pairs(answer[0])
    return ScheduleRecord(
        name=name,
        settings=ScheduleSettings(
            cron=fields["cron"],
            timezone=fields["timezone"],
            catch_up=cast(ScheduleCatchUp, fields["catch_up"]),
            destination=json.loads(fields["destination"]),
        ),
        revision=fields["revision"],
        paused=fields["paused"] == "1",
        created_at=float(fields["created_at"]),
        updated_at=float(fields["updated_at"]),
        next_run_at=_optional_float(fields, "next_run_at"),
        last_run_at=_optional_float(fields, "last_run_at"),
        recent_runs=[_run(str(text)) for text in answer[1]],
    )


class RedisSchedules(RedisCore):
    """The schedule methods of the Redis store."""

    async def _put_schedule(
        self,
        name: str,
        settings: ScheduleSettings,
        *,
        destination: str,
        revision: str,
        next_run_at: float,
    ) -> tuple[ScheduleRecord, bool]:
        keys = self._keys.schedules
        created, answer = await self._run(
            "put_schedule",
            [keys.schedule(name), keys.runs(name), keys.names, keys.due],
            [
                name,
                settings.cron,
                settings.timezone,
                settings.catch_up,
                destination,
                revision,
                number_text(self.clock()),
                number_text(next_run_at),
            ],
            details={},
        )
        return _schedule(name, answer), bool(created)

    async def _get_schedule(self, name: str) -> ScheduleRecord:
        found = await self._read_schedules([name])
        if not found:
            raise _not_found(name)
        return found[0]

    async def _list_schedules(self, *, limit: int, cursor: str | None) -> list[ScheduleRecord]:
        keys = self._keys.schedules
        low = "-" if cursor is None else f"({cursor}"
        async with self._gate():
            listed = await self._redis.zrangebylex(keys.names, low, "+", start=0, num=limit)
        return await self._read_schedules([str(name) for name in listed])

    async def _read_schedules(self, names: Sequence[str]) -> list[ScheduleRecord]:
        """The schedules named, in order, leaving out those that are gone."""
        if not names:
            return []
        keys = self._keys.schedules
        async with self._redis.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.hgetall(keys.schedule(name))
                pipe.lrange(keys.runs(name), 0, -1)
            async with self._gate():
                read = await pipe.execute()
        found = []
        for index, name in enumerate(names):
            fields, runs = read[2 * index], read[2 * index + 1]
            if fields:
                flat = [item for pair in fields.items() for item in pair]
                found.append(_schedule(name, [flat, runs]))
        return found

    async def _delete_schedule(self, name: str) -> None:
        keys = self._keys.schedules
        deleted = await self._run(
            "delete_schedule",
            [keys.schedule(name), keys.runs(name), keys.names, keys.due],
            [name],
            details={},
        )
        if not deleted:
            raise _not_found(name)

    async def _pause_schedule(self, name: str) -> ScheduleRecord:
        keys = self._keys.schedules
        answer = await self._run(
            "pause_schedule",
            [keys.schedule(name), keys.runs(name), keys.due],
            [name],
            details={},
        )
        if not answer:
            raise _not_found(name)
        return _schedule(name, answer)

    async def _resume_schedule(
        self, name: str, *, revision: str, next_run_at: float
    ) -> ScheduleRecord:
        keys = self._keys.schedules
        status, *answer = await self._run(
            "resume_schedule",
            [keys.schedule(name), keys.runs(name), keys.due],
            [name, revision, number_text(next_run_at)],
            details={},
        )
        if status == _MISSING:
            raise _not_found(name)
        if status == _REFUSED:
            raise ConflictError("conflict", f"schedule {name!r} was replaced meanwhile")
        return _schedule(name, answer[0])

    async def _claim_due_schedules(
        self, *, now: float, limit: int, lease_seconds: float
    ) -> list[ScheduleTick]:
        keys = self._keys.schedules
        claimed = await self._run(
            "claim_due_schedules",
            [keys.due],
            [
                keys.schedule_prefix,
                keys.runs_prefix,
                number_text(now),
                limit,
                number_text(lease_seconds),
                *(uuid.uuid4().hex for _ in range(limit)),
            ],
            details={},
        )
        return [
            ScheduleTick(
                schedule=_schedule(str(name), answer),
                tick_at=float(tick_at),
                lease_id=str(lease_id),
            )
            for name, lease_id, tick_at, answer in claimed
        ]

    async def _complete_schedule_tick(
        self, name: str, *, lease_id: str, run: ScheduleRun, next_run_at: float
    ) -> ScheduleRecord:
        keys = self._keys.schedules
        status, *answer = await self._run(
            "complete_schedule_tick",
            [keys.schedule(name), keys.runs(name), keys.due],
            [
                name,
                lease_id,
                _run_json(run),
                number_text(run.fired_at),
                number_text(next_run_at),
                RECENT_RUNS,
            ],
            details={},
        )
        if status == _MISSING:
            raise _not_found(name)
        if status == _REFUSED:
            raise ConflictError(
                "lease_expired",
                f"lease {lease_id!r} is not the current claim of a tick of schedule {name!r}",
            )
        return _schedule(name, answer[0])

    async def _next_schedule_due_at(self) -> float | None:
        async with self._gate():
            first = await self._redis.zrange(self._keys.schedules.due, 0, 0, withscores=True)
        return float(first[0][1]) if first else None
