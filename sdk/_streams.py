"""Streams: publishing entries, reading them, trimming, and consumer groups."""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from . import _endpoints
from ._batching import AsyncCoalescer, Batching, SyncCoalescer
from ._checks import check_count, check_group_name
from ._codec import Codec, encode_body
from ._durations import Duration, to_millis
from ._exceptions import InvalidArgumentError
from ._http import (
    AsyncTransport,
    Call,
    SyncTransport,
    make_call,
    make_publish_call,
    optional,
    resolve_idempotency_key,
)
from ._limits import BATCH_MAX, COUNT_MAX, MIN_IDLE_MS_MAX, WAIT_MS_MAX
from ._stream import Stream, as_stream, check_max_deliveries, check_maxlen

if TYPE_CHECKING:
    from generated.models import (
        ClaimResult as GeneratedClaimResult,
        DeliveredEntry as GeneratedDeliveredEntry,
        GroupInfo as GeneratedGroupInfo,
        StreamInfo as GeneratedStreamInfo,
    )
    from generated.types import Unset

    from ._types import (
        ClaimResult,
        DeliveredEntry,
        Entry,
        GroupInfo,
        PendingEntry,
        StreamInfo,
        TrimResult,
    )

__all__ = ["AsyncStreams", "Streams"]


@dataclass(frozen=True, slots=True)
class StreamBatchKey:
    """What single publishes must share to go out in one batch: the stream, how it is trimmed,
    whether it may be created, and the codec (the very object) that encoded the bodies.
    """

    stream: str
    # The trim options as the generated request models take them.
    maxlen: int | Unset
    minid: str | Unset
    approximate: bool | Unset
    nomkstream: bool
    codec: Codec = field(compare=False, hash=False)
    codec_id: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "codec_id", id(self.codec))


