"""Queues and their jobs: settings, publish with deduplication, leases, acks, nacks and retries.

Queues: a job's ``max_attempts`` is its queue's current setting. Succeeded and dead jobs whose
``retention_seconds`` have passed, deduplication ids older than the window, and expired idempotency
records are deleted lazily by later writes to the same queue or table.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from ...ids import new_id
from ..base import (
    ConflictError,
    IdempotencyClaim,
    JobAckOutcome,
    JobReceipt,
    JobRecord,
    JobReleaseOutcome,
    JobState,
    LeasedJob,
    NewJob,
    NotFoundError,
    QueueRecord,
    QueueSettings,
    QueueStats,
)
from ..job_history import JOB_HISTORY_LIMIT, as_read, leased_at
from ..lease_expiry import lease_expired_error
from ..records import JobAttemptOutcome, JobAttemptRecord
from ._common import PURGE_BATCH
from ._core import SQLiteCore
from ._idempotency import write_once

__all__ = ["QueuesMixin"]

# A job's state as readers see it: stored states plus the two that only time changes.
_EFFECTIVE_JOB_STATE = """
    CASE
        WHEN jobs.state = 'ready' AND jobs.available_at > :now THEN 'delayed'
        WHEN jobs.state = 'leased' AND jobs.lease_expires_at <= :now THEN
            CASE WHEN jobs.attempts >= queues.max_attempts THEN 'dead' ELSE 'ready' END
        ELSE jobs.state
    END
"""

_JOB_COLUMNS = f"""
    jobs.job_id, jobs.queue, jobs.topic, jobs.payload, jobs.attempts, jobs.published_at,
    jobs.available_at, jobs.lease_expires_at, jobs.lease_consumer, jobs.last_error,
    jobs.deduplication_id, jobs.traceparent, jobs.state AS stored_state, jobs.lease_id,
    jobs.finished_at, queues.max_attempts, {_EFFECTIVE_JOB_STATE} AS effective_state
