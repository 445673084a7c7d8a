"""The publish pipeline every publishing route ends in: the rate limit, the quota, and one store
write that also keeps (or replays) the request's Idempotency-Key.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Awaitable, Callable

import anyio
from starlette.requests import Request
from starlette.responses import Response

from ..auth import Principal
from ..encoding import json_bytes
from ..idempotency import IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER, idempotent_request, key_reused
from ..problems import ProblemError
from ..stores.base import ConflictError, IdempotencyClaim, NotFoundError, Store
from ._context import context_of

__all__ = ["PublishWrite", "Published", "check_rate", "publish"]


@dataclasses.dataclass(frozen=True, slots=True)
class Published:
    """What a publish route's store write answers: the response's JSON document, rendered from the
    store's result alone (so a replay renders the first answer's bytes), and whether the store
    replayed that result for an Idempotency-Key rather than writing now.
    """

    document: dict[str, object]
    replayed: bool


PublishWrite = Callable[[IdempotencyClaim | None], Awaitable[Published]]


async def publish(
    request: Request,
    principal: Principal,
    *,
    operation: str,
    raw_body: bytes,
    items: int,
    status: int,
    write: PublishWrite,
) -> Response:
    """Run a validated publish: ``write`` is one store write that, given the request's
    Idempotency-Key as a claim, also replays or refuses a repeat (see server/idempotency.py).

    With a quota, ``items`` are taken from it before writing (429 ``quota_exceeded`` when that
    would run over) and given back when the write fails or turns out to be a replay. A repeat of a
    publish that was made is still answered when the quota is used up, taking nothing.
    """
    context = context_of(request)
    key = request.headers.get(IDEMPOTENCY_KEY_HEADER)
    # Starlette builds ``request.url`` anew on every access (py-spy: 2.5% of an unkeyed publish);
    # only a keyed one needs its path.
    claim = (
        None
        if key is None
        else idempotent_request(
            key,
            key_pattern=context.spec.idempotency_key_pattern,
            token_id=principal.token_id,
            operation=operation,
            method=request.method,
            path=request.url.path,
            raw_body=raw_body,
            ttl=context.settings.idempotency_ttl_seconds,
        )
    )
    published = await _charged_write(context.store, principal, items, claim, write)
    headers = {REPLAYED_HEADER: "true"} if published.replayed else None
    return Response(
        json_bytes(published.document),
        status_code=status,
        headers=headers,
        media_type="application/json",
    )


async def _charged_write(
    store: Store,
    principal: Principal,
    items: int,
    claim: IdempotencyClaim | None,
    write: PublishWrite,
) -> Published:
    quota = principal.quota
    if quota is None:
        return await _write_once(write, claim)
    if not await store.consume_quota(principal.token_id, items, limit=quota):
        if claim is not None:
            # The quota holds back new writes only: the repeat of a publish that was made (whose
            # first answer may have been lost) is answered as ever.
            try:
                return await _write_once(write, dataclasses.replace(claim, replay_only=True))
            except NotFoundError as error:
                if error.code != "idempotency_record_not_found":
                    raise
        raise ProblemError(
            429, "quota_exceeded", f"token's quota of {quota} published items is used up"
        )
    try:
        published = await _write_once(write, claim)
    except BaseException:
        await _refund(store, principal.token_id, items)
        raise
    if published.replayed:
        await _refund(store, principal.token_id, items)
    return published


async def _write_once(write: PublishWrite, claim: IdempotencyClaim | None) -> Published:
    try:
        return await write(claim)
    except ConflictError as error:
        if claim is None or error.code != "conflict":
            raise
        raise key_reused() from None


async def _refund(store: Store, token_id: str, items: int) -> None:
    # Shielded so that a cancelled request still gives back what it took.
    with anyio.CancelScope(shield=True):
        await store.refund_quota(token_id, items)


async def check_rate(request: Request, principal: Principal) -> None:
    """429 ``rate_limited`` with ``Retry-After`` when the token is over its rate, by a bucket the
    store keeps for every process sharing it.
    """
    if principal.rate_limit is None:
        return
    wait = await context_of(request).store.take_rate_token(
        principal.token_id,
        per_second=principal.rate_limit.per_second,
        burst=principal.rate_limit.burst,
    )
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise ProblemError(
            429,
            "rate_limited",
            f"token {principal.token_id!r} is over its rate limit; retry in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )
