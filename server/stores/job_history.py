"""A job's attempt history, as both stores keep and answer it.

Each lease of a job is one attempt: the store records its start where it leases and its end where
an ack (``succeeded``), a nack (``failed``), a release (``released``: given back untried, so not
counted in the job's ``attempts``) or a lease expiry ends it, in the same transaction or script,
and keeps the last :data:`JOB_HISTORY_LIMIT`. Expiry is lazy (``lease_expiry.py``): until a write settles the queue, a
lease that ran out is still stored as open, so readers end it here, at its expiry and with the
error the settling write will record, and a job reads the same before and after that write.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .lease_expiry import lease_expired_error, lease_taken_at
from .records import JobAttemptRecord, JobState

__all__ = ["JOB_HISTORY_LIMIT", "as_read", "leased_at"]

# As many as the console's timeline can show; the spec's Job.attempt_history maxItems.
JOB_HISTORY_LIMIT = 20


def as_read(
    history: Sequence[JobAttemptRecord],
    *,
    state: JobState,
    stored_state: str,
    lease_id: str | None,
    lease_expires_at: float | None,
    attempts: int,
    max_attempts: int,
) -> tuple[JobAttemptRecord, ...]:
    """The history as of the job's ``state``: an open last attempt whose lease the clock ended
    (stored ``leased``, read as anything else) ends at its expiry as ``lease_expired``.
    """
    attempts_read = tuple(history)
    if (
        not attempts_read
        or attempts_read[-1].ended_at is not None
        or stored_state != "leased"
        or state == "leased"
        or lease_expires_at is None
    ):
        return attempts_read
    last = dataclasses.replace(
        attempts_read[-1],
        ended_at=lease_expires_at,
        outcome="lease_expired",
        error=lease_expired_error(lease_id, lease_expires_at, attempts, max_attempts),
    )
    return (*attempts_read[:-1], last)


def leased_at(
    history: Sequence[JobAttemptRecord], *, state: JobState, lease_id: str | None
) -> float | None:
    """When the current or last lease began: its attempt's start, or (for a lease taken before
    the store kept attempts) the time in its id.
    """
    if history:
        return history[-1].leased_at
    return lease_taken_at(lease_id) if state == "leased" else None