class _StreamCalls:
    """Builds every stream call; shared by `Streams` and `AsyncStreams`."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec

    def publish(
        self,
        stream: str | Stream,
        body: Any,
        *,
        maxlen: int | None,
        approximate: bool,
        minid: str | None,
        nomkstream: bool,
        idempotency_key: str | None,
    ) -> Call[str]:
        key, encoded = self.batch_item(
            stream,
            body,
            maxlen=maxlen,
            approximate=approximate,
            minid=minid,
            nomkstream=nomkstream,
        )
        return _append_one(key, encoded, idempotency_key=idempotency_key)

    def publish_many(
        self,
        stream: str | Stream,
        bodies: Iterable[Any],
        *,
        maxlen: int | None,
        approximate: bool,
        minid: str | None,
        nomkstream: bool,
        idempotency_key: str | None,
    ) -> Call[builtins.list[str]] | None:
        batch = self._batch_key(stream, maxlen, approximate, minid, nomkstream)
        key = resolve_idempotency_key(idempotency_key)
        items = list(bodies)
        if not items:
            return None
        check_count(len(items), name="number of bodies", minimum=1, maximum=BATCH_MAX)
        encoded = [encode_body(batch.codec, item, target=batch.stream) for item in items]
        return _append_batch(batch, encoded, idempotency_key=key)

    def batch_item(
        self,
        stream: str | Stream,
        body: Any,
        *,
        maxlen: int | None,
        approximate: bool,
        minid: str | None,
        nomkstream: bool,
    ) -> tuple[StreamBatchKey, Any]:
        """A single publish checked and encoded now, and the batch it may join: publishes with
        the same stream, trim options and codec.
        """
        key = self._batch_key(stream, maxlen, approximate, minid, nomkstream)
        return key, encode_body(key.codec, body, target=key.stream)

    def _batch_key(
        self,
        stream: str | Stream,
        maxlen: int | None,
        approximate: bool,
        minid: str | None,
        nomkstream: bool,
    ) -> StreamBatchKey:
        from generated.types import UNSET

        definition = as_stream(stream)
        cap = check_maxlen(maxlen) if maxlen is not None else definition.maxlen
        trims = cap is not None or minid is not None
        # Explicit UNSETs: the generated models default `approximate` to True and would send it
        # even when nothing is trimmed.
        return StreamBatchKey(
            definition.name,
            UNSET if cap is None else cap,
            UNSET if minid is None else minid,
            approximate if trims else UNSET,
            nomkstream,
            definition.codec or self.codec,
        )

    def info(self, stream: str | Stream) -> Call[StreamInfo]:
        return make_call(_endpoints.get_stream, _stream_info, as_stream(stream).name)

    def length(self, stream: str | Stream) -> Call[int]:
        return make_call(
            _endpoints.get_stream, lambda info: int(info.length), as_stream(stream).name
        )

    def range(
        self, stream: str | Stream, *, start: str, end: str, count: int, reverse: bool
    ) -> Call[builtins.list[Entry]]:
        from ._types import Entry

        definition = as_stream(stream)
        codec = definition.codec or self.codec
        return make_call(
            _endpoints.range_entries,
            lambda result: [Entry(id=e.id, body=codec.decode(e.body)) for e in result.entries],
            definition.name,
            start=start,
            end=end,
            count=check_count(count, name="count", minimum=1, maximum=COUNT_MAX),
            reverse=reverse,
        )

    def trim(
        self, stream: str | Stream, *, maxlen: int | None, minid: str | None, approximate: bool
    ) -> Call[TrimResult]:
        from generated.models import TrimRequest
        from generated.types import UNSET

        from ._types import TrimResult

        if (maxlen is None) == (minid is None):
            raise InvalidArgumentError("trim needs exactly one of maxlen and minid")
        request = TrimRequest(
            maxlen=check_maxlen(maxlen) if maxlen is not None else UNSET,
            minid=minid if minid is not None else UNSET,
            approximate=approximate,
        )
        return make_call(
            _endpoints.trim_stream,
            lambda result: TrimResult(length=result.length, trimmed=result.trimmed),
            as_stream(stream).name,
            body=request,
        )

    def delete(self, stream: str | Stream) -> Call[None]:
        return make_call(_endpoints.delete_stream, _nothing, as_stream(stream).name)

    def create_group(
        self,
        stream: str | Stream,
        group: str | None,
        *,
        start_id: str,
        mkstream: bool,
        max_deliveries: int | None,
    ) -> Call[GroupInfo]:
        from generated.models import CreateGroupRequest
        from generated.types import UNSET

        definition = as_stream(stream)
        request = CreateGroupRequest(
            group=_group(definition, group),
            start_id=start_id,
            mkstream=mkstream,
            max_deliveries=UNSET
            if max_deliveries is None
            else check_max_deliveries(max_deliveries, stream=definition.name),
        )
        return make_call(_endpoints.create_group, _group_info, definition.name, body=request)

    def delete_group(self, stream: str | Stream, group: str | None) -> Call[None]:
        definition = as_stream(stream)
        return make_call(
            _endpoints.delete_group, _nothing, definition.name, _group(definition, group)
        )

    def read_group(
        self,
        stream: str | Stream,
        group: str | None,
        *,
        consumer: str,
        count: int,
        wait: Duration,
    ) -> Call[builtins.list[DeliveredEntry]]:
        from generated.models import ReadGroupRequest

        definition = as_stream(stream)
        codec = definition.codec or self.codec
        request = ReadGroupRequest(
            consumer=check_group_name(consumer, what="consumer"),
            count=check_count(count, name="count", minimum=1, maximum=COUNT_MAX),
            wait_ms=to_millis(wait, name="wait", minimum=0, maximum=WAIT_MS_MAX),
        )
        return make_call(
            _endpoints.read_group,
            lambda result: [_delivered(entry, codec) for entry in result.entries],
            definition.name,
            _group(definition, group),
            body=request,
        )

    def ack(self, stream: str | Stream, group: str | None, ids: Iterable[str]) -> Call[int] | None:
        from generated.models import AckRequest

        definition = as_stream(stream)
        id_list = list(ids)
        if not id_list:
            return None
        check_count(len(id_list), name="number of ids", minimum=1, maximum=COUNT_MAX)
        return make_call(
            _endpoints.ack_entries,
            lambda result: int(result.acked),
            definition.name,
            _group(definition, group),
            body=AckRequest(ids=id_list),
        )

    def claim(
        self,
        stream: str | Stream,
        group: str | None,
        *,
        consumer: str,
        min_idle: Duration,
        count: int,
        start_id: str,
    ) -> Call[ClaimResult]:
        from generated.models import ClaimRequest

        definition = as_stream(stream)
        codec = definition.codec or self.codec
        request = ClaimRequest(
            consumer=check_group_name(consumer, what="consumer"),
            min_idle_ms=to_millis(min_idle, name="min_idle", minimum=0, maximum=MIN_IDLE_MS_MAX),
            count=check_count(count, name="count", minimum=1, maximum=COUNT_MAX),
            start_id=start_id,
        )
        return make_call(
            _endpoints.claim_entries,
            lambda result: _claim_result(result, codec),
            definition.name,
            _group(definition, group),
            body=request,
        )

    def pending(
        self, stream: str | Stream, group: str | None, *, count: int
    ) -> Call[builtins.list[PendingEntry]]:
        from ._types import PendingEntry

        definition = as_stream(stream)
        return make_call(
            _endpoints.list_pending,
            lambda result: [
                PendingEntry(
                    id=p.id,
                    consumer=p.consumer,
                    idle=timedelta(milliseconds=p.idle_ms),
                    delivery_count=p.delivery_count,
                )
                for p in result.pending
            ],
            definition.name,
            _group(definition, group),
            count=check_count(count, name="count", minimum=1, maximum=COUNT_MAX),
        )


class Streams:
    """Stream operations of a `Client` (`client.streams`)."""

    def __init__(
        self,
        transport: SyncTransport,
        *,
        codec: Codec,
        batched: SyncCoalescer[StreamBatchKey, Any, str] | None = None,
    ) -> None:
        self._transport = transport
        self._calls = _StreamCalls(codec)
        self._batched = batched

    def publish(
        self,
        stream: str | Stream,
        body: Any,
        *,
        maxlen: int | None = None,
        approximate: bool = True,
        minid: str | None = None,
        nomkstream: bool = False,
        idempotency_key: str | None = None,
    ) -> str:
        """Append `body` to `stream` and return the new entry id; see `Client.publish`."""
        if self._batched is not None and idempotency_key is None:
            key, encoded = self._calls.batch_item(
                stream,
                body,
                maxlen=maxlen,
                approximate=approximate,
                minid=minid,
                nomkstream=nomkstream,
            )
            return self._batched.submit(key, encoded)
        return self._transport.send(
            self._calls.publish(
                stream,
                body,
                maxlen=maxlen,
                approximate=approximate,
                minid=minid,
                nomkstream=nomkstream,
                idempotency_key=idempotency_key,
            )
        )

    def publish_many(
        self,
        stream: str | Stream,
        bodies: Iterable[Any],
        *,
        maxlen: int | None = None,
        approximate: bool = True,
        minid: str | None = None,
        nomkstream: bool = False,
        idempotency_key: str | None = None,
    ) -> builtins.list[str]:
        """Append every body in one request, all or none; return their ids in order."""
        call = self._calls.publish_many(
            stream,
            bodies,
            maxlen=maxlen,
            approximate=approximate,
            minid=minid,
            nomkstream=nomkstream,
            idempotency_key=idempotency_key,
        )
        return [] if call is None else self._transport.send(call)

    def length(self, stream: str | Stream) -> int:
        """How many entries `stream` holds; NotFoundError if it does not exist."""
        return self._transport.send(self._calls.length(stream))

    def info(self, stream: str | Stream) -> StreamInfo:
        """The stream's length, first and last ids, and consumer groups."""
        return self._transport.send(self._calls.info(stream))

    def range(
        self,
        stream: str | Stream,
        *,
        start: str = "-",
        end: str = "+",
        count: int = 100,
        reverse: bool = False,
    ) -> builtins.list[Entry]:
        """Entries from `start` to `end` (ids; `-` and `+` are the ends), without any group."""
        return self._transport.send(
            self._calls.range(stream, start=start, end=end, count=count, reverse=reverse)
        )

    def trim(
        self,
        stream: str | Stream,
        *,
        maxlen: int | None = None,
        minid: str | None = None,
        approximate: bool = True,
    ) -> TrimResult:
        """Trim to about `maxlen` entries (exactly if not approximate), or below id `minid`."""
        return self._transport.send(
            self._calls.trim(stream, maxlen=maxlen, minid=minid, approximate=approximate)
        )

    def delete(self, stream: str | Stream) -> None:
        """Delete the stream with its entries and consumer groups."""
        self._transport.send(self._calls.delete(stream))

    def create_group(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        start_id: str = "$",
        mkstream: bool = False,
        max_deliveries: int | None = None,
    ) -> GroupInfo:
        """Create a consumer group (default: the Stream's) delivering entries after `start_id`;
        with `max_deliveries`, an entry delivered that often goes to `<stream>.dead` instead.
        """
        return self._transport.send(
            self._calls.create_group(
                stream, group, start_id=start_id, mkstream=mkstream, max_deliveries=max_deliveries
            )
        )

    def delete_group(self, stream: str | Stream, group: str | None = None) -> None:
        """Delete a consumer group and forget its pending entries."""
        self._transport.send(self._calls.delete_group(stream, group))

    def read_group(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        consumer: str,
        count: int = 10,
        wait: Duration = 0,
    ) -> builtins.list[DeliveredEntry]:
        """Deliver up to `count` new entries to `consumer`, waiting up to `wait` for one."""
        return self._transport.send(
            self._calls.read_group(stream, group, consumer=consumer, count=count, wait=wait)
        )

    def ack(self, stream: str | Stream, group: str | None, ids: Iterable[str]) -> int:
        """Acknowledge entries; returns how many were pending."""
        call = self._calls.ack(stream, group, ids)
        return 0 if call is None else self._transport.send(call)

    def claim(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        consumer: str,
        min_idle: Duration,
        count: int = 100,
        start_id: str = "0-0",
    ) -> ClaimResult:
        """Take over entries pending longer than `min_idle`; trimmed ones come back as deleted."""
        return self._transport.send(
            self._calls.claim(
                stream, group, consumer=consumer, min_idle=min_idle, count=count, start_id=start_id
            )
        )

    def pending(
        self, stream: str | Stream, group: str | None = None, *, count: int = 100
    ) -> builtins.list[PendingEntry]:
        """The group's pending entries: who holds each, how long, how often delivered."""
        return self._transport.send(self._calls.pending(stream, group, count=count))


