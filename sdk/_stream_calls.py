"""Stream calls, built once for `Streams` and `AsyncStreams`: every operation's request plan
(a `Call`) and how its answer is read, the resolved options of a publish, and the batching of
single publishes. The two resource classes only send what is built here.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from . import _endpoints
from ._batching import (
    AsyncBackgroundBatcher,
    AsyncCoalescer,
    BackgroundBatcher,
    Batching,
    SyncCoalescer,
)
from ._checks import check_count, check_group_name, check_name_prefix
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
from ._pages import Page
from ._stream import Stream, as_stream, check_max_deliveries, check_maxlen

if TYPE_CHECKING:
    from generated.models import (
        ClaimResult as GeneratedClaimResult,
        DeliveredEntry as GeneratedDeliveredEntry,
        GroupInfo as GeneratedGroupInfo,
        StreamInfo as GeneratedStreamInfo,
        StreamList as GeneratedStreamList,
    )
    from generated.types import Unset

    from ._types import (
        ClaimResult,
        DeliveredEntry,
        Entry,
        GroupInfo,
        PendingEntry,
        StreamInfo,
        StreamSummary,
        TrimResult,
    )

__all__ = [
    "EntryOptions",
    "StreamCalls",
    "append_one",
    "async_stream_batcher",
    "async_stream_sender",
    "stream_batcher",
    "stream_sender",
]


@dataclass(frozen=True, slots=True)
class EntryOptions:
    """A stream publish's options, resolved once per call from its keywords (`maxlen`,
    `approximate`, `minid`, `nomkstream`) and the `Stream`: the stream, how it is trimmed, whether
    it may be created, and the codec (the very object) that encodes the bodies. Single publishes
    with equal options may go out in one batch, so this is also their batch key.
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


