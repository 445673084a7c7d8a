"""Idempotent writes: a write and the record of its result, in the write's one transaction.

Idempotency: an idempotent write (``IdempotencyClaim``) looks its key up, does its work and records
its result as JSON in the ``idempotency`` table, all in the write's one transaction. A record whose
``expires_at`` has passed is ignored by the lookup (and replaced), and every idempotent write deletes
up to ``PURGE_BATCH`` expired records.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from ..base import JSON, ConflictError, IdempotencyClaim, NotFoundError
from ._common import PURGE_BATCH, Work

__all__ = ["write_once"]

_T = TypeVar("_T")


def write_once(
    idempotency: IdempotencyClaim | None,
    scope: str,
    work: Work[_T],
    *,
    remember: Callable[[_T], JSON],
    replay: Callable[[Any], _T],
) -> Work[_T]:
    """The transaction's work that runs the write ``work`` at most once per ``idempotency`` key
    within ``scope`` (see ``IdempotencyClaim``): ``remember`` turns its result into JSON to keep,
    ``replay`` turns that back into the result, marked replayed. Without a key, ``work`` itself.
    """
    if idempotency is None:
        return work
    claim = idempotency

    def once(connection: sqlite3.Connection, now: float) -> _T:
        record = connection.execute(
            """SELECT request_hash, result FROM idempotency
               WHERE scope = ? AND key = ? AND expires_at > ?""",
            (scope, claim.key, now),
        ).fetchone()
        if record is not None:
            if record["request_hash"] != claim.request_hash:
                raise _key_reused()
            return replay(json.loads(record["result"]))
        if claim.replay_only:
            raise _nothing_to_replay()
        result = work(connection, now)
        connection.execute(
            """DELETE FROM idempotency WHERE (scope, key) IN (
                   SELECT scope, key FROM idempotency WHERE expires_at <= ? LIMIT ?)""",
            (now, PURGE_BATCH),
        )
        connection.execute(
            """INSERT OR REPLACE INTO idempotency (scope, key, request_hash, result, expires_at)
               VALUES (?, ?, ?, ?, ?)""",
            (
                scope,
                claim.key,
                claim.request_hash,
                json.dumps(remember(result)),
                now + claim.ttl,
            ),
        )
        return result

    return once


def _key_reused() -> ConflictError:
    return ConflictError("conflict", "the idempotency key was already used for another request")


def _nothing_to_replay() -> NotFoundError:
    return NotFoundError(
        "idempotency_record_not_found", "no live record of this idempotency key to replay"
    )
