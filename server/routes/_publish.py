"""What every publishing route does around its one store write: the rate limit, the quota, the
request's Idempotency-Key, which the write itself keeps (or replays), and its ``traceparent``,
which the write keeps with what it publishes.
"""

from __future__ import annotations

import dataclasses
import math
from types import TracebackType

import anyio
from starlette.requests import Request
from starlette.responses import Response

from ..auth import Principal
from ..encoding import json_bytes
from ..idempotency import IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER, idempotent_request, key_reused
from ..problems import ProblemError
from ..stores.base import ConflictError, IdempotencyClaim, NotFoundError
from ..stores.checks import TRACEPARENT
from ._context import context_of, header

__all__ = ["TRACEPARENT_HEADER", "Publishing", "check_rate", "traceparent_of"]

TRACEPARENT_HEADER = "traceparent"
_TRACEPARENT_NAME = TRACEPARENT_HEADER.encode("latin-1")
_IDEMPOTENCY_KEY_NAME = IDEMPOTENCY_KEY_HEADER.lower().encode("latin-1")


class Publishing:
    """One publish's quota charge and Idempotency-Key, around its one store write. A publishing
    route reads top to bottom::

        async with Publishing(request, principal, operation="appendEntry", raw_body=raw,
                              items=1) as publishing:
            result = await store.append(..., idempotency=publishing.claim,
                                        traceparent=publishing.traceparent)
        return await publishing.answer(document, replayed=result.replayed, status=201)

    ``claim`` is the request's Idempotency-Key (None without one): the store write keeps it with
    its result, or replays the first result, or refuses a repeat with another body (409
    ``idempotency_key_reused``), all in the one write (see server/idempotency.py).

    ``traceparent`` is the request's W3C ``traceparent`` header when it is well formed (None
    otherwise: a malformed one is ignored, never refused), for the write to keep.

    With a quota, ``items`` are taken from it on entering (429 ``quota_exceeded`` when that would
    run over) and given back when the write fails or turns out to be a replay. A repeat of a
    publish that was made is still answered when the quota is used up, taking nothing: the claim
    then only replays.

    With metrics on, the items are counted under the operation's kind as written, replayed or
    refused (a write that raised wrote nothing).
    """

    __slots__ = ("_charged", "_counters", "_items", "_principal", "_store", "claim", "traceparent")

    def __init__(
        self,
        request: Request,
        principal: Principal,
        *,
        operation: str,
        raw_body: bytes,
        items: int,
    ) -> None:
        context = context_of(request)
        key = header(request, _IDEMPOTENCY_KEY_NAME)
        self.claim: IdempotencyClaim | None = (
            None
            if key is None
            else idempotent_request(
                key,
                key_pattern=context.spec.idempotency_key_pattern,
                token_id=principal.token_id,
                operation=operation,
                method=request.method,
                path=_url_path(request),
                raw_body=raw_body,
                ttl=context.settings.idempotency_ttl_seconds,
            )
        )
        self.traceparent = traceparent_of(request)
        self._store = context.store
        self._principal = principal
        self._items = items
        self._charged = False
        self._counters = None if context.metrics is None else context.metrics.publishing[operation]

    async def __aenter__(self) -> Publishing:
        quota = self._principal.quota
        if quota is None:
            return self
        if await self._store.consume_quota(self._principal.token_id, self._items, limit=quota):
            self._charged = True
        elif self.claim is None:
            if self._counters is not None:
                self._counters.refused(self._items, quota=True)
            raise _quota_exceeded(quota)
        else:
            # The quota holds back new writes only: the repeat of a publish that was made (whose
            # first answer may have been lost) is answered as ever.
            self.claim = dataclasses.replace(self.claim, replay_only=True)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc is None:
            return
        await self._refund()
        # A repeat that may only replay found nothing to replay: a new write, over the quota.
        over_quota = (
            self.claim is not None
            and self.claim.replay_only
            and isinstance(exc, NotFoundError)
            and exc.code == "idempotency_record_not_found"
        )
        if self._counters is not None and isinstance(exc, Exception):
            self._counters.refused(self._items, quota=over_quota)
        if self.claim is None:
            return
        if isinstance(exc, ConflictError) and exc.code == "conflict":
            raise key_reused() from None
        if over_quota:
            assert self._principal.quota is not None
            raise _quota_exceeded(self._principal.quota) from None

    async def answer(self, document: dict[str, object], *, replayed: bool, status: int) -> Response:
        """The publish's response: ``document`` (for a replay, rendered from the first result
        alone, so it is the first answer's bytes), marked ``Idempotent-Replayed`` when the store
        replayed it, whose charge is then given back.
        """
        if replayed:
            await self._refund()
        if self._counters is not None:
            self._counters.answered(self._items, replayed=replayed)
        return Response(
            json_bytes(document),
            status_code=status,
            headers={REPLAYED_HEADER: "true"} if replayed else None,
            media_type="application/json",
        )

    async def _refund(self) -> None:
        if not self._charged:
            return
        self._charged = False
        # Shielded so that a cancelled request still gives back what it took.
        with anyio.CancelScope(shield=True):
            await self._store.refund_quota(self._principal.token_id, self._items)


def _url_path(request: Request) -> str:
    """``request.url.path``, without the URL Starlette builds anew (host header, netloc and a
    ``urlsplit``) on every access: the path as it escapes it.
    """
    path: str = request.scope["path"]
    return path.replace("?", "%3F").replace("#", "%23").replace("\\", "%5C")


def traceparent_of(request: Request) -> str | None:
    """The request's ``traceparent`` header if it is in the W3C format, else None."""
    value = header(request, _TRACEPARENT_NAME)
    if value is None or TRACEPARENT.fullmatch(value) is None:
        return None
    return value


def _quota_exceeded(quota: int) -> ProblemError:
    return ProblemError(
        429, "quota_exceeded", f"token's quota of {quota} published items is used up"
    )


async def check_rate(request: Request, principal: Principal) -> None:
    """429 ``rate_limited`` with ``Retry-After`` when the token is over its rate, by a bucket the
    store keeps for every process sharing it.
    """
    if principal.rate_limit is None:
        return
    context = context_of(request)
    wait = await context.store.take_rate_token(
        principal.token_id,
        per_second=principal.rate_limit.per_second,
        burst=principal.rate_limit.burst,
    )
    if wait > 0:
        if context.metrics is not None:
            context.metrics.rate_limited.inc()
        seconds = max(1, math.ceil(wait))
        raise ProblemError(
            429,
            "rate_limited",
            f"token {principal.token_id!r} is over its rate limit; retry in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )
