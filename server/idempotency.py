"""Idempotent publishes: an ``Idempotency-Key`` makes a publish safe to repeat.

The key is scoped to the token, the operation and the path, so two tokens (or one token on two
queues) never share a key. The first request reserves the key in the store; once it answers 2xx the
response is kept and every repeat with the same request (method, path and exact body) gets it back
with ``Idempotent-Replayed: true`` and writes nothing. The same key with a different request is
``409 conflict``, as is a repeat that arrives while the first is still being processed. A request
that fails frees the key, so a corrected repeat can run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
from collections.abc import Awaitable, Callable

import anyio
from starlette.responses import Response

from .problems import FieldIssue, ProblemError
from .stores.base import Store

__all__ = [
    "IDEMPOTENCY_KEY_HEADER",
    "REPLAYED_HEADER",
    "IdempotentRequest",
    "idempotent_request",
    "run_idempotent",
]

IDEMPOTENCY_KEY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"

logger = logging.getLogger("spool.server")


@dataclasses.dataclass(frozen=True, slots=True)
class IdempotentRequest:
    """A publish carrying an Idempotency-Key: its scoped store key and the request's hash."""

    key: str
    request_hash: str


def idempotent_request(
    header_value: str | None,
    *,
    key_pattern: re.Pattern[str],
    token_id: str,
    operation: str,
    method: str,
    path: str,
    raw_body: bytes,
) -> IdempotentRequest | None:
    """The idempotent request a publish makes, or None without an ``Idempotency-Key`` header."""
    if header_value is None:
        return None
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
    return IdempotentRequest(
        key=hashlib.sha256(scope.encode()).hexdigest(), request_hash=request_hash.hexdigest()
    )


async def run_idempotent(
    store: Store,
    request: IdempotentRequest | None,
    *,
    ttl: float,
    handler: Callable[[], Awaitable[Response]],
) -> Response:
    """Run ``handler`` once per idempotent request, replaying its 2xx response to repeats."""
    if request is None:
        return await handler()
    record = await store.begin_idempotent(request.key, request.request_hash, ttl=ttl)
    if record is not None:
        if record.request_hash != request.request_hash:
            raise ProblemError(
                409, "conflict", "Idempotency-Key was already used for a different request"
            )
        if record.status is None or record.body is None:
            raise ProblemError(
                409,
                "conflict",
                "a request with this Idempotency-Key is still in progress; retry once it answered",
            )
        return Response(
            record.body,
            status_code=record.status,
            media_type="application/json",
            headers={REPLAYED_HEADER: "true"},
        )
    try:
        response = await handler()
    except BaseException:
        # Shielded so that a cancelled request still frees its key.
        with anyio.CancelScope(shield=True):
            await store.release_idempotent(request.key)
        raise
    if not 200 <= response.status_code < 300:
        await store.release_idempotent(request.key)
        return response
    try:
        await store.finish_idempotent(
            request.key, status=response.status_code, body=bytes(response.body), ttl=ttl
        )
    except Exception:
        # The publish is committed, so its answer is still the truth; the key stays reserved
        # (a repeat gets "in progress") rather than freed, which could publish twice.
        logger.exception("could not store the response of an idempotent publish")
    return response
