"""Why a job whose lease ran out on its last attempt is dead: the ``last_error`` both stores give it.

A worker that crashes or hangs never nacks, so without this the job would die with no error, or
with an older attempt's. The lease's length is read from its id, whose first ten characters are
the millisecond it was taken (``server/ids.py``), so the stores need no column for it. The Redis
store's Lua (``lua/lib/queue.lua``, ``lease_expired_error``) words it the same way with the same
arithmetic, so a job reads the same whether a script settled its queue or a reader saw the lease
ended first.
"""

from __future__ import annotations

import math

from ..ids import CROCKFORD_ALPHABET, ID_BODY_LENGTH

__all__ = ["lease_expired_error", "lease_taken_at"]

_TIME_CHARACTERS = 10


def lease_taken_at(lease_id: str | None) -> float | None:
    """When the lease ``lease_id`` was taken (seconds since the epoch); None for an id that is
    not one of ours.
    """
    if lease_id is None:
        return None
    body = lease_id.rpartition("_")[2]
    if len(body) != ID_BODY_LENGTH:
        return None
    milliseconds = 0
    for character in body[:_TIME_CHARACTERS]:
        digit = CROCKFORD_ALPHABET.find(character)
        if digit < 0:
            return None
        milliseconds = milliseconds * 32 + digit
    return milliseconds / 1000


def lease_expired_error(
    lease_id: str | None, lease_expires_at: float, attempts: int, max_attempts: int
) -> str:
    """The error of a job whose lease ``lease_id`` ended at ``lease_expires_at`` on attempt
    ``attempts`` of ``max_attempts``: ``lease expired after 30 s, attempt 1 of 1``.
    """
    taken_at = lease_taken_at(lease_id)
    if taken_at is None:
        return f"lease expired, attempt {attempts} of {max_attempts}"
    # floor(x + 0.5), as the Lua twin rounds: the same float operations give the same text.
    seconds = math.floor(lease_expires_at - taken_at + 0.5)
    return f"lease expired after {seconds} s, attempt {attempts} of {max_attempts}"