"""


class QueuesMixin(SQLiteCore):
    """The SQLite store's queues and jobs."""

    async def _put_queue(self, name: str, settings: QueueSettings) -> tuple[QueueRecord, bool]:
        """Create the queue or replace its settings, keeping its jobs and creation time."""

        def work(connection: sqlite3.Connection, now: float) -> tuple[QueueRecord, bool]:
            created = (
                connection.execute(
                    """INSERT OR IGNORE INTO queues (name, max_attempts, lease_seconds,
                           retention_seconds, deduplication_window_seconds, created_at)
                       VALUES (?, ?, ?, ?, ?, ?)""",
                    (
                        name,
                        settings.max_attempts,
                        settings.lease_seconds,
                        settings.retention_seconds,
                        settings.deduplication_window_seconds,
                        now,
                    ),
                ).rowcount
                == 1
            )
            if not created:
                connection.execute(
                    """UPDATE queues SET max_attempts = ?, lease_seconds = ?,
                           retention_seconds = ?, deduplication_window_seconds = ?
                       WHERE name = ?""",
                    (
                        settings.max_attempts,
                        settings.lease_seconds,
                        settings.retention_seconds,
                        settings.deduplication_window_seconds,
                        name,
                    ),
                )
            return _queue_record(connection, _require_queue(connection, name), now), created

        return await self.run_transaction(work)

    async def _get_queue(self, name: str) -> QueueRecord:
        """The queue with its settings and job counts."""

        def work(connection: sqlite3.Connection, now: float) -> QueueRecord:
            return _queue_record(connection, _require_queue(connection, name), now)

        return await self.run_transaction(work, write=False)

    async def _list_queues(self) -> list[QueueRecord]:
        """Every queue, by name."""

        def work(connection: sqlite3.Connection, now: float) -> list[QueueRecord]:
            rows = connection.execute("SELECT * FROM queues ORDER BY name").fetchall()
            return [_queue_record(connection, row, now) for row in rows]

        return await self.run_transaction(work, write=False)

    async def _delete_queue(self, name: str) -> None:
        """Delete the queue with every job and deduplication id."""

        def work(connection: sqlite3.Connection, _now: float) -> None:
            if connection.execute("DELETE FROM queues WHERE name = ?", (name,)).rowcount == 0:
                raise _queue_not_found(name)

        await self.run_transaction(work)

    async def _publish_jobs(
        self,
        queue: str,
        jobs: Sequence[NewJob],
        *,
        payloads: Sequence[str],
        idempotency: IdempotencyClaim | None,
        traceparent: str | None,
    ) -> list[JobReceipt]:
        """Accept every job (or none), answering earlier ids for deduplicated ones."""

        def work(connection: sqlite3.Connection, now: float) -> list[JobReceipt]:
            settings = _require_queue(connection, queue)
            window = settings["deduplication_window_seconds"]
            _purge_finished_jobs(connection, queue, now - settings["retention_seconds"])
            connection.execute(
                """DELETE FROM job_deduplication WHERE queue = ? AND deduplication_id IN (
                       SELECT deduplication_id FROM job_deduplication
                       WHERE queue = ? AND seen_at <= ? LIMIT ?)""",
                (queue, queue, now - window, PURGE_BATCH),
            )
            receipts = []
            for job, payload in zip(jobs, payloads, strict=True):
                if job.deduplication_id is not None:
                    seen = connection.execute(
                        """SELECT job_id, seen_at FROM job_deduplication
                           WHERE queue = ? AND deduplication_id = ?""",
                        (queue, job.deduplication_id),
                    ).fetchone()
                    if seen is not None and now - seen["seen_at"] < window:
                        receipts.append(
                            JobReceipt(
                                job_id=seen["job_id"],
                                queue=queue,
                                topic=job.topic,
                                deduplicated=True,
                            )
                        )
                        continue
                job_id = new_id("job", now=now)
                connection.execute(
                    """INSERT INTO jobs (job_id, queue, topic, payload, state, attempts,
                           published_at, available_at, deduplication_id, traceparent)
                       VALUES (?, ?, ?, ?, 'ready', 0, ?, ?, ?, ?)""",
                    (
                        job_id,
                        queue,
                        job.topic,
                        payload,
                        now,
                        now + job.delay,
                        job.deduplication_id,
                        traceparent,
                    ),
                )
                if job.deduplication_id is not None:
                    connection.execute(
                        """INSERT OR REPLACE INTO job_deduplication
                           (queue, deduplication_id, job_id, seen_at) VALUES (?, ?, ?, ?)""",
                        (queue, job.deduplication_id, job_id, now),
                    )
                receipts.append(
                    JobReceipt(job_id=job_id, queue=queue, topic=job.topic, deduplicated=False)
                )
            return receipts

        receipts = await self.run_transaction(
            write_once(
                idempotency,
                f"queue:{queue}",
                work,
                remember=lambda receipts: [
                    [receipt.job_id, receipt.topic, receipt.deduplicated] for receipt in receipts
                ],
                replay=lambda kept: [
                    JobReceipt(
                        job_id=job_id, queue=queue, topic=topic, deduplicated=dup, replayed=True
                    )
                    for job_id, topic, dup in kept
                ],
            )
        )
        self._notify()
        return receipts

    async def _lease_jobs(
        self,
        queue: str,
        *,
        consumer: str | None,
        topics: Sequence[str] | None,
        max_jobs: int,
        lease_seconds: int | None,
        wait_ms: int,
    ) -> list[LeasedJob]:
        """Lease up to ``max_jobs`` available jobs, oldest first, waiting up to ``wait_ms``."""
        wanted_topics = None if topics is None else list(topics)

        def work(connection: sqlite3.Connection, now: float) -> tuple[list[LeasedJob], list[str]]:
            settings = _require_queue(connection, queue)
            seconds = settings["lease_seconds"] if lease_seconds is None else lease_seconds
            buried = _bury_ended_leases(connection, queue, now, settings["max_attempts"])
            _purge_finished_jobs(connection, queue, now - settings["retention_seconds"])
            topic_filter = ""
            parameters: list[Any] = [queue, now, now]
            if wanted_topics is not None:
                topic_filter = f"AND topic IN ({', '.join('?' * len(wanted_topics))})"
                parameters.extend(wanted_topics)
            rows = connection.execute(
                f"""SELECT seq, job_id, topic, payload, attempts, published_at, traceparent,
                        state, lease_id, lease_expires_at
                    FROM jobs
                    WHERE queue = ?
                      AND ((state = 'ready' AND available_at <= ?)
                           OR (state = 'leased' AND lease_expires_at <= ?))
                      {topic_filter}
                    ORDER BY seq LIMIT ?""",
                (*parameters, max_jobs),
            ).fetchall()
            leased = []
            for row in rows:
                if row["state"] == "leased":
                    _end_attempt(
                        connection,
                        row["job_id"],
                        row["lease_id"],
                        row["lease_expires_at"],
                        "lease_expired",
                        lease_expired_error(
                            row["lease_id"],
                            row["lease_expires_at"],
                            row["attempts"],
                            settings["max_attempts"],
                        ),
                    )
                lease_id = new_id("lease", now=now)
                expires_at = now + seconds
                connection.execute(
                    """UPDATE jobs SET state = 'leased', attempts = attempts + 1, lease_id = ?,
                           lease_expires_at = ?, lease_consumer = ?
                       WHERE seq = ?""",
                    (lease_id, expires_at, consumer, row["seq"]),
                )
                _begin_attempt(
                    connection, row["job_id"], lease_id, row["attempts"] + 1, now, consumer
                )
                leased.append(
                    LeasedJob(
                        job_id=row["job_id"],
                        queue=queue,
                        topic=row["topic"],
                        payload=json.loads(row["payload"]),
                        attempt=row["attempts"] + 1,
                        lease_id=lease_id,
                        lease_expires_at=expires_at,
                        published_at=row["published_at"],
                        traceparent=row["traceparent"],
                    )
                )
            return leased, buried

        async def attempt() -> list[LeasedJob]:
            leased, buried = await self.run_transaction(work)
            self._lease_deaths(queue, buried)
            return leased

        return await self._poll(attempt, wait_ms)

    async def _ack_job(self, queue: str, job_id: str, lease_id: str) -> JobRecord:
        """Mark the job succeeded, if ``lease_id`` is its current unexpired lease."""

        def work(connection: sqlite3.Connection, now: float) -> JobRecord:
            _require_lease(connection, queue, job_id, lease_id, now)
            connection.execute(
                """UPDATE jobs SET state = 'succeeded', finished_at = ?, lease_id = NULL,
                       lease_expires_at = NULL, lease_consumer = NULL
                   WHERE job_id = ?""",
                (now, job_id),
            )
            _end_attempt(connection, job_id, lease_id, now, "succeeded", None)
            return _job_record(connection, queue, job_id, now)

        return await self.run_transaction(work)

    async def _ack_jobs(self, queue: str, leases: Sequence[tuple[str, str]]) -> list[JobAckOutcome]:
        """Succeed each job whose lease is current, in one transaction."""

        def work(connection: sqlite3.Connection, now: float) -> list[JobAckOutcome]:
            _require_queue(connection, queue)
            outcomes: list[JobAckOutcome] = []
            for job_id, lease_id in leases:
                acked = connection.execute(
                    """UPDATE jobs SET state = 'succeeded', finished_at = :now, lease_id = NULL,
                           lease_expires_at = NULL, lease_consumer = NULL
                       WHERE job_id = :job_id AND queue = :queue AND state = 'leased'
                           AND lease_id = :lease_id AND lease_expires_at > :now""",
                    {"now": now, "job_id": job_id, "queue": queue, "lease_id": lease_id},
                ).rowcount
                if acked:
                    _end_attempt(connection, job_id, lease_id, now, "succeeded", None)
                    outcomes.append("acked")
                    continue
                exists = connection.execute(
                    "SELECT 1 FROM jobs WHERE job_id = ? AND queue = ?", (job_id, queue)
                ).fetchone()
                outcomes.append("lease_expired" if exists else "job_not_found")
            return outcomes

        return await self.run_transaction(work)

    async def _nack_job(
        self, queue: str, job_id: str, lease_id: str, *, retry_delay: int, error: str | None
    ) -> JobRecord:
        """End the lease: ready after ``retry_delay`` seconds, or dead without attempts left."""

        def work(connection: sqlite3.Connection, now: float) -> JobRecord:
            job = _require_lease(connection, queue, job_id, lease_id, now)
            if job["attempts"] >= job["max_attempts"]:
                connection.execute(
                    """UPDATE jobs SET state = 'dead', finished_at = ?, lease_id = NULL,
                           lease_expires_at = NULL, lease_consumer = NULL,
                           last_error = COALESCE(?, last_error)
                       WHERE job_id = ?""",
                    (now, error, job_id),
                )
            else:
                connection.execute(
                    """UPDATE jobs SET state = 'ready', available_at = ?, lease_id = NULL,
                           lease_expires_at = NULL, lease_consumer = NULL,
                           last_error = COALESCE(?, last_error)
                       WHERE job_id = ?""",
                    (now + retry_delay, error, job_id),
                )
            _end_attempt(connection, job_id, lease_id, now, "failed", error)
            return _job_record(connection, queue, job_id, now)

        record = await self.run_transaction(work)
        self._notify()
        return record

    async def _release_job(self, queue: str, job_id: str, lease_id: str) -> JobRecord:
        """End the lease untried: ready now, with the attempt given back."""

        def work(connection: sqlite3.Connection, now: float) -> JobRecord:
            _require_lease(connection, queue, job_id, lease_id, now)
            _release(connection, queue, job_id, lease_id, now)
            return _job_record(connection, queue, job_id, now)

        record = await self.run_transaction(work)
        self._notify()
        return record

    async def _release_jobs(
        self, queue: str, leases: Sequence[tuple[str, str]]
    ) -> list[JobReleaseOutcome]:
        """Release each job whose lease is current, in one transaction."""

        def work(connection: sqlite3.Connection, now: float) -> list[JobReleaseOutcome]:
            _require_queue(connection, queue)
            outcomes: list[JobReleaseOutcome] = []
            for job_id, lease_id in leases:
                if _release(connection, queue, job_id, lease_id, now):
                    outcomes.append("released")
                    continue
                exists = connection.execute(
                    "SELECT 1 FROM jobs WHERE job_id = ? AND queue = ?", (job_id, queue)
                ).fetchone()
                outcomes.append("lease_expired" if exists else "job_not_found")
            return outcomes

        outcomes = await self.run_transaction(work)
        self._notify()
        return outcomes

    async def _extend_lease(
        self, queue: str, job_id: str, lease_id: str, *, lease_seconds: int
    ) -> JobRecord:
        """Make the current lease end ``lease_seconds`` from now."""

        def work(connection: sqlite3.Connection, now: float) -> JobRecord:
            _require_lease(connection, queue, job_id, lease_id, now)
            connection.execute(
                "UPDATE jobs SET lease_expires_at = ? WHERE job_id = ?",
                (now + lease_seconds, job_id),
            )
            return _job_record(connection, queue, job_id, now)

        return await self.run_transaction(work)

    async def _get_job(self, queue: str, job_id: str) -> JobRecord:
        """The job with its state as of now."""

        def work(connection: sqlite3.Connection, now: float) -> JobRecord:
            _require_queue(connection, queue)
            return _job_record(connection, queue, job_id, now)

        return await self.run_transaction(work, write=False)

    async def _list_jobs(
        self, queue: str, *, state: JobState | None, limit: int
    ) -> list[JobRecord]:
        """Up to ``limit`` jobs in ``state`` (as of now), oldest first."""

        def work(connection: sqlite3.Connection, now: float) -> list[JobRecord]:
            _require_queue(connection, queue)
            state_filter = "" if state is None else f"AND {_EFFECTIVE_JOB_STATE} = :state"
            rows = connection.execute(
                f"""SELECT {_JOB_COLUMNS} FROM jobs JOIN queues ON queues.name = jobs.queue
                    WHERE jobs.queue = :queue {state_filter}
                    ORDER BY jobs.seq LIMIT :limit""",
                {"queue": queue, "now": now, "state": state, "limit": limit},
            ).fetchall()
            histories = _attempt_histories(connection, [row["job_id"] for row in rows])
            return [_job_from_row(row, histories.get(row["job_id"], [])) for row in rows]

        return await self.run_transaction(work, write=False)

    async def _retry_job(self, queue: str, job_id: str) -> JobRecord:
        """Make a dead job ready now with no attempts used."""

        def work(connection: sqlite3.Connection, now: float) -> tuple[JobRecord, list[str]]:
            buried = _require_dead_job(connection, queue, job_id, now, "retried")
            connection.execute(
                """UPDATE jobs SET state = 'ready', attempts = 0, available_at = ?,
                       finished_at = NULL, lease_id = NULL, lease_expires_at = NULL,
                       lease_consumer = NULL
                   WHERE job_id = ?""",
                (now, job_id),
            )
            return _job_record(connection, queue, job_id, now), buried

        record, buried = await self.run_transaction(work)
        self._lease_deaths(queue, buried)
        self._notify()
        return record

    async def _delete_job(self, queue: str, job_id: str) -> None:
        """Delete a dead job's row."""

        def work(connection: sqlite3.Connection, now: float) -> list[str]:
            buried = _require_dead_job(connection, queue, job_id, now, "deleted")
            connection.execute("DELETE FROM jobs WHERE job_id = ?", (job_id,))
            return buried

        self._lease_deaths(queue, await self.run_transaction(work))


def _queue_not_found(queue: str) -> NotFoundError:
    return NotFoundError("queue_not_found", f"queue {queue!r} does not exist")


def _require_queue(connection: sqlite3.Connection, queue: str) -> sqlite3.Row:
    row: sqlite3.Row | None = connection.execute(
        "SELECT * FROM queues WHERE name = ?", (queue,)
    ).fetchone()
    if row is None:
        raise _queue_not_found(queue)
    return row


def _queue_record(connection: sqlite3.Connection, queue: sqlite3.Row, now: float) -> QueueRecord:
    rows = connection.execute(
        f"""SELECT {_EFFECTIVE_JOB_STATE} AS effective_state, COUNT(*) AS jobs
            FROM jobs JOIN queues ON queues.name = jobs.queue
            WHERE jobs.queue = :queue GROUP BY effective_state""",
        {"queue": queue["name"], "now": now},
    ).fetchall()
    counts: dict[str, int] = {row["effective_state"]: row["jobs"] for row in rows}
    return QueueRecord(
        name=queue["name"],
        settings=QueueSettings(
            max_attempts=queue["max_attempts"],
            lease_seconds=queue["lease_seconds"],
            retention_seconds=queue["retention_seconds"],
            deduplication_window_seconds=queue["deduplication_window_seconds"],
        ),
        created_at=queue["created_at"],
        stats=QueueStats(
            ready=counts.get("ready", 0),
            delayed=counts.get("delayed", 0),
            leased=counts.get("leased", 0),
            dead=counts.get("dead", 0),
        ),
    )


