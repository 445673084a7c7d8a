"""Cron schedules: one row each in ``schedules``, their recent runs in ``schedule_runs``.

A schedule's row holds its settings (the destination as JSON text), its ``revision``, whether it
is paused, its next tick (``next_run_at``, NULL while paused) and, while a scheduler holds a tick
of it, that claim's ``lease_id`` and ``lease_until``. A claim and a completion are each one
``BEGIN IMMEDIATE`` transaction, so two processes sharing the file never claim one tick twice.
Completing a tick inserts its run and deletes the schedule's runs beyond the newest
``RECENT_RUNS``, so the table holds at most that many rows per schedule.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from typing import cast

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
from ._core import SQLiteCore

__all__ = ["SchedulesMixin"]


def _not_found(name: str) -> NotFoundError:
    return NotFoundError("schedule_not_found", f"schedule {name!r} does not exist")


class SchedulesMixin(SQLiteCore):
    """The SQLite store's schedules: put, get, list, delete, pause, resume, and the ticks."""

    async def _put_schedule(
        self,
        name: str,
        settings: ScheduleSettings,
        *,
        destination: str,
        revision: str,
        next_run_at: float,
    ) -> tuple[ScheduleRecord, bool]:
        def work(connection: sqlite3.Connection, now: float) -> tuple[ScheduleRecord, bool]:
            existing = connection.execute(
                "SELECT paused FROM schedules WHERE name = ?", (name,)
            ).fetchone()
            next_run = None if existing is not None and existing["paused"] else next_run_at
            connection.execute(
                """INSERT INTO schedules (name, cron, timezone, catch_up, destination, revision,
                       paused, created_at, updated_at, next_run_at)
                   VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)
                   ON CONFLICT (name) DO UPDATE SET
                       cron = excluded.cron, timezone = excluded.timezone,
                       catch_up = excluded.catch_up, destination = excluded.destination,
                       revision = excluded.revision, updated_at = excluded.updated_at,
                       next_run_at = ?, lease_id = NULL, lease_until = NULL""",
                (
                    name,
                    settings.cron,
                    settings.timezone,
                    settings.catch_up,
                    destination,
                    revision,
                    now,
                    now,
                    next_run_at,
                    next_run,
                ),
            )
            return _schedule(connection, _require(connection, name)), existing is None

        return await self.run_transaction(work)

    async def _get_schedule(self, name: str) -> ScheduleRecord:
        def work(connection: sqlite3.Connection, _now: float) -> ScheduleRecord:
            return _schedule(connection, _require(connection, name))

        return await self.run_transaction(work, write=False)

    async def _list_schedules(self, *, limit: int, cursor: str | None) -> list[ScheduleRecord]:
        def work(connection: sqlite3.Connection, _now: float) -> list[ScheduleRecord]:
            rows = connection.execute(
                "SELECT * FROM schedules WHERE name > ? ORDER BY name LIMIT ?",
                ("" if cursor is None else cursor, limit),
            ).fetchall()
            return [_schedule(connection, row) for row in rows]

        return await self.run_transaction(work, write=False)

    async def _delete_schedule(self, name: str) -> None:
        def work(connection: sqlite3.Connection, _now: float) -> None:
            if connection.execute("DELETE FROM schedules WHERE name = ?", (name,)).rowcount == 0:
                raise _not_found(name)
            connection.execute("DELETE FROM schedule_runs WHERE schedule = ?", (name,))

        await self.run_transaction(work)

    async def _pause_schedule(self, name: str) -> ScheduleRecord:
        def work(connection: sqlite3.Connection, _now: float) -> ScheduleRecord:
            connection.execute(
                "UPDATE schedules SET paused = 1, next_run_at = NULL WHERE name = ?", (name,)
            )
            return _schedule(connection, _require(connection, name))

        return await self.run_transaction(work)

    async def _resume_schedule(
        self, name: str, *, revision: str, next_run_at: float
    ) -> ScheduleRecord:
        def work(connection: sqlite3.Connection, _now: float) -> ScheduleRecord:
            row = _require(connection, name)
            if row["revision"] != revision:
                raise _replaced(name)
            if row["paused"]:
                connection.execute(
                    """UPDATE schedules SET paused = 0, next_run_at = ?, lease_id = NULL,
                           lease_until = NULL
                       WHERE name = ?""",
                    (next_run_at, name),
                )
                row = _require(connection, name)
            return _schedule(connection, row)

        return await self.run_transaction(work)

    async def _claim_due_schedules(
        self, *, now: float, limit: int, lease_seconds: float
    ) -> list[ScheduleTick]:
        def work(connection: sqlite3.Connection, _now: float) -> list[ScheduleTick]:
            rows = connection.execute(
                """SELECT * FROM schedules
                   WHERE next_run_at <= ? AND paused = 0
                       AND (lease_until IS NULL OR lease_until <= ?)
                   ORDER BY next_run_at LIMIT ?""",
                (now, now, limit),
            ).fetchall()
            ticks = []
            for row in rows:
                lease_id = uuid.uuid4().hex
                connection.execute(
                    "UPDATE schedules SET lease_id = ?, lease_until = ? WHERE name = ?",
                    (lease_id, now + lease_seconds, row["name"]),
                )
                ticks.append(
                    ScheduleTick(
                        schedule=_schedule(connection, row),
                        tick_at=row["next_run_at"],
                        lease_id=lease_id,
                    )
                )
            return ticks

        return await self.run_transaction(work)

    async def _complete_schedule_tick(
        self, name: str, *, lease_id: str, run: ScheduleRun, next_run_at: float
    ) -> ScheduleRecord:
        def work(connection: sqlite3.Connection, _now: float) -> ScheduleRecord:
            row = _require(connection, name)
            if row["lease_id"] != lease_id:
                raise ConflictError(
                    "lease_expired",
                    f"lease {lease_id!r} is not the current claim of a tick of schedule {name!r}",
                )
            connection.execute(
                """UPDATE schedules SET lease_id = NULL, lease_until = NULL, last_run_at = ?,
                       next_run_at = CASE WHEN paused THEN NULL ELSE ? END
                   WHERE name = ?""",
                (run.fired_at, next_run_at, name),
            )
            connection.execute(
                """INSERT INTO schedule_runs
                       (schedule, tick_at, fired_at, outcome, ids, error_code, error_detail)
                   VALUES (?, ?, ?, ?, ?, ?, ?)""",
                (
                    name,
                    run.tick_at,
                    run.fired_at,
                    run.outcome,
                    json.dumps(list(run.ids)),
                    run.error_code,
                    run.error_detail,
                ),
            )
            connection.execute(
                """DELETE FROM schedule_runs WHERE schedule = ? AND id <= (
                       SELECT id FROM schedule_runs WHERE schedule = ?
                       ORDER BY id DESC LIMIT 1 OFFSET ?)""",
                (name, name, RECENT_RUNS),
            )
            return _schedule(connection, _require(connection, name))

        return await self.run_transaction(work)

    async def _next_schedule_due_at(self) -> float | None:
        def work(connection: sqlite3.Connection, _now: float) -> float | None:
            row = connection.execute(
                """SELECT MIN(CASE WHEN lease_until > next_run_at THEN lease_until
                                   ELSE next_run_at END) AS due
                   FROM schedules WHERE next_run_at IS NOT NULL"""
            ).fetchone()
            due: float | None = row["due"]
            return due

        return await self.run_transaction(work, write=False)


def _replaced(name: str) -> ConflictError:
    return ConflictError("conflict", f"schedule {name!r} was replaced meanwhile")


def _require(connection: sqlite3.Connection, name: str) -> sqlite3.Row:
    row: sqlite3.Row | None = connection.execute(
        "SELECT * FROM schedules WHERE name = ?", (name,)
    ).fetchone()
    if row is None:
        raise _not_found(name)
    return row


def _schedule(connection: sqlite3.Connection, row: sqlite3.Row) -> ScheduleRecord:
    runs = connection.execute(
        "SELECT * FROM schedule_runs WHERE schedule = ? ORDER BY id DESC LIMIT ?",
        (row["name"], RECENT_RUNS),
    ).fetchall()
    return ScheduleRecord(
        name=row["name"],
        settings=ScheduleSettings(
            cron=row["cron"],
            timezone=row["timezone"],
            catch_up=cast(ScheduleCatchUp, row["catch_up"]),
            destination=json.loads(row["destination"]),
        ),
        revision=row["revision"],
        paused=bool(row["paused"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        next_run_at=row["next_run_at"],
        last_run_at=row["last_run_at"],
        recent_runs=[
            ScheduleRun(
                tick_at=run["tick_at"],
                fired_at=run["fired_at"],
                outcome=cast(ScheduleOutcome, run["outcome"]),
                ids=tuple(json.loads(run["ids"])),
                error_code=run["error_code"],
                error_detail=run["error_detail"],
            )
            for run in runs
        ],
    )
