"""What a schedule publishes: its destination checked when it is put, and published at a tick.

A destination is the body of one publish operation with what it publishes to: a message
(publishMessage's body), a job on a queue (publishJob's) or an entry on a stream (appendEntry's).
Both steps go through the same planning as those operations (``plan_message``, ``new_job``), so a
tick publishes exactly what the publish would, and its checks (the destination policy, a URL
group's endpoints, the reserved topics) are made again at each tick against what then exists.

A tick's publish is idempotent by a key of the schedule's revision and the tick's time
(:func:`tick_claim`): a scheduler that dies after publishing and before recording the run leaves
the tick to be claimed again, and the second publish replays the first instead of making another.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Literal

from generated.pydantic_models import (
    AppendEntryRequest,
    ScheduleDestination,
)

from ..auth import Principal
from ..config import Resource
from ..encoding import json_bytes
from ..problems import ProblemError
from ..routes._body import ensure_finite, invalid, parse_body
from ..routes._context import AppContext
from ..routes.messages import plan_message
from ..routes.queues import new_job
from ..stores.base import JSON, IdempotencyClaim, NotFoundError, ScheduleRecord, Trim

__all__ = [
    "TICK_RECORD_TTL_SECONDS",
    "check_destination",
    "publish_destination",
    "tick_claim",
]

# How long the record of a tick's publish is kept: long enough that a tick claimed again after
# any outage its lease outlives still replays it.
TICK_RECORD_TTL_SECONDS = 7 * 24 * 3600.0
_KIND_MEMBERS: dict[str, tuple[str, ...]] = {
    "message": ("message",),
    "job": ("queue", "job"),
    "stream": ("stream", "entry"),
}
_NOT_FOUND = frozenset({"queue_not_found", "stream_not_found", "url_group_not_found"})


def tick_claim(schedule: ScheduleRecord, tick_at: float) -> IdempotencyClaim:
    """The idempotency claim of the publish for one tick of one revision of ``schedule``."""
    scope = "\x1f".join(("schedule", schedule.name, schedule.revision, repr(tick_at)))
    key = hashlib.sha256(scope.encode()).hexdigest()
    return IdempotencyClaim(key=key, request_hash=key, ttl=TICK_RECORD_TTL_SECONDS)


def _check_kind(destination: ScheduleDestination, location: str) -> None:
    kind = destination.kind.root
    given = destination.model_fields_set - {"kind"}
    wanted = set(_KIND_MEMBERS[kind])
    if given != wanted:
        raise invalid(
            f"{location}.kind",
            f"a {kind} destination has {' and '.join(_KIND_MEMBERS[kind])} and no other members",
        )


def _trim(entry: AppendEntryRequest, location: str) -> Trim | None:
    if entry.maxlen is not None and entry.minid is not None:
        raise invalid(f"{location}.minid", "give at most one of maxlen and minid")
    if entry.maxlen is None and entry.minid is None:
        return None
    return Trim(
        maxlen=entry.maxlen,
        minid=None if entry.minid is None else entry.minid.root,
        approximate=entry.approximate,
    )


class _PublishCheck:
    """Refuses (403) a destination the token that puts the schedule may not publish to."""

    def __init__(self, principal: Principal, resource: Resource) -> None:
        self._principal = principal
        self._resource = resource

    def __call__(self, name: str) -> None:
        if not self._principal.allows(self._resource, name, "publish"):
            raise ProblemError(
                403,
                "permission_denied",
                f"token {self._principal.token_id!r} may not publish on {self._resource} "
                f"{name!r}, where the schedule would publish",
            )


def _anyone(_name: str) -> None:
    """A tick publishes where the schedule's author was allowed to when they put it."""


async def check_destination(
    context: AppContext, principal: Principal, destination: ScheduleDestination, location: str
) -> JSON:
    """The destination of a schedule being put, as the document the store keeps, after every
    check its publish makes, and that its author may publish there (403 otherwise). What it
    publishes to must exist: a queue, a URL group and (with ``nomkstream``) a stream that does
    not is ``422 destination_not_found``; a message's ``not_before`` is refused (422).
    """
    _check_kind(destination, location)
    try:
        if destination.message is not None:
            message = destination.message
            if message.not_before is not None:
                raise invalid(
                    f"{location}.message.not_before",
                    "a scheduled message cannot have a fixed not_before; its delay counts from "
                    "each tick",
                )
            check = _PublishCheck(principal, "message")
            await plan_message(context, check, message, f"{location}.message", check_finite=True)
        elif destination.job is not None and destination.queue is not None:
            _PublishCheck(principal, "queue")(destination.queue.root)
            new_job(context, destination.job, f"{location}.job", check_finite=True)
            await context.store.get_queue(destination.queue.root)
        elif destination.entry is not None and destination.stream is not None:
            stream = destination.stream.root
            _PublishCheck(principal, "stream")(stream)
            ensure_finite(destination.entry.body, f"{location}.entry.body")
            _trim(destination.entry, f"{location}.entry")
            if destination.entry.nomkstream:
                await context.store.stream_info(stream)
    except NotFoundError as error:
        if error.code not in _NOT_FOUND:
            raise
        raise ProblemError(
            422, "destination_not_found", f"{error.detail}: the schedule would publish there"
        ) from error
    document: JSON = destination.model_dump(mode="json", exclude_unset=True)
    return document


async def publish_destination(
    context: AppContext, document: JSON, *, claim: IdempotencyClaim, schedule: str
) -> list[str]:
    """Publish the destination of the schedule named ``schedule`` once for the tick of
    ``claim``, as its publish operation would, and answer the ids it made (or, for a tick
    published before, made then): the message ids, the job id or the entry id; its messages name
    the schedule. Raises what the publish would refuse with (ProblemError or a store error), such
    as ``queue_not_found`` for a queue deleted since.
    """
    destination = parse_body(json_bytes(document), ScheduleDestination)
    store = context.store
    kind: Literal["message", "job", "stream"] = destination.kind.root
    if kind == "message" and destination.message is not None:
        planned = await plan_message(
            context, _anyone, destination.message, "destination.message", check_finite=True
        )
        named = [dataclasses.replace(message, schedule=schedule) for message in planned]
        receipts = await store.publish_messages(named, idempotency=claim)
        context.notify_message_scheduled()
        return [receipt.message_id for receipt in receipts]
    if kind == "job" and destination.job is not None and destination.queue is not None:
        job = new_job(context, destination.job, "destination.job", check_finite=True)
        [receipt] = await store.publish_jobs(destination.queue.root, [job], idempotency=claim)
        return [receipt.job_id]
    if kind == "stream" and destination.entry is not None and destination.stream is not None:
        entry = destination.entry
        result = await store.append(
            destination.stream.root,
            [entry.body],
            trim=_trim(entry, "destination.entry"),
            nomkstream=entry.nomkstream,
            idempotency=claim,
        )
        return result.ids
    raise invalid("destination.kind", f"a {kind} destination lacks its members")