def _purge_finished_jobs(
    connection: sqlite3.Connection, queue: str, finished_before: float
) -> None:
    connection.execute(
        """DELETE FROM jobs WHERE seq IN (
               SELECT seq FROM jobs
               WHERE queue = ? AND finished_at IS NOT NULL AND finished_at <= ? LIMIT ?)""",
        (queue, finished_before, PURGE_BATCH),
    )


def _job_row(connection: sqlite3.Connection, queue: str, job_id: str, now: float) -> sqlite3.Row:
    row: sqlite3.Row | None = connection.execute(
        f"""SELECT {_JOB_COLUMNS}
            FROM jobs JOIN queues ON queues.name = jobs.queue
            WHERE jobs.job_id = :job_id AND jobs.queue = :queue""",
        {"job_id": job_id, "queue": queue, "now": now},
    ).fetchone()
    if row is None:
        raise NotFoundError("job_not_found", f"queue {queue!r} has no job {job_id!r}")
    return row


def _job_record(connection: sqlite3.Connection, queue: str, job_id: str, now: float) -> JobRecord:
    row = _job_row(connection, queue, job_id, now)
    return _job_from_row(row, _attempt_histories(connection, [job_id]).get(job_id, []))


def _begin_attempt(
    connection: sqlite3.Connection,
    job_id: str,
    lease_id: str,
    number: int,
    now: float,
    consumer: str | None,
) -> None:
    """Record the lease's start and drop what falls out of the job's last attempts."""
    connection.execute(
        """INSERT INTO job_attempts (job_id, lease_id, number, leased_at, consumer)
           VALUES (?, ?, ?, ?, ?)""",
        (job_id, lease_id, number, now, consumer),
    )
    connection.execute(
        """DELETE FROM job_attempts WHERE job_id = :job_id AND id <= (
               SELECT id FROM job_attempts WHERE job_id = :job_id
               ORDER BY id DESC LIMIT 1 OFFSET :keep)""",
        {"job_id": job_id, "keep": JOB_HISTORY_LIMIT},
    )