class AsyncStreams:
    """Stream operations of an `AsyncClient` (`aclient.streams`)."""

    def __init__(
        self,
        transport: AsyncTransport,
        *,
        codec: Codec,
        batched: AsyncCoalescer[StreamBatchKey, Any, str] | None = None,
    ) -> None:
        self._transport = transport
        self._calls = _StreamCalls(codec)
        self._batched = batched

    async def publish(
        self,
        stream: str | Stream,
        body: Any,
        *,
        maxlen: int | None = None,
        approximate: bool = True,
        minid: str | None = None,
        nomkstream: bool = False,
        idempotency_key: str | None = None,
    ) -> str:
        """Append `body` to `stream` and return the new entry id; see `AsyncClient.publish`."""
        if self._batched is not None and idempotency_key is None:
            key, encoded = self._calls.batch_item(
                stream,
                body,
                maxlen=maxlen,
                approximate=approximate,
                minid=minid,
                nomkstream=nomkstream,
            )
            return await self._batched.submit(key, encoded)
        return await self._transport.send(
            self._calls.publish(
                stream,
                body,
                maxlen=maxlen,
                approximate=approximate,
                minid=minid,
                nomkstream=nomkstream,
                idempotency_key=idempotency_key,
            )
        )

    async def publish_many(
        self,
        stream: str | Stream,
        bodies: Iterable[Any],
        *,
        maxlen: int | None = None,
        approximate: bool = True,
        minid: str | None = None,
        nomkstream: bool = False,
        idempotency_key: str | None = None,
    ) -> builtins.list[str]:
        """Append every body in one request, all or none; return their ids in order."""
        call = self._calls.publish_many(
            stream,
            bodies,
            maxlen=maxlen,
            approximate=approximate,
            minid=minid,
            nomkstream=nomkstream,
            idempotency_key=idempotency_key,
        )
        return [] if call is None else await self._transport.send(call)

    async def length(self, stream: str | Stream) -> int:
        """How many entries `stream` holds; NotFoundError if it does not exist."""
        return await self._transport.send(self._calls.length(stream))

    async def info(self, stream: str | Stream) -> StreamInfo:
        """The stream's length, first and last ids, and consumer groups."""
        return await self._transport.send(self._calls.info(stream))

    async def range(
        self,
        stream: str | Stream,
        *,
        start: str = "-",
        end: str = "+",
        count: int = 100,
        reverse: bool = False,
    ) -> builtins.list[Entry]:
        """Entries from `start` to `end` (ids; `-` and `+` are the ends), without any group."""
        return await self._transport.send(
            self._calls.range(stream, start=start, end=end, count=count, reverse=reverse)
        )

    async def trim(
        self,
        stream: str | Stream,
        *,
        maxlen: int | None = None,
        minid: str | None = None,
        approximate: bool = True,
    ) -> TrimResult:
        """Trim to about `maxlen` entries (exactly if not approximate), or below id `minid`."""
        return await self._transport.send(
            self._calls.trim(stream, maxlen=maxlen, minid=minid, approximate=approximate)
        )

    async def delete(self, stream: str | Stream) -> None:
        """Delete the stream with its entries and consumer groups."""
        await self._transport.send(self._calls.delete(stream))

    async def create_group(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        start_id: str = "$",
        mkstream: bool = False,
        max_deliveries: int | None = None,
    ) -> GroupInfo:
        """Create a consumer group (default: the Stream's) delivering entries after `start_id`;
        with `max_deliveries`, an entry delivered that often goes to `<stream>.dead` instead.
        """
        return await self._transport.send(
            self._calls.create_group(
                stream, group, start_id=start_id, mkstream=mkstream, max_deliveries=max_deliveries
            )
        )

    async def delete_group(self, stream: str | Stream, group: str | None = None) -> None:
        """Delete a consumer group and forget its pending entries."""
        await self._transport.send(self._calls.delete_group(stream, group))

    async def read_group(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        consumer: str,
        count: int = 10,
        wait: Duration = 0,
    ) -> builtins.list[DeliveredEntry]:
        """Deliver up to `count` new entries to `consumer`, waiting up to `wait` for one."""
        return await self._transport.send(
            self._calls.read_group(stream, group, consumer=consumer, count=count, wait=wait)
        )

    async def ack(self, stream: str | Stream, group: str | None, ids: Iterable[str]) -> int:
        """Acknowledge entries; returns how many were pending."""
        call = self._calls.ack(stream, group, ids)
        return 0 if call is None else await self._transport.send(call)

    async def claim(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        consumer: str,
        min_idle: Duration,
        count: int = 100,
        start_id: str = "0-0",
    ) -> ClaimResult:
        """Take over entries pending longer than `min_idle`; trimmed ones come back as deleted."""
        return await self._transport.send(
            self._calls.claim(
                stream, group, consumer=consumer, min_idle=min_idle, count=count, start_id=start_id
            )
        )

    async def pending(
        self, stream: str | Stream, group: str | None = None, *, count: int = 100
    ) -> builtins.list[PendingEntry]:
        """The group's pending entries: who holds each, how long, how often delivered."""
        return await self._transport.send(self._calls.pending(stream, group, count=count))


