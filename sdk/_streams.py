"""Streams: publishing entries, reading them, trimming, and consumer groups.

`Streams` and `AsyncStreams` are twins: each method sends the call `StreamCalls` builds
(sdk/_stream_calls.py) and returns its result, so only the signatures and docstrings are written
twice, and tests/sdk/test_exported_members.py holds the twins to the same surface.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, Unpack

from ._batching import AsyncBackgroundBatcher, AsyncCoalescer, BackgroundBatcher, SyncCoalescer
from ._codec import Codec
from ._config import RequestOptions
from ._durations import Duration
from ._http import AsyncTransport, SyncTransport
from ._keywords import suggests_keywords, takes_request_options
from ._pages import aiterate_pages, iterate_pages
from ._stream import Stream
from ._stream_calls import (
    EntryOptions,
    StreamCalls,
    append_one,
    async_stream_sender,
    stream_sender,
)

if TYPE_CHECKING:
    from asyncio import Future as AsyncFuture
    from concurrent.futures import Future

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
    """Stream operations of a `Client` (`client.streams`).

    Every method that sends a request, `publish_nowait` aside, also takes the per-call
    `timeout=`, `max_retries=` and `extra_headers=` (`RequestOptions`), which apply to its
    requests alone; a bad one is a ConfigurationError, raised before anything is sent.

    Each method names its own errors below. Invalid arguments raise InvalidArgumentError (or its
    subclasses InvalidNameError and InvalidDurationError) before any request is sent. Any request
    may also fail with AuthenticationError (401), PermissionDeniedError (403) and, once the
    client's retries are used up, RateLimitError (429), InternalServerError (5xx) or
    APIConnectionError (APITimeoutError among them); APIResponseValidationError when an answer
    cannot be read. The publishes raise each of these as a PublishError whose `__cause__` is the
    typed error.
    """

    def __init__(
        self,
        transport: SyncTransport,
        *,
        codec: Codec,
        batched: SyncCoalescer[EntryOptions, Any, str] | None = None,
        sender: BackgroundBatcher[EntryOptions, Any, str] | None = None,
    ) -> None:
        self._transport = transport
        self._calls = StreamCalls(codec)
        self._batched = batched
        self._sender = sender or stream_sender(transport)

    @takes_request_options
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
        **options: Unpack[RequestOptions],
    ) -> str:
        """Append `body` to `stream` and return the new entry id; see `Client.publish`.

        Returns:
            The new entry's id (`<ms>-<seq>`).

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `maxlen` or `idempotency_key` is invalid.
            PublishError: the body cannot be encoded, or the request failed; `__cause__` is the
                typed error, such as NotFoundError (`nomkstream` and no such stream),
                ConflictError (`idempotency_key` reused for another request),
                PayloadTooLargeError (a request over 1 MiB), UnprocessableEntityError (`minid`
                is not an entry id) or QuotaExceededError (the token's quota is used up).
        """
        entry = self._calls.options(
            stream, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=nomkstream
        )
        encoded = self._calls.encode(entry, body)
        if self._batched is not None and idempotency_key is None and not options:
            return self._batched.submit(entry, encoded)
        return self._transport.send(
            append_one(entry, encoded, idempotency_key=idempotency_key), options
        )

    @suggests_keywords
    def publish_nowait(
        self,
        stream: str | Stream,
        body: Any,
        *,
        maxlen: int | None = None,
        approximate: bool = True,
        minid: str | None = None,
        nomkstream: bool = False,
    ) -> Future[str]:
        """Append `body` without waiting for the service; see `Client.publish_nowait`.

        Returns:
            A `concurrent.futures.Future` of the new entry's id.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `maxlen` is invalid.
            PublishError: the body cannot be encoded (at once; the future gets the others).
        """
        options = self._calls.options(
            stream, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=nomkstream
        )
        return self._sender.submit(options, self._calls.encode(options, body))

    @takes_request_options
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
        **options: Unpack[RequestOptions],
    ) -> builtins.list[str]:
        """Append every body in one request, all or none; return their ids in order.

        Returns:
            The new entries' ids, in the order of `bodies`; `[]`, sending nothing, for none.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: more than 1000 bodies, or an invalid `maxlen` or
                `idempotency_key`.
            PublishError: as for `publish`; nothing was appended.
        """
        entry = self._calls.options(
            stream, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=nomkstream
        )
        call = self._calls.publish_many(entry, bodies, idempotency_key=idempotency_key)
        return [] if call is None else self._transport.send(call, options)

    @takes_request_options
    def list(
        self, *, prefix: str | None = None, limit: int = 100, **options: Unpack[RequestOptions]
    ) -> Iterator[StreamSummary]:
        """Every stream the token may see (named from `prefix`, when given), by name.

        Pages of up to `limit` streams are fetched as the iterator reaches them.

        Returns:
            An iterator of StreamSummary.

        Raises:
            InvalidArgumentError: `prefix` or `limit` (1 to 1000) is invalid; raised by this
                call, before any request.
            PermissionDeniedError: while iterating, when the token has no permission on any
                stream. Each page's request may fail as the class docstring says.
        """
        return iterate_pages(
            partial(self._transport.send, options=options),
            partial(StreamCalls.list_page, prefix, limit),
        )

    @takes_request_options
    def length(self, stream: str | Stream, **options: Unpack[RequestOptions]) -> int:
        """How many entries `stream` holds.

        Returns:
            The stream's length.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            NotFoundError: the stream does not exist.
        """
        return self._transport.send(self._calls.length(stream), options)

    @takes_request_options
    def info(self, stream: str | Stream, **options: Unpack[RequestOptions]) -> StreamInfo:
        """The stream's length, first and last ids, and consumer groups.

        Returns:
            A StreamInfo.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            NotFoundError: the stream does not exist.
        """
        return self._transport.send(self._calls.info(stream), options)

    @takes_request_options
    def range(
        self,
        stream: str | Stream,
        *,
        start: str = "-",
        end: str = "+",
        count: int = 100,
        reverse: bool = False,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[Entry]:
        """Entries from `start` to `end` (ids; `-` and `+` are the ends), without any group.

        At most `count` of them, oldest first, or newest first with `reverse`; nothing changes.

        Returns:
            A list of Entry; empty when no entry lies in the range.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `count` is not between 1 and 1000.
            NotFoundError: the stream does not exist.
            UnprocessableEntityError: `start` or `end` is not an entry id.
        """
        return self._transport.send(
            self._calls.range(stream, start=start, end=end, count=count, reverse=reverse), options
        )

    @takes_request_options
    def trim(
        self,
        stream: str | Stream,
        *,
        maxlen: int | None = None,
        minid: str | None = None,
        approximate: bool = True,
        **options: Unpack[RequestOptions],
    ) -> TrimResult:
        """Trim to about `maxlen` entries (exactly if not approximate), or below id `minid`.

        Returns:
            A TrimResult: the length left and how many entries were removed.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: not exactly one of `maxlen` and `minid`, or a bad `maxlen`.
            NotFoundError: the stream does not exist.
            UnprocessableEntityError: `minid` is not an entry id.
        """
        return self._transport.send(
            self._calls.trim(stream, maxlen=maxlen, minid=minid, approximate=approximate), options
        )

    @takes_request_options
    def delete(self, stream: str | Stream, **options: Unpack[RequestOptions]) -> None:
        """Delete the stream with its entries and consumer groups.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            NotFoundError: the stream does not exist.
        """
        self._transport.send(self._calls.delete(stream), options)

    @takes_request_options
    def create_group(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        start_id: str = "$",
        mkstream: bool = False,
        max_deliveries: int | None = None,
        **options: Unpack[RequestOptions],
    ) -> GroupInfo:
        """Create a consumer group (default: the Stream's) delivering entries after `start_id`.

        `start_id` is `$` (entries appended from now on), `0` (every entry kept) or an entry id.
        `mkstream` creates a missing stream, empty. With `max_deliveries`, an entry delivered
        that often goes to `<stream>.dead` instead (see `claim`).

        Returns:
            The new group's GroupInfo.

        Raises:
            InvalidNameError: the stream or group name is invalid, or, with `max_deliveries`,
                the stream's name leaves no room for `.dead`.
            InvalidArgumentError: no `group` is given and the Stream has none, or `max_deliveries`
                is not between 1 and 1000000.
            NotFoundError: the stream does not exist and `mkstream` is false.
            ConflictError: the stream has a group of that name already (`group_exists`).
            UnprocessableEntityError: `start_id` is not `$`, `0` or an entry id.
        """
        return self._transport.send(
            self._calls.create_group(
                stream, group, start_id=start_id, mkstream=mkstream, max_deliveries=max_deliveries
            ),
            options,
        )

    @takes_request_options
    def delete_group(
        self, stream: str | Stream, group: str | None = None, **options: Unpack[RequestOptions]
    ) -> None:
        """Delete a consumer group and forget its pending entries; the entries stay.

        Raises:
            InvalidNameError: the stream or group name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none.
            NotFoundError: the stream or the group does not exist.
        """
        self._transport.send(self._calls.delete_group(stream, group), options)

    @takes_request_options
    def read_group(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        consumer: str,
        count: int = 10,
        wait: Duration = 0,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[DeliveredEntry]:
        """Deliver up to `count` new entries to `consumer`, waiting up to `wait` for one.

        The entries stay pending for `consumer` until they are acknowledged (`ack`).

        Returns:
            A list of DeliveredEntry, oldest first; empty when none came within `wait`.

        Raises:
            InvalidNameError: the stream, group or consumer name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none, or `count` is not
                between 1 and 1000.
            InvalidDurationError: `wait` is malformed, negative or over 30 seconds.
            NotFoundError: the stream or the group does not exist.
        """
        return self._transport.send(
            self._calls.read_group(stream, group, consumer=consumer, count=count, wait=wait),
            options,
        )

    @takes_request_options
    def ack(
        self,
        stream: str | Stream,
        group: str | None,
        ids: Iterable[str],
        **options: Unpack[RequestOptions],
    ) -> int:
        """Acknowledge entries, removing them from the group's pending list.

        Returns:
            How many of `ids` were pending (the others are ignored); 0, sending nothing, for no
            ids.

        Raises:
            InvalidNameError: the stream or group name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none, or there are more
                than 1000 ids.
            NotFoundError: the stream or the group does not exist.
            UnprocessableEntityError: an id is not an entry id.
        """
        call = self._calls.ack(stream, group, ids)
        return 0 if call is None else self._transport.send(call, options)

    @takes_request_options
    def claim(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        consumer: str,
        min_idle: Duration,
        count: int = 100,
        start_id: str = "0-0",
        **options: Unpack[RequestOptions],
    ) -> ClaimResult:
        """Take over entries pending longer than `min_idle`; trimmed ones come back as deleted.

        The scan of the pending list starts at `start_id` and looks at up to `count` entries. In a
        group with `max_deliveries`, an entry delivered that often goes to `<stream>.dead`.

        Returns:
            A ClaimResult: the entries now delivered to `consumer`, the pending ids whose
            entries were trimmed away (`deleted_ids`) or dead-lettered (`dead_lettered_ids`),
            and where the next scan starts (`next_start_id`, `0-0` at the end).

        Raises:
            InvalidNameError: the stream, group or consumer name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none, or `count` is not
                between 1 and 1000.
            InvalidDurationError: `min_idle` is malformed, negative or over 30 days.
            NotFoundError: the stream or the group does not exist.
            UnprocessableEntityError: `start_id` is not an entry id.
        """
        return self._transport.send(
            self._calls.claim(
                stream, group, consumer=consumer, min_idle=min_idle, count=count, start_id=start_id
            ),
            options,
        )

    @takes_request_options
    def pending(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        count: int = 100,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[PendingEntry]:
        """The group's pending entries: who holds each, how long, how often delivered.

        Returns:
            Up to `count` PendingEntry, lowest id first.

        Raises:
            InvalidNameError: the stream or group name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none, or `count` is not
                between 1 and 1000.
            NotFoundError: the stream or the group does not exist.
        """
        return self._transport.send(self._calls.pending(stream, group, count=count), options)


class AsyncStreams:
    """Stream operations of an `AsyncClient` (`aclient.streams`), to be awaited.

    Every method that sends a request, `publish_nowait` aside, also takes the per-call
    `timeout=`, `max_retries=` and `extra_headers=` (`RequestOptions`), which apply to its
    requests alone; a bad one is a ConfigurationError, raised before anything is sent.

    Each method names its own errors below. Invalid arguments raise InvalidArgumentError (or its
    subclasses InvalidNameError and InvalidDurationError) before any request is sent. Any request
    may also fail with AuthenticationError (401), PermissionDeniedError (403) and, once the
    client's retries are used up, RateLimitError (429), InternalServerError (5xx) or
    APIConnectionError (APITimeoutError among them); APIResponseValidationError when an answer
    cannot be read. The publishes raise each of these as a PublishError whose `__cause__` is the
    typed error.
    """

    def __init__(
        self,
        transport: AsyncTransport,
        *,
        codec: Codec,
        batched: AsyncCoalescer[EntryOptions, Any, str] | None = None,
        sender: AsyncBackgroundBatcher[EntryOptions, Any, str] | None = None,
    ) -> None:
        self._transport = transport
        self._calls = StreamCalls(codec)
        self._batched = batched
        self._sender = sender or async_stream_sender(transport)

    @takes_request_options
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
        **options: Unpack[RequestOptions],
    ) -> str:
        """Append `body` to `stream` and return the new entry id; see `AsyncClient.publish`.

        Returns:
            The new entry's id (`<ms>-<seq>`).

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `maxlen` or `idempotency_key` is invalid.
            PublishError: the body cannot be encoded, or the request failed; `__cause__` is the
                typed error, such as NotFoundError (`nomkstream` and no such stream),
                ConflictError (`idempotency_key` reused for another request),
                PayloadTooLargeError (a request over 1 MiB), UnprocessableEntityError (`minid`
                is not an entry id) or QuotaExceededError (the token's quota is used up).
        """
        entry = self._calls.options(
            stream, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=nomkstream
        )
        encoded = self._calls.encode(entry, body)
        if self._batched is not None and idempotency_key is None and not options:
            return await self._batched.submit(entry, encoded)
        return await self._transport.send(
            append_one(entry, encoded, idempotency_key=idempotency_key), options
        )

    @suggests_keywords
    def publish_nowait(
        self,
        stream: str | Stream,
        body: Any,
        *,
        maxlen: int | None = None,
        approximate: bool = True,
        minid: str | None = None,
        nomkstream: bool = False,
    ) -> AsyncFuture[str]:
        """Append `body` without waiting for the service; see `Client.publish_nowait`.

        Returns:
            An `asyncio.Future` of the new entry's id.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `maxlen` is invalid.
            PublishError: the body cannot be encoded (at once; the future gets the others).
        """
        options = self._calls.options(
            stream, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=nomkstream
        )
        return self._sender.submit(options, self._calls.encode(options, body))

    @takes_request_options
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
        **options: Unpack[RequestOptions],
    ) -> builtins.list[str]:
        """Append every body in one request, all or none; return their ids in order.

        Returns:
            The new entries' ids, in the order of `bodies`; `[]`, sending nothing, for none.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: more than 1000 bodies, or an invalid `maxlen` or
                `idempotency_key`.
            PublishError: as for `publish`; nothing was appended.
        """
        entry = self._calls.options(
            stream, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=nomkstream
        )
        call = self._calls.publish_many(entry, bodies, idempotency_key=idempotency_key)
        return [] if call is None else await self._transport.send(call, options)

    @takes_request_options
    def list(
        self, *, prefix: str | None = None, limit: int = 100, **options: Unpack[RequestOptions]
    ) -> AsyncIterator[StreamSummary]:
        """Every stream the token may see (named from `prefix`, when given), by name.

        For `async for`: pages of up to `limit` streams are fetched as the iteration reaches them.

        Returns:
            An async iterator of StreamSummary.

        Raises:
            InvalidArgumentError: `prefix` or `limit` (1 to 1000) is invalid; raised by this
                call, before any request.
            PermissionDeniedError: while iterating, when the token has no permission on any
                stream. Each page's request may fail as the class docstring says.
        """
        return aiterate_pages(
            partial(self._transport.send, options=options),
            partial(StreamCalls.list_page, prefix, limit),
        )

    @takes_request_options
    async def length(self, stream: str | Stream, **options: Unpack[RequestOptions]) -> int:
        """How many entries `stream` holds.

        Returns:
            The stream's length.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            NotFoundError: the stream does not exist.
        """
        return await self._transport.send(self._calls.length(stream), options)

    @takes_request_options
    async def info(self, stream: str | Stream, **options: Unpack[RequestOptions]) -> StreamInfo:
        """The stream's length, first and last ids, and consumer groups.

        Returns:
            A StreamInfo.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            NotFoundError: the stream does not exist.
        """
        return await self._transport.send(self._calls.info(stream), options)

    @takes_request_options
    async def range(
        self,
        stream: str | Stream,
        *,
        start: str = "-",
        end: str = "+",
        count: int = 100,
        reverse: bool = False,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[Entry]:
        """Entries from `start` to `end` (ids; `-` and `+` are the ends), without any group.

        At most `count` of them, oldest first, or newest first with `reverse`; nothing changes.

        Returns:
            A list of Entry; empty when no entry lies in the range.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `count` is not between 1 and 1000.
            NotFoundError: the stream does not exist.
            UnprocessableEntityError: `start` or `end` is not an entry id.
        """
        return await self._transport.send(
            self._calls.range(stream, start=start, end=end, count=count, reverse=reverse), options
        )

    @takes_request_options
    async def trim(
        self,
        stream: str | Stream,
        *,
        maxlen: int | None = None,
        minid: str | None = None,
        approximate: bool = True,
        **options: Unpack[RequestOptions],
    ) -> TrimResult:
        """Trim to about `maxlen` entries (exactly if not approximate), or below id `minid`.

        Returns:
            A TrimResult: the length left and how many entries were removed.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: not exactly one of `maxlen` and `minid`, or a bad `maxlen`.
            NotFoundError: the stream does not exist.
            UnprocessableEntityError: `minid` is not an entry id.
        """
        return await self._transport.send(
            self._calls.trim(stream, maxlen=maxlen, minid=minid, approximate=approximate), options
        )

    @takes_request_options
    async def delete(self, stream: str | Stream, **options: Unpack[RequestOptions]) -> None:
        """Delete the stream with its entries and consumer groups.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            NotFoundError: the stream does not exist.
        """
        await self._transport.send(self._calls.delete(stream), options)

    @takes_request_options
    async def create_group(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        start_id: str = "$",
        mkstream: bool = False,
        max_deliveries: int | None = None,
        **options: Unpack[RequestOptions],
    ) -> GroupInfo:
        """Create a consumer group (default: the Stream's) delivering entries after `start_id`.

        `start_id` is `$` (entries appended from now on), `0` (every entry kept) or an entry id.
        `mkstream` creates a missing stream, empty. With `max_deliveries`, an entry delivered
        that often goes to `<stream>.dead` instead (see `claim`).

        Returns:
            The new group's GroupInfo.

        Raises:
            InvalidNameError: the stream or group name is invalid, or, with `max_deliveries`,
                the stream's name leaves no room for `.dead`.
            InvalidArgumentError: no `group` is given and the Stream has none, or `max_deliveries`
                is not between 1 and 1000000.
            NotFoundError: the stream does not exist and `mkstream` is false.
            ConflictError: the stream has a group of that name already (`group_exists`).
            UnprocessableEntityError: `start_id` is not `$`, `0` or an entry id.
        """
        return await self._transport.send(
            self._calls.create_group(
                stream, group, start_id=start_id, mkstream=mkstream, max_deliveries=max_deliveries
            ),
            options,
        )

    @takes_request_options
    async def delete_group(
        self, stream: str | Stream, group: str | None = None, **options: Unpack[RequestOptions]
    ) -> None:
        """Delete a consumer group and forget its pending entries; the entries stay.

        Raises:
            InvalidNameError: the stream or group name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none.
            NotFoundError: the stream or the group does not exist.
        """
        await self._transport.send(self._calls.delete_group(stream, group), options)

    @takes_request_options
    async def read_group(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        consumer: str,
        count: int = 10,
        wait: Duration = 0,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[DeliveredEntry]:
        """Deliver up to `count` new entries to `consumer`, waiting up to `wait` for one.

        The entries stay pending for `consumer` until they are acknowledged (`ack`).

        Returns:
            A list of DeliveredEntry, oldest first; empty when none came within `wait`.

        Raises:
            InvalidNameError: the stream, group or consumer name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none, or `count` is not
                between 1 and 1000.
            InvalidDurationError: `wait` is malformed, negative or over 30 seconds.
            NotFoundError: the stream or the group does not exist.
        """
        return await self._transport.send(
            self._calls.read_group(stream, group, consumer=consumer, count=count, wait=wait),
            options,
        )

    @takes_request_options
    async def ack(
        self,
        stream: str | Stream,
        group: str | None,
        ids: Iterable[str],
        **options: Unpack[RequestOptions],
    ) -> int:
        """Acknowledge entries, removing them from the group's pending list.

        Returns:
            How many of `ids` were pending (the others are ignored); 0, sending nothing, for no
            ids.

        Raises:
            InvalidNameError: the stream or group name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none, or there are more
                than 1000 ids.
            NotFoundError: the stream or the group does not exist.
            UnprocessableEntityError: an id is not an entry id.
        """
        call = self._calls.ack(stream, group, ids)
        return 0 if call is None else await self._transport.send(call, options)

    @takes_request_options
    async def claim(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        consumer: str,
        min_idle: Duration,
        count: int = 100,
        start_id: str = "0-0",
        **options: Unpack[RequestOptions],
    ) -> ClaimResult:
        """Take over entries pending longer than `min_idle`; trimmed ones come back as deleted.

        The scan of the pending list starts at `start_id` and looks at up to `count` entries. In a
        group with `max_deliveries`, an entry delivered that often goes to `<stream>.dead`.

        Returns:
            A ClaimResult: the entries now delivered to `consumer`, the pending ids whose
            entries were trimmed away (`deleted_ids`) or dead-lettered (`dead_lettered_ids`),
            and where the next scan starts (`next_start_id`, `0-0` at the end).

        Raises:
            InvalidNameError: the stream, group or consumer name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none, or `count` is not
                between 1 and 1000.
            InvalidDurationError: `min_idle` is malformed, negative or over 30 days.
            NotFoundError: the stream or the group does not exist.
            UnprocessableEntityError: `start_id` is not an entry id.
        """
        return await self._transport.send(
            self._calls.claim(
                stream, group, consumer=consumer, min_idle=min_idle, count=count, start_id=start_id
            ),
            options,
        )

    @takes_request_options
    async def pending(
        self,
        stream: str | Stream,
        group: str | None = None,
        *,
        count: int = 100,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[PendingEntry]:
        """The group's pending entries: who holds each, how long, how often delivered.

        Returns:
            Up to `count` PendingEntry, lowest id first.

        Raises:
            InvalidNameError: the stream or group name is invalid.
            InvalidArgumentError: no `group` is given and the Stream has none, or `count` is not
                between 1 and 1000.
            NotFoundError: the stream or the group does not exist.
        """
        return await self._transport.send(self._calls.pending(stream, group, count=count), options)