def _release(
    connection: sqlite3.Connection, queue: str, job_id: str, lease_id: str, now: float
) -> bool:
    """End the lease ``lease_id`` untried if it is the job's current one: ready now, the attempt
    given back. Whether it was.
    """
    released = connection.execute(
        """UPDATE jobs SET state = 'ready', available_at = :now, attempts = attempts - 1,
               lease_id = NULL, lease_expires_at = NULL, lease_consumer = NULL
           WHERE job_id = :job_id AND queue = :queue AND state = 'leased'
               AND lease_id = :lease_id AND lease_expires_at > :now""",
        {"now": now, "job_id": job_id, "queue": queue, "lease_id": lease_id},
    ).rowcount
    if released:
        _end_attempt(connection, job_id, lease_id, now, "released", None)
    return bool(released)


def _end_attempt(
    connection: sqlite3.Connection,
    job_id: str,
    lease_id: str | None,
    ended_at: float,
    outcome: JobAttemptOutcome,
    error: str | None,
) -> None:
    connection.execute(
        """UPDATE job_attempts SET ended_at = ?, outcome = ?, error = ?
           WHERE job_id = ? AND lease_id = ? AND ended_at IS NULL""",
        (ended_at, outcome, error, job_id, lease_id),
    )


def _attempt_histories(
    connection: sqlite3.Connection, job_ids: Sequence[str]
) -> dict[str, list[JobAttemptRecord]]:
    """The stored attempts of each of ``job_ids`` that has any, oldest first."""
    histories: dict[str, list[JobAttemptRecord]] = {}
    if not job_ids:
        return histories
    rows = connection.execute(
        """SELECT job_id, number, leased_at, consumer, ended_at, outcome, error
           FROM job_attempts WHERE job_id IN (SELECT value FROM json_each(?))
           ORDER BY job_id, id""",
        (json.dumps(list(job_ids)),),
    ).fetchall()
    for row in rows:
        histories.setdefault(row["job_id"], []).append(
            JobAttemptRecord(
                number=row["number"],
                leased_at=row["leased_at"],
                consumer=row["consumer"],
                ended_at=row["ended_at"],
                outcome=row["outcome"],
                error=row["error"],
            )
        )
    return histories