def _group(definition: Stream, group: str | None) -> str:
    name = group if group is not None else definition.group
    if name is None:
        raise InvalidArgumentError(
            f"no consumer group for stream {definition.name!r}: "
            "pass group= or use a Stream with a group"
        )
    return check_group_name(name, what="consumer group")


def _nothing(_: object) -> None:
    return None


def _stream_info(info: GeneratedStreamInfo) -> StreamInfo:
    from ._types import StreamInfo

    return StreamInfo(
        name=info.stream,
        length=info.length,
        first_id=optional(info.first_id),
        last_id=optional(info.last_id),
        groups=[_group_info(group) for group in info.groups],
    )


def _group_info(group: GeneratedGroupInfo) -> GroupInfo:
    from ._types import GroupInfo

    return GroupInfo(
        group=group.group,
        consumers=group.consumers,
        pending=group.pending,
        last_delivered_id=group.last_delivered_id,
        max_deliveries=optional(group.max_deliveries),
    )


def _delivered(entry: GeneratedDeliveredEntry, codec: Codec) -> DeliveredEntry:
    from ._types import DeliveredEntry

    return DeliveredEntry(
        id=entry.id, body=codec.decode(entry.body), delivery_count=entry.delivery_count
    )


def _claim_result(result: GeneratedClaimResult, codec: Codec) -> ClaimResult:
    from ._types import ClaimResult

    return ClaimResult(
        entries=[_delivered(entry, codec) for entry in result.entries],
        deleted_ids=list(result.deleted_ids),
        next_start_id=result.next_start_id,
        dead_lettered_ids=list(optional(result.dead_lettered_ids) or []),
    )


