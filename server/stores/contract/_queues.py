"""The contract of queues and their jobs: what each public method promises and checks.

Every public method checks its arguments (``..checks``) and then calls its hook, the method of the
same name with a leading underscore, which a backend implements. A hook is only ever called with
arguments that passed: settings within their least values, delays and counts in range, and each
job's payload already written as JSON text by ``dump_json``.
"""

from __future__ import annotations

import abc
import asyncio
import logging
from collections.abc import Callable, Sequence

from ..checks import (
    check_at_least_one,
    check_not_negative,
    check_queue_settings,
    check_traceparent,
    dump_json,
)
from ..records import (
    IdempotencyClaim,
    JobAckOutcome,
    JobReceipt,
    JobRecord,
    JobReleaseOutcome,
    JobState,
    LeasedJob,
    NewJob,
    QueueRecord,
    QueueSettings,
)

__all__ = ["LeaseDeathListener", "QueuesContract"]

# Told of the jobs of a queue that a write moved to ``dead`` because their last allowed lease ran
# out: the queue's name and the jobs' ids.
LeaseDeathListener = Callable[[str, Sequence[str]], None]

logger = logging.getLogger("spool.server")


class QueuesContract(abc.ABC):
    """Queues and jobs: the public methods with their checks, and their hooks."""

    def __init__(self) -> None:
        self._lease_death_listeners: list[LeaseDeathListener] = []

    def on_lease_deaths(self, listener: LeaseDeathListener) -> None:
        """Have ``listener(queue, job_ids)`` told of every job whose last allowed lease runs out.

        Such a job dies by the clock, in no request: readers see it ``dead`` at once, but the
        store moves it there lazily, in the next write that settles its queue
        (``lease_expiry.py``). Once that write is durable, the store calls each listener in the
        process that made it, with the jobs it moved; across every process sharing a backend, a
        job is told once. A listener that raises is logged and does not fail the write.
        """
        self._lease_death_listeners.append(listener)

    def _lease_deaths(self, queue: str, job_ids: Sequence[str]) -> None:
        """Tell the listeners of ``job_ids`` of ``queue``, moved to ``dead`` by a write that is now
        durable because their last lease ran out; a backend calls this, with none as well.
        """
        if not job_ids:
            return
        for listener in self._lease_death_listeners:
            try:
                listener(queue, job_ids)
            except Exception:
                logger.exception("a listener of jobs dead by lease expiry failed")

    async def put_queue(self, name: str, settings: QueueSettings) -> tuple[QueueRecord, bool]:
        """Create the queue or change its settings; the bool says whether it was created."""
        check_queue_settings(settings)
        return await self._put_queue(name, settings)

    async def get_queue(self, name: str) -> QueueRecord:
        """The queue; ``NotFoundError("queue_not_found")`` if it was never created."""
        return await self._get_queue(name)

    async def list_queues(self) -> list[QueueRecord]:
        """Every queue, by name."""
        return await self._list_queues()

    async def delete_queue(self, name: str) -> None:
        """Delete the queue and all its jobs (``queue_not_found``)."""
        await self._delete_queue(name)

    async def publish_jobs(
        self,
        queue: str,
        jobs: Sequence[NewJob],
        *,
        idempotency: IdempotencyClaim | None = None,
        traceparent: str | None = None,
    ) -> list[JobReceipt]:
        """Accept all ``jobs`` in order, or none. The queue must exist (``queue_not_found``; never
        created here). A ``deduplication_id`` seen in this queue within its deduplication window
        (also earlier in the same batch) yields the first job's id with ``deduplicated=True``.
        At most once per ``idempotency`` key; every receipt of a replay is marked ``replayed``.
        Each job keeps ``traceparent`` (the publisher's W3C trace context), which ``get_job``,
        ``list_jobs`` and ``lease_jobs`` answer.
        """
        check_traceparent(traceparent)
        payloads = []
        for job in jobs:
            check_not_negative(job.delay, name="delay")
            payloads.append(dump_json(job.payload, what="a job payload"))
        receipts = await self._publish_jobs(
            queue, jobs, payloads=payloads, idempotency=idempotency, traceparent=traceparent
        )
        # One turn of the event loop before the publisher is answered: a lease long poll of this
        # process that the new jobs woke sends its lease first, rather than after the answer.
        await asyncio.sleep(0)
        return receipts

    async def lease_jobs(
        self,
        queue: str,
        *,
        consumer: str | None,
        topics: Sequence[str] | None,
        max_jobs: int,
        lease_seconds: int | None,
        wait_ms: int,
    ) -> list[LeasedJob]:
        """Lease up to ``max_jobs`` available jobs (of ``topics``, if given), oldest first.

        Available: ``ready`` with ``available_at <= now``, or ``leased`` with an ended lease and
        attempts left. A job whose lease ended and has used ``max_attempts`` becomes ``dead``
        instead. Leasing adds one attempt and a fresh ``lease_id``; no job is ever leased to two
        workers at once, also across processes. ``lease_seconds`` defaults to the queue's.
        When nothing is available, wait up to ``wait_ms``.
        """
        check_at_least_one(max_jobs, name="max_jobs")
        if lease_seconds is not None:
            check_at_least_one(lease_seconds, name="lease_seconds")
        return await self._lease_jobs(
            queue,
            consumer=consumer,
            topics=topics,
            max_jobs=max_jobs,
            lease_seconds=lease_seconds,
            wait_ms=wait_ms,
        )

    async def ack_job(self, queue: str, job_id: str, lease_id: str) -> JobRecord:
        """Mark the job ``succeeded``. ``ConflictError("lease_expired")`` unless ``lease_id`` is its
        current, unexpired lease; ``job_not_found`` / ``queue_not_found`` as usual.
        """
        return await self._ack_job(queue, job_id, lease_id)

    async def ack_jobs(self, queue: str, leases: Sequence[tuple[str, str]]) -> list[JobAckOutcome]:
        """Acknowledge each ``(job_id, lease_id)`` as ``ack_job`` would, in one atomic step, and
        say per pair, in order, ``acked`` or why not (``lease_expired``, ``job_not_found``); a
        pair that fails never stops the others. The same job twice: the second is
        ``lease_expired``. ``queue_not_found`` for the whole call when the queue does not exist.
        """
        check_at_least_one(len(leases), name="the number of leases")
        return await self._ack_jobs(queue, leases)

    async def nack_job(
        self, queue: str, job_id: str, lease_id: str, *, retry_delay: int, error: str | None
    ) -> JobRecord:
        """End the lease: the job is ready again after ``retry_delay`` seconds, or ``dead`` when it
        used ``max_attempts``. The attempt counts and ends as ``failed``, with or without an
        ``error``, which becomes ``last_error``. Same lease rule as ``ack_job``.
        """
        check_not_negative(retry_delay, name="retry_delay")
        return await self._nack_job(queue, job_id, lease_id, retry_delay=retry_delay, error=error)

    async def release_job(self, queue: str, job_id: str, lease_id: str) -> JobRecord:
        """End the lease of a job its worker never ran: the job is ``ready`` now, its attempt is
        not counted (``attempts`` back by one), ``last_error`` is left as it was, the attempt
        ends as ``released``, and a job on its last attempt does not become ``dead``. Same lease
        rule as ``ack_job``.
        """
        return await self._release_job(queue, job_id, lease_id)

    async def release_jobs(
        self, queue: str, leases: Sequence[tuple[str, str]]
    ) -> list[JobReleaseOutcome]:
        """Release each ``(job_id, lease_id)`` as ``release_job`` would, in one atomic step, and
        say per pair, in order, ``released`` or why not (``lease_expired``, ``job_not_found``);
        a pair that fails never stops the others. The same job twice: the second is
        ``lease_expired``. ``queue_not_found`` for the whole call when the queue does not exist.
        """
        check_at_least_one(len(leases), name="the number of leases")
        return await self._release_jobs(queue, leases)

    async def extend_lease(
        self, queue: str, job_id: str, lease_id: str, *, lease_seconds: int
    ) -> JobRecord:
        """Set the lease to end ``lease_seconds`` from now. Same lease rule as ``ack_job``."""
        check_at_least_one(lease_seconds, name="lease_seconds")
        return await self._extend_lease(queue, job_id, lease_id, lease_seconds=lease_seconds)

    async def get_job(self, queue: str, job_id: str) -> JobRecord:
        """The job (``queue_not_found`` / ``job_not_found``)."""
        return await self._get_job(queue, job_id)

    async def list_jobs(self, queue: str, *, state: JobState | None, limit: int) -> list[JobRecord]:
        """Up to ``limit`` jobs of ``state`` (all states when None), oldest first."""
        check_at_least_one(limit, name="limit")
        return await self._list_jobs(queue, state=state, limit=limit)

    async def retry_job(self, queue: str, job_id: str) -> JobRecord:
        """Make a ``dead`` job ``ready`` now with attempts reset to 0;
        ``ConflictError("invalid_state")`` for any other state.
        """
        return await self._retry_job(queue, job_id)

    async def delete_job(self, queue: str, job_id: str) -> None:
        """Delete a ``dead`` job now rather than at the end of the queue's retention;
        ``ConflictError("invalid_state")`` for any other state (``queue_not_found`` /
        ``job_not_found``). A deduplication id it had still counts until its window ends.
        """
        await self._delete_job(queue, job_id)

    # Hooks ---------------------------------------------------------------------------------

    @abc.abstractmethod
    async def _put_queue(self, name: str, settings: QueueSettings) -> tuple[QueueRecord, bool]:
        """``put_queue`` with checked settings."""

    @abc.abstractmethod
    async def _get_queue(self, name: str) -> QueueRecord:
        """``get_queue``."""

    @abc.abstractmethod
    async def _list_queues(self) -> list[QueueRecord]:
        """``list_queues``."""

    @abc.abstractmethod
    async def _delete_queue(self, name: str) -> None:
        """``delete_queue``."""

    @abc.abstractmethod
    async def _publish_jobs(
        self,
        queue: str,
        jobs: Sequence[NewJob],
        *,
        payloads: Sequence[str],
        idempotency: IdempotencyClaim | None,
        traceparent: str | None,
    ) -> list[JobReceipt]:
        """``publish_jobs`` with checked delays and ``traceparent``; ``payloads`` are the jobs'
        payloads as JSON text, in the same order.
        """

    @abc.abstractmethod
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
        """``lease_jobs`` with a checked ``max_jobs`` and ``lease_seconds``."""

    @abc.abstractmethod
    async def _ack_job(self, queue: str, job_id: str, lease_id: str) -> JobRecord:
        """``ack_job``."""

    @abc.abstractmethod
    async def _ack_jobs(self, queue: str, leases: Sequence[tuple[str, str]]) -> list[JobAckOutcome]:
        """``ack_jobs`` with at least one lease."""

    @abc.abstractmethod
    async def _nack_job(
        self, queue: str, job_id: str, lease_id: str, *, retry_delay: int, error: str | None
    ) -> JobRecord:
        """``nack_job`` with a checked ``retry_delay``."""

    @abc.abstractmethod
    async def _release_job(self, queue: str, job_id: str, lease_id: str) -> JobRecord:
        """``release_job``."""

    @abc.abstractmethod
    async def _release_jobs(
        self, queue: str, leases: Sequence[tuple[str, str]]
    ) -> list[JobReleaseOutcome]:
        """``release_jobs`` with at least one lease."""

    @abc.abstractmethod
    async def _extend_lease(
        self, queue: str, job_id: str, lease_id: str, *, lease_seconds: int
    ) -> JobRecord:
        """``extend_lease`` with a checked ``lease_seconds``."""

    @abc.abstractmethod
    async def _get_job(self, queue: str, job_id: str) -> JobRecord:
        """``get_job``."""

    @abc.abstractmethod
    async def _list_jobs(
        self, queue: str, *, state: JobState | None, limit: int
    ) -> list[JobRecord]:
        """``list_jobs`` with a checked limit."""

    @abc.abstractmethod
    async def _retry_job(self, queue: str, job_id: str) -> JobRecord:
        """``retry_job``."""

    @abc.abstractmethod
    async def _delete_job(self, queue: str, job_id: str) -> None:
        """``delete_job``."""
