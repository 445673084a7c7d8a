"""Streams on Redis Streams: appends, reads, trims, consumer groups, claims and dead letters."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any

from redis.exceptions import ResponseError

from ..base import (
    AppendResult,
    ClaimResult,
    DeliveredEntry,
    Entry,
    GroupInfo,
    IdempotencyClaim,
    PendingEntry,
    StreamInfo,
    StreamSummary,
    Trim,
    TrimResult,
    dead_letter_stream,
    entry_id_parts,
)
from ..cursors import name_prefix_end
from .arguments import number_text
from .connection import BLOCKED_READ_GRACE_SECONDS, within
from .core import RedisCore
from .errors import DETAILS, redis_errors, store_error
from .records import entry_body, optional_int

__all__ = ["RedisStreams"]


def _trim_steps(trim: Trim | None) -> list[str]:
    """``lua/lib/trim.lua``'s arguments for a checked trim: how many XTRIM calls, then strategy,
    ``~``/``=``, threshold for each.
    """
    if trim is None:
        return ["0"]
    steps: list[str] = []
    approximation = "~" if trim.approximate else "="
    if trim.maxlen is not None:
        steps += ["MAXLEN", approximation, str(trim.maxlen)]
    if trim.minid is not None:
        steps += ["MINID", approximation, _entry_id(trim.minid)]
    return [str(len(steps) // 3), *steps]


def _entry_id(text: str, *, also: str | None = None) -> str:
    """A checked id as Redis takes it: ``ms-seq`` or a bare ``ms`` (see ``entry_id_parts``), or
    ``also`` (``-``, ``+``, ``$``) as it is.
    """
    if text == also:
        return text
    ms, seq = entry_id_parts(text)
    return str(ms) if seq is None else f"{ms}-{seq}"


class RedisStreams(RedisCore):
    """The stream methods of the Redis store."""

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
        """XADD every body, then XTRIM, in one script that also counts what the trim removed (and
        keeps or replays the idempotency record).
        """
        key = self._keys.stream(stream)
        details = {"stream": stream}
        arguments = ["1" if nomkstream else "0", traceparent or "", *_trim_steps(trim), *bodies]

        def write(record: list[str], claim: list[str | int | float]) -> Awaitable[Any]:
            now = number_text(self.clock())
            return self._run("append", [key, *record], [now, *claim, *arguments], details=details)

        replayed, (length, trimmed, ids) = await self._write_once(
            idempotency, key, write, details=details
        )
        if int(length) + int(trimmed) == len(ids):
            # The stream was empty, so perhaps new: it joins the listed names (a second command,
            # as the names are in a slot of their own; adding a listed name again changes nothing).
            await self._list_stream_name(stream)
        return AppendResult(
            ids=[str(i) for i in ids], length=int(length), trimmed=int(trimmed), replayed=replayed
        )

    async def _list_stream_name(self, stream: str) -> None:
        async with self._gate():
            await self._redis.zadd(self._keys.stream_names, {stream: 0}, nx=True)

    async def _list_streams(
        self, *, prefix: str, limit: int, cursor: str | None
    ) -> tuple[list[StreamSummary], str | None]:
        """A range of the listed names by name (ZRANGE BYLEX), then XINFO STREAM of each,
        pipelined; a listed name whose stream is gone is not answered, and is forgotten.
        """
        low = f"[{prefix}" if cursor is None or cursor < prefix else f"({cursor}"
        async with self._gate():
            listed = await self._redis.zrangebylex(
                self._keys.stream_names, low, f"({name_prefix_end(prefix)}", start=0, num=limit + 1
            )
        names = [str(name) for name in listed]
        page = names[:limit]
        infos: list[Any] = []
        if page:
            async with self._redis.pipeline(transaction=False) as pipe:
                for name in page:
                    pipe.xinfo_stream(self._keys.stream(name))
                async with self._gate():
                    infos = await pipe.execute(raise_on_error=False)
        streams, gone = [], []
        for name, info in zip(page, infos, strict=True):
            if isinstance(info, ResponseError) and "no such key" in str(info).lower():
                gone.append(name)
                continue
            if isinstance(info, Exception):
                raise info
            first, last = info.get("first-entry"), info.get("last-entry")
            streams.append(
                StreamSummary(
                    stream=name,
                    length=int(info["length"]),
                    first_id=str(first[0]) if first else None,
                    last_id=str(last[0]) if last else None,
                    group_count=int(info["groups"]),
                )
            )
        if gone:
            async with self._gate():
                await self._redis.zrem(self._keys.stream_names, *gone)
        return streams, page[-1] if len(names) > limit else None

    async def _count_streams(self) -> int:
        """ZCARD of the listed names."""
        async with self._gate():
            return int(await self._redis.zcard(self._keys.stream_names))

    async def _stream_info(self, stream: str) -> StreamInfo:
        """XINFO STREAM and XINFO GROUPS, read in one transaction. A group's lag is XINFO's,
        unknown (None) where Redis cannot tell how many entries the group has read: a group made
        at an id inside the stream, or entries deleted from the range it has yet to read.
        """
        key = self._keys.stream(stream)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.exists(key)
            pipe.xinfo_stream(key)
            pipe.xinfo_groups(key)
            pipe.hgetall(self._keys.groups(stream))
            async with self._gate():
                exists, info, groups, limits = await pipe.execute(raise_on_error=False)
        if not exists:
            raise store_error("stream_not_found", f"stream {stream!r} does not exist")
        for result in (info, groups, limits):
            if isinstance(result, Exception):
                raise result
        first, last = info.get("first-entry"), info.get("last-entry")
        return StreamInfo(
            stream=stream,
            length=int(info["length"]),
            first_id=str(first[0]) if first else None,
            last_id=str(last[0]) if last else None,
            groups=sorted(
                (
                    GroupInfo(
                        group=str(group["name"]),
                        consumers=int(group["consumers"]),
                        pending=int(group["pending"]),
                        last_delivered_id=str(group["last-delivered-id"]),
                        max_deliveries=optional_int(limits, str(group["name"])),
                        lag=None if group.get("lag") is None else int(group["lag"]),
                    )
                    for group in groups
                ),
                key=lambda group: group.group,
            ),
        )

    async def _range(
        self, stream: str, *, start: str, end: str, count: int, reverse: bool
    ) -> list[Entry]:
        """XRANGE (or XREVRANGE), checking in the same transaction that the stream exists."""
        start, end = _entry_id(start, also="-"), _entry_id(end, also="+")
        key = self._keys.stream(stream)
        with redis_errors():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.exists(key)
                if reverse:
                    pipe.xrevrange(key, max=end, min=start, count=count)
                else:
                    pipe.xrange(key, min=start, max=end, count=count)
                async with self._gate():
                    exists, entries = await pipe.execute()
        if not exists:
            raise store_error("stream_not_found", f"stream {stream!r} does not exist")
        return [
            Entry(id=str(entry_id), body=entry_body(fields.get("b")), traceparent=fields.get("t"))
            for entry_id, fields in entries
        ]

    async def _trim(self, stream: str, trim: Trim) -> TrimResult:
        """XTRIM in a script that also answers the length and refuses a missing stream."""
        length, trimmed = await self._run(
            "trim", [self._keys.stream(stream)], _trim_steps(trim), details={"stream": stream}
        )
        return TrimResult(length=int(length), trimmed=int(trimmed))

    async def _delete_stream(self, stream: str) -> None:
        """DEL the stream key, which holds its entries and groups, and its groups' settings, in
        one command: both share the stream's hash slot, and the settings never outlive the
        stream, so a count of none means there was no stream. Not a MULTI: Redis over
        ``maxmemory`` refuses every command queued in one, and deleting a stream is how an
        operator frees memory.
        """
        async with self._gate():
            deleted = await self._redis.delete(self._keys.stream(stream), self._keys.groups(stream))
        async with self._gate():
            await self._redis.zrem(self._keys.stream_names, stream)
        if not deleted:
            raise store_error("stream_not_found", f"stream {stream!r} does not exist")

    async def _create_group(
        self,
        stream: str,
        group: str,
        *,
        start_id: str,
        mkstream: bool,
        max_deliveries: int | None,
    ) -> GroupInfo:
        """XGROUP CREATE (with MKSTREAM when asked) and the group's settings, answering the group
        as XINFO GROUPS sees it.
        """
        start_id = _entry_id(start_id, also="$")
        consumers, pending, last_delivered_id = await self._run(
            "create_group",
            [self._keys.stream(stream), self._keys.groups(stream)],
            [
                group,
                start_id,
                "1" if mkstream else "0",
                "" if max_deliveries is None else max_deliveries,
            ],
            details={"stream": stream, "group": group},
        )
        if mkstream:
            await self._list_stream_name(stream)
        return GroupInfo(
            group=group,
            consumers=int(consumers),
            pending=int(pending),
            last_delivered_id=str(last_delivered_id),
            max_deliveries=max_deliveries,
        )

    async def _delete_group(self, stream: str, group: str) -> None:
        """XGROUP DESTROY, telling a missing stream from a missing group."""
        await self._run(
            "delete_group",
            [self._keys.stream(stream), self._keys.groups(stream)],
            [group],
            details={"stream": stream, "group": group},
        )

    async def _read_group(
        self, stream: str, group: str, *, consumer: str, count: int, wait_ms: int
    ) -> list[DeliveredEntry]:
        """XREADGROUP ``>``; BLOCK only when ``wait_ms`` > 0 (Redis reads BLOCK 0 as forever)."""
        key = self._keys.stream(stream)
        try:
            if wait_ms > 0:
                answer: Any = await within(
                    self._blocked_read(key, group, consumer, count=count, block=wait_ms),
                    seconds=wait_ms / 1000 + BLOCKED_READ_GRACE_SECONDS,
                )
            else:
                async with self._gate():
                    answer = await self._redis.xreadgroup(group, consumer, {key: ">"}, count=count)
        except ResponseError as exc:
            # XREADGROUP says NOGROUP for a missing stream too (or UNBLOCKED when the stream went
            # while it waited), so look which one is missing.
            async with self._gate():
                exists = await self._redis.exists(key)
            if not exists:
                raise store_error("stream_not_found", f"stream {stream!r} does not exist") from exc
            if str(exc).startswith("NOGROUP"):
                raise store_error(
                    "group_not_found",
                    DETAILS["group_not_found"].format(stream=stream, group=group),
                ) from exc
            raise
        return [
            DeliveredEntry(
                id=str(entry_id),
                body=entry_body(fields.get("b")),
                delivery_count=1,
                traceparent=fields.get("t"),
            )
            for _, entries in answer or []
            for entry_id, fields in entries
        ]

    async def _blocked_read(
        self, key: str, group: str, consumer: str, *, count: int, block: int
    ) -> Any:
        """XREADGROUP BLOCK on the client of blocked reads, whose connections they may hold for
        as long as they wait without taking any the other commands need.
        """
        async with self._waiting_gate():
            return await self._waiting_redis.xreadgroup(
                group, consumer, {key: ">"}, count=count, block=block
            )

    async def _ack(self, stream: str, group: str, ids: Sequence[str]) -> int:
        """XACK after checking that the stream and group exist."""
        ids = [_entry_id(entry_id) for entry_id in ids]
        acked = await self._run(
            "ack",
            [self._keys.stream(stream)],
            [group, *ids],
            details={"stream": stream, "group": group},
        )
        return int(acked)

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
        """XAUTOCLAIM over a window of ``count`` pending entries; its third answer (Redis >= 7)
        lists the pending ids whose entries are gone.
        """
        start_id = _entry_id(start_id)
        next_start_id, entries, deleted_ids, dead_lettered_ids = await self._run(
            "claim",
            [
                self._keys.stream(stream),
                self._keys.stream(dead_letter_stream(stream)),
                self._keys.groups(stream),
            ],
            [group, consumer, min_idle_ms, start_id, count, stream],
            details={"stream": stream, "group": group},
        )
        if dead_lettered_ids:
            await self._list_stream_name(dead_letter_stream(stream))
        return ClaimResult(
            entries=[
                DeliveredEntry(
                    id=str(entry_id),
                    body=entry_body(body),
                    delivery_count=int(times),
                    traceparent=traceparent,
                )
                for entry_id, body, times, traceparent in entries
            ],
            deleted_ids=[str(entry_id) for entry_id in deleted_ids],
            next_start_id=str(next_start_id),
            dead_lettered_ids=[str(entry_id) for entry_id in dead_lettered_ids],
        )

    async def _pending(self, stream: str, group: str, *, count: int) -> list[PendingEntry]:
        """XPENDING's extended form over the whole pending list, lowest id first."""
        rows = await self._run(
            "pending",
            [self._keys.stream(stream)],
            [group, count],
            details={"stream": stream, "group": group},
        )
        return [
            PendingEntry(
                id=str(entry_id),
                consumer=str(consumer),
                idle_ms=int(idle_ms),
                delivery_count=int(times),
            )
            for entry_id, consumer, idle_ms, times in rows
        ]