class StreamCalls:
    """Builds every stream call; shared by `Streams` and `AsyncStreams`."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec

    def options(
        self,
        stream: str | Stream,
        *,
        maxlen: int | None,
        approximate: bool,
        minid: str | None,
        nomkstream: bool,
    ) -> EntryOptions:
        """The publish keywords checked and resolved against the `Stream`'s own settings; the one
        place they are read.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `maxlen` is not between 0 and 1000000000.
        """
        from generated.types import UNSET

        definition = as_stream(stream)
        cap = check_maxlen(maxlen) if maxlen is not None else definition.maxlen
        trims = cap is not None or minid is not None
        # Explicit UNSETs: the generated models default `approximate` to True and would send it
        # even when nothing is trimmed.
        return EntryOptions(
            definition.name,
            UNSET if cap is None else cap,
            UNSET if minid is None else minid,
            approximate if trims else UNSET,
            nomkstream,
            definition.codec or self.codec,
        )

    @staticmethod
    def encode(options: EntryOptions, body: Any) -> Any:
        """A single publish's body, encoded now so that a bad one fails before anything is sent
        (a JsonCodec body stays as it is: making its call encodes it, and fails the same way).

        Raises:
            PublishError: a custom codec cannot encode `body`; `__cause__` is its error.
        """
        return encode_body(options.codec, body, target=options.stream)

    @staticmethod
    def publish_many(
        options: EntryOptions, bodies: Iterable[Any], *, idempotency_key: str | None
    ) -> Call[builtins.list[str]] | None:
        """One appendEntries of every body, or None when there is none.

        Raises:
            InvalidArgumentError: more than 1000 bodies, or an invalid `idempotency_key`.
            PublishError: a body cannot be encoded.
        """
        key = resolve_idempotency_key(idempotency_key)
        items = list(bodies)
        if not items:
            return None
        check_count(len(items), name="number of bodies", minimum=1, maximum=BATCH_MAX)
        encoded = [encode_body(options.codec, item, target=options.stream) for item in items]
        return _append_batch(options, encoded, idempotency_key=key)

    @staticmethod
    def list_page(prefix: str | None, limit: int, cursor: str | None) -> Call[Page[StreamSummary]]:
        """One listStreams page: streams named from ``prefix``, ``limit`` at most, from ``cursor``.

        Raises:
            InvalidArgumentError: `prefix` or `limit` is invalid.
        """
        from generated.types import UNSET

        return make_call(
            _endpoints.list_streams,
            _stream_page,
            prefix=UNSET if prefix is None else check_name_prefix(prefix),
            limit=check_count(limit, name="limit", minimum=1, maximum=COUNT_MAX),
            cursor=UNSET if cursor is None else cursor,
        )

    def info(self, stream: str | Stream) -> Call[StreamInfo]:
        """One getStream call, read as a StreamInfo.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
        """
        return make_call(_endpoints.get_stream, _stream_info, as_stream(stream).name)

    def length(self, stream: str | Stream) -> Call[int]:
        """One getStream call, read as the stream's length.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
        """
        return make_call(
            _endpoints.get_stream, lambda info: int(info.length), as_stream(stream).name
        )

    def range(
        self, stream: str | Stream, *, start: str, end: str, count: int, reverse: bool
    ) -> Call[builtins.list[Entry]]:
        """One rangeEntries call, its bodies decoded by the Stream's codec or the client's.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `count` is not between 1 and 1000.
        """
        from ._types import Entry

        definition = as_stream(stream)
        codec = definition.codec or self.codec
        return make_call(
            _endpoints.range_entries,
            lambda result: [
                Entry(id=e.id, body=codec.decode(e.body), traceparent=optional(e.traceparent))
                for e in result.entries
            ],
            definition.name,
            start=start,
            end=end,
            count=check_count(count, name="count", minimum=1, maximum=COUNT_MAX),
            reverse=reverse,
        )

    def trim(
        self, stream: str | Stream, *, maxlen: int | None, minid: str | None, approximate: bool
    ) -> Call[TrimResult]:
        """One trimStream call.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: not exactly one of `maxlen` and `minid`, or a bad `maxlen`.
        """
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
        """One deleteStream call.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
        """
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
        """One createGroup call of `group`, or of the Stream's group.

        Raises:
            InvalidNameError: the stream or group name is invalid, or, with `max_deliveries`,
                the stream's name leaves no room for `.dead`.
            InvalidArgumentError: no `group` is given and the Stream has none, or a bad
                `max_deliveries`.
        """
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
        """One deleteGroup call.

        Raises:
            InvalidNameError: the stream or group name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none.
        """
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
        """One readGroup call, its bodies decoded.

        Raises:
            InvalidNameError: the stream, group or consumer name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none, or a bad `count`.
            InvalidDurationError: `wait` is malformed or out of range.
        """
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
        """One ackEntries call, or None when there are no ids.

        Raises:
            InvalidNameError: the stream or group name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none, or more than
                1000 ids.
        """
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
        """One claimEntries call, its bodies decoded.

        Raises:
            InvalidNameError: the stream, group or consumer name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none, or a bad `count`.
            InvalidDurationError: `min_idle` is malformed or out of range.
        """
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
        """One listPending call.

        Raises:
            InvalidNameError: the stream or group name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none, or a bad `count`.
        """
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


def _stream_page(result: GeneratedStreamList) -> Page[StreamSummary]:
    from ._types import StreamSummary

    return Page(
        [
            StreamSummary(
                name=summary.stream,
                length=summary.length,
                first_id=optional(summary.first_id),
                last_id=optional(summary.last_id),
                group_count=summary.group_count,
            )
            for summary in result.streams
        ],
        result.next_cursor,
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
        id=entry.id,
        body=codec.decode(entry.body),
        delivery_count=entry.delivery_count,
        traceparent=optional(entry.traceparent),
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
    options: EntryOptions, bodies: builtins.list[Any], *, idempotency_key: str | None = None
) -> Call[builtins.list[str]]:
    """One appendEntries of encoded bodies, under the caller's Idempotency-Key or a fresh one."""
    from generated.models import AppendEntriesRequest, BatchEntry
    from generated.types import UNSET

    request = AppendEntriesRequest(
        entries=[BatchEntry(body=body) for body in bodies],
        maxlen=options.maxlen,
        approximate=options.approximate,
        minid=options.minid,
        nomkstream=options.nomkstream or UNSET,
    )
    return make_publish_call(
        _endpoints.append_entries,
        lambda result: [str(entry_id) for entry_id in result.ids],
        options.stream,
        options.codec,
        options.stream,
        body=request,
        idempotency_key=resolve_idempotency_key(idempotency_key),
    )