def _append_batch(
    key: StreamBatchKey, bodies: builtins.list[Any], *, idempotency_key: str | None = None
) -> Call[builtins.list[str]]:
    """One appendEntries of encoded bodies, under the caller's Idempotency-Key or a fresh one."""
    from generated.models import AppendEntriesRequest, BatchEntry
    from generated.types import UNSET

    request = AppendEntriesRequest(
        entries=[BatchEntry(body=body) for body in bodies],
        maxlen=key.maxlen,
        approximate=key.approximate,
        minid=key.minid,
        nomkstream=key.nomkstream or UNSET,
    )
    return make_publish_call(
        _endpoints.append_entries,
        lambda result: [str(entry_id) for entry_id in result.ids],
        key.stream,
        key.codec,
        key.stream,
        body=request,
        idempotency_key=resolve_idempotency_key(idempotency_key),
    )


def _append_one(key: StreamBatchKey, body: Any, *, idempotency_key: str | None = None) -> Call[str]:
    """One appendEntry of an encoded body, under the caller's Idempotency-Key or a fresh one."""
    from generated.models import AppendEntryRequest
    from generated.types import UNSET

    request = AppendEntryRequest(
        body=body,
        maxlen=key.maxlen,
        approximate=key.approximate,
        minid=key.minid,
        nomkstream=key.nomkstream or UNSET,
    )
    return make_publish_call(
        _endpoints.append_entry,
        lambda result: str(result.id),
        key.stream,
        key.codec,
        key.stream,
        body=request,
        idempotency_key=resolve_idempotency_key(idempotency_key),
    )


def stream_batcher(
    transport: SyncTransport, batching: Batching
) -> SyncCoalescer[StreamBatchKey, Any, str]:
    """A `Client`'s batching of single stream publishes."""
    return SyncCoalescer(
        batching,
        send_batch=lambda key, bodies: transport.send(_append_batch(key, bodies)),
        send_one=lambda key, body: transport.send(_append_one(key, body)),
    )


def async_stream_batcher(
    transport: AsyncTransport, batching: Batching
) -> AsyncCoalescer[StreamBatchKey, Any, str]:
    """An `AsyncClient`'s batching of single stream publishes."""

    async def send_batch(key: StreamBatchKey, bodies: builtins.list[Any]) -> builtins.list[str]:
        return await transport.send(_append_batch(key, bodies))

    async def send_one(key: StreamBatchKey, body: Any) -> str:
        return await transport.send(_append_one(key, body))

    return AsyncCoalescer(batching, send_batch=send_batch, send_one=send_one)
