"""Idempotent publishes: an ``Idempotency-Key`` makes a publish safe to repeat.

The key is scoped to the token, the operation and the path, so two tokens (or one token on two
queues) never share a key. The store does the rest inside the publish's own atomic write (see
``IdempotencyClaim``): the first request writes and keeps its result under the key in the same
step; every repeat with the same request (method, path and exact body) gets that result back,
rendered as the same response with ``Idempotent-Replayed: true``, and writes nothing. The same key
with a different request is ``409 conflict``. There is no "in progress" state: a request that
failed, or a process that died before its write, leaves no record, so a repeat simply runs.
"""

from __future__ import annotations

import hashlib
import re

from .problems import FieldIssue, ProblemError
from .stores.base import IdempotencyClaim

__all__ = [
    "IDEMPOTENCY_KEY_HEADER",
    "REPLAYED_HEADER",
    "idempotent_request",
    "key_reused",
]

IDEMPOTENCY_KEY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"


def idempotent_request(
    header_value: str,
    *,
    key_pattern: re.Pattern[str],
    token_id: str,
    operation: str,
    method: str,
    path: str,
    raw_body: bytes,
    ttl: float,
) -> IdempotencyClaim:
    """The claim a publish with an ``Idempotency-Key`` header hands its store write."""
    if not key_pattern.fullmatch(header_value):
        raise ProblemError(
            422,
            "validation_failed",
            "the Idempotency-Key header is invalid",
            errors=[
                FieldIssue(
                    location=f"header.{IDEMPOTENCY_KEY_HEADER}",
                    message=f"must match {key_pattern.pattern}",
                )
            ],
        )
    scope = "\x1f".join((token_id, operation, path, header_value))
    request_hash = hashlib.sha256()
    for part in (method.encode(), path.encode(), raw_body):
        # Length prefixes keep ("a", "bc") and ("ab", "c") apart.
        request_hash.update(len(part).to_bytes(8, "big"))
        request_hash.update(part)
    return IdempotencyClaim(
        key=hashlib.sha256(scope.encode()).hexdigest(),
        request_hash=request_hash.hexdigest(),
        ttl=ttl,
    )


def key_reused() -> ProblemError:
    """What a store's ``ConflictError("conflict")`` for an idempotent write answers."""
    return ProblemError(409, "conflict", "Idempotency-Key was already used for a different request")
