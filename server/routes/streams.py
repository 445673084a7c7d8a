"""Streams: append, range, trim, delete, and consumer groups (create, read, ack, claim, pending)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from generated.pydantic_models import (
    AckRequest,
    AppendEntriesRequest,
    AppendEntryRequest,
    ClaimRequest,
    CreateGroupRequest,
    MinId,
    RangeBound,
    ReadGroupRequest,
    StreamNamePrefix,
    TrimRequest,
)

from ..stores.base import Trim
from ..stores.cursors import stream_cursor_position
from . import _documents as documents
from ._body import ensure_finite, invalid, may_hold_non_finite, read_json
from ._context import context_of
from ._operations import Access, operations
from ._publish import Publishing, check_rate
from ._query import query_bool, query_cursor, query_int, query_value
from ._responses import json_response

__all__ = ["routes"]

_SMALLEST_ID = "0-0"
_LARGEST_ID = f"{2**64 - 1}-{2**64 - 1}"


def _optional_trim(maxlen: int | None, minid: MinId | None, approximate: bool) -> Trim | None:
    if maxlen is None and minid is None:
        return None
    return _trim(maxlen, minid, approximate)


def _trim(maxlen: int | None, minid: MinId | None, approximate: bool) -> Trim:
    if maxlen is not None and minid is not None:
        raise invalid("body.minid", "give at most one of maxlen and minid")
    if maxlen is None and minid is None:
        raise invalid("body", "give maxlen or minid")
    return Trim(maxlen=maxlen, minid=None if minid is None else minid.root, approximate=approximate)


async def list_streams(request: Request, access: Access) -> Response:
    """listStreams: a page of streams by name, those the token's permission covers."""
    prefix = query_value(request, "prefix", StreamNamePrefix, default="")
    limit = query_int(request, "limit", default=100, minimum=1, maximum=1000)
    cursor = query_cursor(request, stream_cursor_position)
    page = await context_of(request).store.list_streams(prefix=prefix, limit=limit, cursor=cursor)
    visible = [summary for summary in page.streams if access.covers(summary.stream)]
    return json_response(documents.stream_list(visible, page.next_cursor))


async def get_stream(request: Request, access: Access) -> Response:
    """getStream: length, ends and groups."""
    stream = access.names["stream"]
    info = await context_of(request).store.stream_info(stream)
    return json_response(documents.stream_info(info))


async def delete_stream(request: Request, access: Access) -> Response:
    """deleteStream: entries and groups go."""
    stream = access.names["stream"]
    await context_of(request).store.delete_stream(stream)
    return Response(status_code=204)


async def append_entry(request: Request, access: Access) -> Response:
    """appendEntry: one entry, then the asked-for trim."""
    stream = access.names["stream"]
    await check_rate(request, access.principal)
    body, raw = await read_json(request, AppendEntryRequest)
    if may_hold_non_finite(raw):
        ensure_finite(body.body, "body.body")
    trim = _optional_trim(body.maxlen, body.minid, body.approximate)
    store = context_of(request).store
    async with Publishing(
        request, access.principal, operation="appendEntry", raw_body=raw, items=1
    ) as publishing:
        result = await store.append(
            stream,
            [body.body],
            trim=trim,
            nomkstream=body.nomkstream,
            idempotency=publishing.claim,
            traceparent=publishing.traceparent,
        )
    document = documents.append_entry_result(result.ids[0], stream, result.length, result.trimmed)
    return await publishing.answer(document, replayed=result.replayed, status=201)


async def append_entries(request: Request, access: Access) -> Response:
    """appendEntries: several entries, all or none."""
    stream = access.names["stream"]
    await check_rate(request, access.principal)
    body, raw = await read_json(request, AppendEntriesRequest)
    if may_hold_non_finite(raw):
        for index, entry in enumerate(body.entries):
            ensure_finite(entry.body, f"body.entries.{index}.body")
    trim = _optional_trim(body.maxlen, body.minid, body.approximate)
    bodies = [entry.body for entry in body.entries]
    store = context_of(request).store
    async with Publishing(
        request, access.principal, operation="appendEntries", raw_body=raw, items=len(bodies)
    ) as publishing:
        result = await store.append(
            stream,
            bodies,
            trim=trim,
            nomkstream=body.nomkstream,
            idempotency=publishing.claim,
            traceparent=publishing.traceparent,
        )
    document = documents.append_entries_result(stream, result.ids, result.length, result.trimmed)
    return await publishing.answer(document, replayed=result.replayed, status=201)