def _require_dead_job(
    connection: sqlite3.Connection, queue: str, job_id: str, now: float, action: str
) -> list[str]:
    """Settle the queue's ended leases, then refuse unless the job is dead; the ids of the jobs
    the settling made dead.
    """
    settings = _require_queue(connection, queue)
    buried = _bury_ended_leases(connection, queue, now, settings["max_attempts"])
    job = _job_row(connection, queue, job_id, now)
    state = job["effective_state"]
    if state != "dead":
        raise ConflictError(
            "invalid_state", f"job {job_id!r} is {state}; only dead jobs can be {action}"
        )
    return buried


def _bury_ended_leases(
    connection: sqlite3.Connection, queue: str, now: float, max_attempts: int
) -> list[str]:
    """Make dead the jobs whose last allowed lease has ended, saying so as their last error; their
    ids.
    """
    ended = connection.execute(
        """SELECT seq, job_id, lease_id, lease_expires_at, attempts FROM jobs
           WHERE queue = ? AND state = 'leased' AND lease_expires_at <= ? AND attempts >= ?""",
        (queue, now, max_attempts),
    ).fetchall()
    errors = [
        lease_expired_error(row["lease_id"], row["lease_expires_at"], row["attempts"], max_attempts)
        for row in ended
    ]
    connection.executemany(
        """UPDATE jobs SET state = 'dead', finished_at = lease_expires_at, last_error = ?,
               lease_id = NULL, lease_expires_at = NULL, lease_consumer = NULL
           WHERE seq = ?""",
        [(error, row["seq"]) for error, row in zip(errors, ended, strict=True)],
    )
    for error, row in zip(errors, ended, strict=True):
        _end_attempt(
            connection,
            row["job_id"],
            row["lease_id"],
            row["lease_expires_at"],
            "lease_expired",
            error,
        )
    return [row["job_id"] for row in ended]