def append_one(
    options: EntryOptions, body: Any, *, idempotency_key: str | None = None
) -> Call[str]:
    """One appendEntry of an encoded body, under the caller's Idempotency-Key or a fresh one.

    Raises:
        InvalidArgumentError: `idempotency_key` is invalid.
        PublishError: the body cannot be encoded.
    """
    from generated.models import AppendEntryRequest
    from generated.types import UNSET

    request = AppendEntryRequest(
        body=body,
        maxlen=options.maxlen,
        approximate=options.approximate,
        minid=options.minid,
        nomkstream=options.nomkstream or UNSET,
    )
    return make_publish_call(
        _endpoints.append_entry,
        lambda result: str(result.id),
        options.stream,
        options.codec,
        options.stream,
        body=request,
        idempotency_key=resolve_idempotency_key(idempotency_key),
    )


def _check_entry(options: EntryOptions, body: Any) -> None:
    """Raise what appending `body` alone would raise before sending (it cannot be encoded)."""
    append_one(options, body)


class _EntrySends:
    """How a client's batchers send entries to a stream: many at once, or one alone."""

    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    def batch(self, options: EntryOptions, bodies: builtins.list[Any]) -> builtins.list[str]:
        return self._transport.send(_append_batch(options, bodies))

    def one(self, options: EntryOptions, body: Any) -> str:
        return self._transport.send(append_one(options, body))


class _AsyncEntrySends:
    """`_EntrySends` for an `AsyncClient`."""

    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def batch(self, options: EntryOptions, bodies: builtins.list[Any]) -> builtins.list[str]:
        return await self._transport.send(_append_batch(options, bodies))

    async def one(self, options: EntryOptions, body: Any) -> str:
        return await self._transport.send(append_one(options, body))


def stream_batcher(
    transport: SyncTransport, batching: Batching
) -> SyncCoalescer[EntryOptions, Any, str]:
    """A `Client`'s batching of single stream publishes."""
    sends = _EntrySends(transport)
    return SyncCoalescer(
        batching, send_batch=sends.batch, send_one=sends.one, check_one=_check_entry
    )


def stream_sender(transport: SyncTransport) -> BackgroundBatcher[EntryOptions, Any, str]:
    """A `Client`'s background sender of `publish_nowait` entries."""
    sends = _EntrySends(transport)
    return BackgroundBatcher(send_batch=sends.batch, send_one=sends.one, check_one=_check_entry)


def async_stream_sender(
    transport: AsyncTransport,
) -> AsyncBackgroundBatcher[EntryOptions, Any, str]:
    """An `AsyncClient`'s background sender of `publish_nowait` entries."""
    sends = _AsyncEntrySends(transport)
    return AsyncBackgroundBatcher(
        send_batch=sends.batch, send_one=sends.one, check_one=_check_entry
    )


def async_stream_batcher(
    transport: AsyncTransport, batching: Batching
) -> AsyncCoalescer[EntryOptions, Any, str]:
    """An `AsyncClient`'s batching of single stream publishes."""
    sends = _AsyncEntrySends(transport)
    return AsyncCoalescer(
        batching, send_batch=sends.batch, send_one=sends.one, check_one=_check_entry
    )
