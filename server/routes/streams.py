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

from ..stores.base import DeliveredEntry, Entry, GroupInfo, StreamInfo, StreamSummary, Trim
from ..stores.cursors import stream_cursor_position
from ._body import ensure_finite, invalid, may_hold_non_finite, read_json
from ._context import context_of
from ._operations import Access, operations
from ._publish import Publishing, check_rate
from ._query import query_bool, query_cursor, query_int, query_value
from ._responses import json_response, without_none

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


def _group_json(group: GroupInfo) -> dict[str, object]:
    return without_none(
        {
            "group": group.group,
            "consumers": group.consumers,
            "pending": group.pending,
            "last_delivered_id": group.last_delivered_id,
            "max_deliveries": group.max_deliveries,
        }
    )


def _stream_json(info: StreamInfo) -> dict[str, object]:
    return without_none(
        {
            "stream": info.stream,
            "length": info.length,
            "first_id": info.first_id,
            "last_id": info.last_id,
            "groups": [_group_json(group) for group in info.groups],
        }
    )


def _delivered_json(entry: DeliveredEntry) -> dict[str, object]:
    document: dict[str, object] = {
        "id": entry.id,
        "body": entry.body,
        "delivery_count": entry.delivery_count,
    }
    if entry.traceparent is not None:
        document["traceparent"] = entry.traceparent
    return document


def _entry_json(entry: Entry) -> dict[str, object]:
    document: dict[str, object] = {"id": entry.id, "body": entry.body}
    if entry.traceparent is not None:
        document["traceparent"] = entry.traceparent
    return document


def _summary_json(summary: StreamSummary) -> dict[str, object]:
    return without_none(
        {
            "stream": summary.stream,
            "length": summary.length,
            "first_id": summary.first_id,
            "last_id": summary.last_id,
            "group_count": summary.group_count,
        }
    )


async def list_streams(request: Request, access: Access) -> Response:
    """listStreams: a page of streams by name, those the token's permission covers."""
    prefix = query_value(request, "prefix", StreamNamePrefix, default="")
    limit = query_int(request, "limit", default=100, minimum=1, maximum=1000)
    cursor = query_cursor(request, stream_cursor_position)
    page = await context_of(request).store.list_streams(prefix=prefix, limit=limit, cursor=cursor)
    visible = [summary for summary in page.streams if access.covers(summary.stream)]
    return json_response(
        {"streams": [_summary_json(s) for s in visible], "next_cursor": page.next_cursor}
    )


async def get_stream(request: Request, access: Access) -> Response:
    """getStream: length, ends and groups."""
    stream = access.names["stream"]
    info = await context_of(request).store.stream_info(stream)
    return json_response(_stream_json(info))


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
    document: dict[str, object] = {
        "id": result.ids[0],
        "stream": stream,
        "length": result.length,
        "trimmed": result.trimmed,
    }
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
    document: dict[str, object] = {
        "stream": stream,
        "ids": result.ids,
        "length": result.length,
        "trimmed": result.trimmed,
    }
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
    document = {
        "stream": stream,
        "entries": [_entry_json(entry) for entry in entries],
    }
    return json_response(document)


async def trim_stream(request: Request, access: Access) -> Response:
    """trimStream: by maxlen or minid."""
    stream = access.names["stream"]
    body, _ = await read_json(request, TrimRequest)
    trim = _trim(body.maxlen, body.minid, body.approximate)
    result = await context_of(request).store.trim(stream, trim)
    return json_response({"stream": stream, "length": result.length, "trimmed": result.trimmed})


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
    return json_response(_group_json(group), 201)


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
    document = {
        "stream": stream,
        "group": group,
        "entries": [_delivered_json(entry) for entry in entries],
    }
    return json_response(document)


async def ack_entries(request: Request, access: Access) -> Response:
    """ackEntries: remove ids from the pending list."""
    stream, group = access.names["stream"], access.names["group"]
    body, _ = await read_json(request, AckRequest)
    acked = await context_of(request).store.ack(stream, group, [item.root for item in body.ids])
    return json_response({"acked": acked})


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
    document = {
        "stream": stream,
        "group": group,
        "next_start_id": result.next_start_id,
        "entries": [_delivered_json(entry) for entry in result.entries],
        "deleted_ids": result.deleted_ids,
        "dead_lettered_ids": result.dead_lettered_ids,
    }
    return json_response(document)


async def list_pending(request: Request, access: Access) -> Response:
    """listPending: who holds which pending entry."""
    stream, group = access.names["stream"], access.names["group"]
    count = query_int(request, "count", default=100, minimum=1, maximum=1000)
    pending = await context_of(request).store.pending(stream, group, count=count)
    document = {
        "stream": stream,
        "group": group,
        "pending": [
            {
                "id": item.id,
                "consumer": item.consumer,
                "idle_ms": item.idle_ms,
                "delivery_count": item.delivery_count,
            }
            for item in pending
        ],
    }
    return json_response(document)


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
