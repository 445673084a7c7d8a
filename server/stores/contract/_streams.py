"""The contract of streams and their consumer groups: what each public method promises and checks.

Every public method checks its arguments (``..checks``) and then calls its hook, the method of the
same name with a leading underscore, which a backend implements. A hook is only ever called with
arguments that passed: ids that ``entry_id_parts`` reads (or the special ids the method names),
counts of at least 1, and bodies already written as JSON text by ``dump_json``.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

from ..checks import (
    check_at_least_one,
    check_max_deliveries,
    check_traceparent,
    check_trim,
    dump_json,
    entry_id_parts,
)
from ..cursors import stream_cursor, stream_cursor_position
from ..errors import StoreError
from ..records import (
    JSON,
    AppendResult,
    ClaimResult,
    DeliveredEntry,
    Entry,
    GroupInfo,
    IdempotencyClaim,
    PendingEntry,
    StreamInfo,
    StreamPage,
    StreamSummary,
    Trim,
    TrimResult,
)

__all__ = ["StreamsContract"]


class StreamsContract(abc.ABC):
    """Streams and consumer groups: the public methods with their checks, and their hooks."""

    # Streams -------------------------------------------------------------------------------

    async def append(
        self,
        stream: str,
        bodies: Sequence[JSON],
        *,
        trim: Trim | None,
        nomkstream: bool,
        idempotency: IdempotencyClaim | None = None,
        traceparent: str | None = None,
    ) -> AppendResult:
        """Append ``bodies`` in order, then apply ``trim``; at most once per ``idempotency`` key.
        Each entry keeps ``traceparent`` (the publisher's W3C trace context), which every read of
        it answers.

        Ids are ``<ms>-<seq>`` from the current time and strictly greater than every id the stream
        ever had, even when the clock steps back (then the last id's ms is kept and seq grows).
        With ``nomkstream`` a missing stream raises ``NotFoundError("stream_not_found")``.
        """
        encoded = [dump_json(body, what="an entry body") for body in bodies]
        if trim is not None:
            check_trim(trim)
        check_traceparent(traceparent)
        return await self._append(
            stream,
            encoded,
            trim=trim,
            nomkstream=nomkstream,
            idempotency=idempotency,
            traceparent=traceparent,
        )

    async def stream_info(self, stream: str) -> StreamInfo:
        """Describe a stream; ``NotFoundError("stream_not_found")`` when it does not exist."""
        return await self._stream_info(stream)

    async def list_streams(self, *, prefix: str, limit: int, cursor: str | None) -> StreamPage:
        """Up to ``limit`` streams whose names start with ``prefix`` ("" for all), by name, from
        ``cursor`` (an earlier page's ``next_cursor``; None for the first page). A stream deleted
        meanwhile is not listed. A page may be shorter than ``limit`` before the last; the last
        page's ``next_cursor`` is None. A cursor that is not a stream listing's is
        ``validation_failed``.
        """
        check_at_least_one(limit, name="limit")
        after = None if cursor is None else stream_cursor_position(cursor)
        streams, next_after = await self._list_streams(prefix=prefix, limit=limit, cursor=after)
        return StreamPage(
            streams=streams, next_cursor=None if next_after is None else stream_cursor(next_after)
        )

    async def count_streams(self) -> int:
        """How many streams a listing would answer, without reading them: what a metrics scrape
        reports of the streams past its cap. On Redis a stream whose key went without
        ``delete_stream`` counts until a listing passes its name.
        """
        return await self._count_streams()

    async def range(
        self, stream: str, *, start: str, end: str, count: int, reverse: bool
    ) -> list[Entry]:
        """Entries with ``start <= id <= end`` (``-``/``+`` are the ends; a bare ms means ``ms-0`` for
        start and ``ms-<max>`` for end), at most ``count``, newest first when ``reverse``.
        ``NotFoundError("stream_not_found")`` when the stream does not exist.
        """
        if start != "-":
            entry_id_parts(start)
        if end != "+":
            entry_id_parts(end)
        check_at_least_one(count, name="count")
        return await self._range(stream, start=start, end=end, count=count, reverse=reverse)

    async def trim(self, stream: str, trim: Trim) -> TrimResult:
        """Trim an existing stream; ``NotFoundError("stream_not_found")`` otherwise."""
        check_trim(trim)
        if trim.maxlen is None and trim.minid is None:
            raise StoreError("validation_failed", "a trim needs maxlen or minid")
        return await self._trim(stream, trim)

    async def delete_stream(self, stream: str) -> None:
        """Delete a stream, its entries and groups; ``NotFoundError("stream_not_found")`` if absent."""
        await self._delete_stream(stream)

    # Consumer groups -----------------------------------------------------------------------

    async def create_group(
        self,
        stream: str,
        group: str,
        *,
        start_id: str,
        mkstream: bool,
        max_deliveries: int | None = None,
    ) -> GroupInfo:
        """Create a group delivering entries with ids greater than ``start_id`` (``$`` = the
        stream's last id now, ``0`` = everything). A missing stream is created empty with
        ``mkstream``, else ``NotFoundError("stream_not_found")``; an existing group is
        ``ConflictError("group_exists")``. ``max_deliveries`` (None: unlimited) is how often
        ``claim`` delivers one entry before dead-lettering it; ``check_max_deliveries`` says
        what is refused.
        """
        if start_id != "$":
            entry_id_parts(start_id)
        check_max_deliveries(stream, max_deliveries)
        return await self._create_group(
            stream, group, start_id=start_id, mkstream=mkstream, max_deliveries=max_deliveries
        )

    async def delete_group(self, stream: str, group: str) -> None:
        """Delete a group and its pending list (``stream_not_found`` / ``group_not_found``)."""
        await self._delete_group(stream, group)

    async def read_group(
        self, stream: str, group: str, *, consumer: str, count: int, wait_ms: int
    ) -> list[DeliveredEntry]:
        """Deliver up to ``count`` never-delivered entries to ``consumer``, oldest first, adding them
        to the pending list with delivery count 1. Each entry goes to exactly one consumer of the
        group. When none is available, wait up to ``wait_ms`` for one. Raises ``stream_not_found``
        / ``group_not_found``.
        """
        check_at_least_one(count, name="count")
        return await self._read_group(
            stream, group, consumer=consumer, count=count, wait_ms=wait_ms
        )

    async def ack(self, stream: str, group: str, ids: Sequence[str]) -> int:
        """Remove ``ids`` from the group's pending list; return how many were pending."""
        for entry_id in ids:
            entry_id_parts(entry_id)
        return await self._ack(stream, group, ids)

    async def claim(
        self,
        stream: str,
        group: str,
        *,
        consumer: str,
        min_idle_ms: int,
        count: int,
        start_id: str,
    ) -> ClaimResult:
        """Scan the pending list from ``start_id`` (inclusive) in id order, looking at up to
        ``count`` entries: give those idle at least ``min_idle_ms`` to ``consumer`` (idle reset,
        delivery count + 1) and drop from the pending list those whose entries were trimmed away,
        reporting them in ``deleted_ids``. ``next_start_id`` is the next pending id to scan, or
        ``0-0`` at the end.

        An idle entry whose delivery count already reached the group's ``max_deliveries`` is not
        given out: it is dropped from the pending list and appended, in the same atomic step, to
        the stream ``dead_letter_stream(stream)`` (created when missing) with the body
        ``{"stream", "id", "group", "delivery_count", "body"}`` (its stream, id and group, how
        often it was delivered, and its own body), and reported in ``dead_lettered_ids``.
        """
        entry_id_parts(start_id)
        check_at_least_one(count, name="count")
        return await self._claim(
            stream,
            group,
            consumer=consumer,
            min_idle_ms=min_idle_ms,
            count=count,
            start_id=start_id,
        )

    async def pending(self, stream: str, group: str, *, count: int) -> list[PendingEntry]:
        """Up to ``count`` pending entries, lowest id first."""
        check_at_least_one(count, name="count")
        return await self._pending(stream, group, count=count)

    # Hooks ---------------------------------------------------------------------------------

    @abc.abstractmethod
    async def _append(
        self,
        stream: str,
        bodies: Sequence[str],
        *,
        trim: Trim | None,
        nomkstream: bool,
        idempotency: IdempotencyClaim | None,
        traceparent: str | None,
    ) -> AppendResult:
        """``append`` with each body already JSON text and a checked ``traceparent``."""

    @abc.abstractmethod
    async def _stream_info(self, stream: str) -> StreamInfo:
        """``stream_info``."""

    @abc.abstractmethod
    async def _list_streams(
        self, *, prefix: str, limit: int, cursor: str | None
    ) -> tuple[list[StreamSummary], str | None]:
        """``list_streams`` with its cursor read: up to ``limit`` streams named after the name
        ``cursor`` (None: from the first) and starting with
        ``prefix``, by name, and the name the next page starts after (None when no stream is left).
        """

    @abc.abstractmethod
    async def _count_streams(self) -> int:
        """``count_streams``."""

    @abc.abstractmethod
    async def _range(
        self, stream: str, *, start: str, end: str, count: int, reverse: bool
    ) -> list[Entry]:
        """``range`` with checked bounds and count."""

    @abc.abstractmethod
    async def _trim(self, stream: str, trim: Trim) -> TrimResult:
        """``trim`` with a checked trim that has ``maxlen`` or ``minid``."""

    @abc.abstractmethod
    async def _delete_stream(self, stream: str) -> None:
        """``delete_stream``."""

    @abc.abstractmethod
    async def _create_group(
        self,
        stream: str,
        group: str,
        *,
        start_id: str,
        mkstream: bool,
        max_deliveries: int | None,
    ) -> GroupInfo:
        """``create_group`` with a checked ``start_id`` and ``max_deliveries``."""

    @abc.abstractmethod
    async def _delete_group(self, stream: str, group: str) -> None:
        """``delete_group``."""

    @abc.abstractmethod
    async def _read_group(
        self, stream: str, group: str, *, consumer: str, count: int, wait_ms: int
    ) -> list[DeliveredEntry]:
        """``read_group`` with a checked count."""

    @abc.abstractmethod
    async def _ack(self, stream: str, group: str, ids: Sequence[str]) -> int:
        """``ack`` with checked ids."""

    @abc.abstractmethod
    async def _claim(
        self,
        stream: str,
        group: str,
        *,
        consumer: str,
        min_idle_ms: int,
        count: int,
        start_id: str,
    ) -> ClaimResult:
        """``claim`` with a checked ``start_id`` and count."""

    @abc.abstractmethod
    async def _pending(self, stream: str, group: str, *, count: int) -> list[PendingEntry]:
        """``pending`` with a checked count."""
