"""Job and lease handling for `run()`: a handled job is acked, a failed one nacked with its error
and the subscription's retry delay, and a lease that ended first is left to come back by itself.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ._exceptions import ConflictError
from ._worker_handlers import describe, error_text, log_failure

if TYPE_CHECKING:
    from ._queues import AsyncQueue, Queue
    from ._subscriptions import QueueSubscription
    from ._types import LeasedJob

__all__ = ["STOPPED", "asettle", "settle"]

logger = logging.getLogger("spool")

# The error a job leased but not handled before a stop is given back with.
STOPPED = "worker stopped before handling the job"


def settle(queue: Queue, sub: QueueSubscription, job: LeasedJob, error: Exception | None) -> None:
    """Ack the job its handler returned from, nack the one it failed."""
    try:
        if error is None:
            queue.ack(job)
            return
        log_failure(sub, f"job {job.job_id} (attempt {job.attempt})", error)
        queue.nack(job, retry_delay=sub.retry_delay_seconds, error=error_text(error))
    except ConflictError as conflict:
        _lease_ended(sub, job, conflict)


async def asettle(
    queue: AsyncQueue, sub: QueueSubscription, job: LeasedJob, error: Exception | None
) -> None:
    """`settle` for an `AsyncQueue`."""
    try:
        if error is None:
            await queue.ack(job)
            return
        log_failure(sub, f"job {job.job_id} (attempt {job.attempt})", error)
        await queue.nack(job, retry_delay=sub.retry_delay_seconds, error=error_text(error))
    except ConflictError as conflict:
        _lease_ended(sub, job, conflict)


def _lease_ended(sub: QueueSubscription, job: LeasedJob, error: ConflictError) -> None:
    """A lease that ended before the ack or nack is not fatal: the job comes back by itself."""
    if error.code != "lease_expired":
        raise error
    logger.warning(
        "the lease on job %s of %s ended before the handler finished; "
        "it will be delivered again (consider a longer lease)",
        job.job_id,
        describe(sub),
    )
