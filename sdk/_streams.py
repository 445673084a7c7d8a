"""Streams: publishing entries, reading them, trimming, and consumer groups.

`Streams` and `AsyncStreams` are twins: each method sends the call `StreamCalls` builds
(sdk/_stream_calls.py) and returns its result, so only the signatures and docstrings are written
twice, and tests/sdk/test_exported_members.py holds the twins to the same surface.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

from ._batching import AsyncCoalescer, SyncCoalescer
from ._codec import Codec
from ._durations import Duration
from ._http import AsyncTransport, SyncTransport
from ._pages import aiterate_pages, iterate_pages
from ._stream import Stream
from ._stream_calls import EntryOptions, StreamCalls, append_one

if TYPE_CHECKING:
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

__all__ = ["AsyncStreams", "Streams"]


class Streams:
    """Stream operations of a `Client` (`client.streams`)."""

    def __init__(
        self,
        transport: SyncTransport,
        *,
        codec: Codec,
        batched: SyncCoalescer[EntryOptions, Any, str] | None = None,
    ) -> None:
        self._transport = transport
        self._calls = StreamCalls(codec)
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
        options = self._calls.options(
            stream, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=nomkstream
        )
        encoded = self._calls.encode(options, body)
        if self._batched is not None and idempotency_key is None:
            return self._batched.submit(options, encoded)
        return self._transport.send(append_one(options, encoded, idempotency_key=idempotency_key))

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
        options = self._calls.options(
            stream, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=nomkstream
        )
        call = self._calls.publish_many(options, bodies, idempotency_key=idempotency_key)
        return [] if call is None else self._transport.send(call)

    def list(self, *, prefix: str | None = None, limit: int = 100) -> Iterator[StreamSummary]:
        """Every stream (those whose names start with `prefix` when given) that the token may
        see, by name. Pages of up to `limit` streams are fetched as the iterator reaches them;
        bad arguments raise here, before any request.
        """
        return iterate_pages(self._transport.send, partial(StreamCalls.list_page, prefix, limit))

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
        batched: AsyncCoalescer[EntryOptions, Any, str] | None = None,
    ) -> None:
        self._transport = transport
        self._calls = StreamCalls(codec)
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
        options = self._calls.options(
            stream, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=nomkstream
        )
        encoded = self._calls.encode(options, body)
        if self._batched is not None and idempotency_key is None:
            return await self._batched.submit(options, encoded)
        return await self._transport.send(
            append_one(options, encoded, idempotency_key=idempotency_key)
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
        options = self._calls.options(
            stream, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=nomkstream
        )
        call = self._calls.publish_many(options, bodies, idempotency_key=idempotency_key)
        return [] if call is None else await self._transport.send(call)

    def list(self, *, prefix: str | None = None, limit: int = 100) -> AsyncIterator[StreamSummary]:
        """Every stream the token may see, by name, for `async for`; see `Streams.list`."""
        return aiterate_pages(self._transport.send, partial(StreamCalls.list_page, prefix, limit))

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