async def range_entries(request: Request, access: Access) -> Response:
    """rangeEntries: entries between two ids, no state changed."""
    stream = access.names["stream"]
    start = query_value(request, "start", RangeBound, default="-")
    end = query_value(request, "end", RangeBound, default="+")
    # As in Redis, "-" and "+" are the smallest and largest possible ids at either end of a
    # range; the store contract knows them only as the start and the end respectively.
    start = _LARGEST_ID if start == "+" else start
    end = _SMALLEST_ID if end == "-" else end
    count = query_int(request, "count", default=100, minimum=1, maximum=1000)
    reverse = query_bool(request, "reverse", default=False)
    entries = await context_of(request).store.range(
        stream, start=start, end=end, count=count, reverse=reverse
    )
    return json_response(documents.entry_list(stream, entries))


async def trim_stream(request: Request, access: Access) -> Response:
    """trimStream: by maxlen or minid."""
    stream = access.names["stream"]
    body, _ = await read_json(request, TrimRequest)
    trim = _trim(body.maxlen, body.minid, body.approximate)
    result = await context_of(request).store.trim(stream, trim)
    return json_response(documents.trim_result(stream, result.length, result.trimmed))


async def create_group(request: Request, access: Access) -> Response:
    """createGroup: a consumer group after start_id."""
    stream = access.names["stream"]
    body, _ = await read_json(request, CreateGroupRequest)
    group = await context_of(request).store.create_group(
        stream,
        body.group.root,
        start_id=body.start_id,
        mkstream=body.mkstream,
        max_deliveries=None if body.max_deliveries is None else body.max_deliveries.root,
    )
    return json_response(documents.group_info(group), 201)


async def delete_group(request: Request, access: Access) -> Response:
    """deleteGroup: the group and its pending list."""
    stream, group = access.names["stream"], access.names["group"]
    await context_of(request).store.delete_group(stream, group)
    return Response(status_code=204)


async def read_group(request: Request, access: Access) -> Response:
    """readGroup: new entries for one consumer, waiting up to wait_ms."""
    stream, group = access.names["stream"], access.names["group"]
    body, _ = await read_json(request, ReadGroupRequest)
    entries = await context_of(request).store.read_group(
        stream, group, consumer=body.consumer.root, count=body.count, wait_ms=body.wait_ms
    )
    return json_response(documents.delivered_entry_list(stream, group, entries))


async def ack_entries(request: Request, access: Access) -> Response:
    """ackEntries: remove ids from the pending list."""
    stream, group = access.names["stream"], access.names["group"]
    body, _ = await read_json(request, AckRequest)
    acked = await context_of(request).store.ack(stream, group, [item.root for item in body.ids])
    return json_response(documents.ack_result(acked))


async def claim_entries(request: Request, access: Access) -> Response:
    """claimEntries: take over idle pending entries."""
    stream, group = access.names["stream"], access.names["group"]
    body, _ = await read_json(request, ClaimRequest)
    result = await context_of(request).store.claim(
        stream,
        group,
        consumer=body.consumer.root,
        min_idle_ms=body.min_idle_ms,
        count=body.count,
        start_id="0-0" if body.start_id is None else body.start_id.root,
    )
    document = documents.claim_result(
        stream,
        group,
        result.next_start_id,
        result.entries,
        result.deleted_ids,
        result.dead_lettered_ids,
    )
    return json_response(document)


async def list_pending(request: Request, access: Access) -> Response:
    """listPending: who holds which pending entry."""
    stream, group = access.names["stream"], access.names["group"]
    count = query_int(request, "count", default=100, minimum=1, maximum=1000)
    pending = await context_of(request).store.pending(stream, group, count=count)
    return json_response(documents.pending_list(stream, group, pending))


routes = [
    operations("/v1/streams", GET=list_streams),
    operations("/v1/streams/{stream}", GET=get_stream, DELETE=delete_stream),
    operations("/v1/streams/{stream}/entries", POST=append_entry, GET=range_entries),
    operations("/v1/streams/{stream}/batch", POST=append_entries),
    operations("/v1/streams/{stream}/trim", POST=trim_stream),
    operations("/v1/streams/{stream}/groups", POST=create_group),
    operations("/v1/streams/{stream}/groups/{group}", DELETE=delete_group),
    operations("/v1/streams/{stream}/groups/{group}/read", POST=read_group),
    operations("/v1/streams/{stream}/groups/{group}/ack", POST=ack_entries),
    operations("/v1/streams/{stream}/groups/{group}/claim", POST=claim_entries),
    operations("/v1/streams/{stream}/groups/{group}/pending", GET=list_pending),
]