def _job_from_row(row: sqlite3.Row, stored_history: Sequence[JobAttemptRecord]) -> JobRecord:
    state: JobState = row["effective_state"]
    last_error = row["last_error"]
    finished_at = row["finished_at"]
    if state == "dead" and row["stored_state"] == "leased":
        # Dead by the clock alone: the error and end the next write to the queue will record.
        finished_at = row["lease_expires_at"]
        last_error = lease_expired_error(
            row["lease_id"], row["lease_expires_at"], row["attempts"], row["max_attempts"]
        )
    history = as_read(
        stored_history,
        state=state,
        stored_state=row["stored_state"],
        lease_id=row["lease_id"],
        lease_expires_at=row["lease_expires_at"],
        attempts=row["attempts"],
        max_attempts=row["max_attempts"],
    )
    return JobRecord(
        job_id=row["job_id"],
        queue=row["queue"],
        topic=row["topic"],
        payload=json.loads(row["payload"]),
        state=state,
        attempts=row["attempts"],
        max_attempts=row["max_attempts"],
        published_at=row["published_at"],
        available_at=row["available_at"],
        lease_expires_at=row["lease_expires_at"] if state == "leased" else None,
        leased_by=row["lease_consumer"] if state == "leased" else None,
        last_error=last_error,
        deduplication_id=row["deduplication_id"],
        traceparent=row["traceparent"],
        leased_at=leased_at(history, state=state, lease_id=row["lease_id"]),
        finished_at=finished_at,
        attempt_history=history,
    )


def _require_lease(
    connection: sqlite3.Connection, queue: str, job_id: str, lease_id: str, now: float
) -> sqlite3.Row:
    """The job row, if ``lease_id`` is its current unexpired lease; ``lease_expired`` otherwise."""
    _require_queue(connection, queue)
    row = _job_row(connection, queue, job_id, now)
    if row["effective_state"] != "leased" or row["lease_id"] != lease_id:
        raise ConflictError(
            "lease_expired",
            f"lease {lease_id!r} of job {job_id!r} has ended or belongs to another worker",
        )
    return row
