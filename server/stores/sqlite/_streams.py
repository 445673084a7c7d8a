"""Streams: append (and trim as it appends), info, range, trim and delete.

Stream ids are ``<ms>-<seq>`` from ``self.clock``. Each stream keeps its last id, so a new id is
``<now_ms>-0`` when ``now_ms`` is later than the last id's milliseconds, else ``<last_ms>-<seq+1>``:
strictly increasing even when the clock steps back, and even after every entry was trimmed.
Id parts run to 2**64 - 1, as in Redis; SQLite's integers stop at 2**63 - 1. No generated id gets
near that, so an id given as a bound compares as if its larger parts were 2**63 - 1, which changes
no answer; a group's position, which is shown back, keeps its parts whole: those above 2**63 - 1 are
stored as the negative integers with the same 64 bits.

Approximate trimming (``Trim(maxlen=n, approximate=True)``) lets the stream grow to
``n + approximate_trim_slack(n)`` entries, where the slack is ``min(1000, max(10, n // 10))``, and
only when it exceeds that trims it to exactly ``n``. So after any call that trims approximately, a
stream that had at least ``n`` entries has between ``n`` and ``n + slack`` of them; the slack turns
one ``DELETE`` per append into one per ``slack`` appends. Exact trimming keeps exactly ``n``. A
``minid`` trim is always exact: it drops every id below ``minid`` (a bare ``ms`` means ``ms-0``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ..base import (
    MAX_ID_PART,
    AppendResult,
    Entry,
    GroupInfo,
    IdempotencyClaim,
    NotFoundError,
    StreamInfo,
    StreamSummary,
    Trim,
    TrimResult,
    entry_id_parts,
)
from ..cursors import name_prefix_end
from ._core import SQLiteCore
from ._idempotency import write_once

__all__ = [
    "APPROXIMATE_TRIM_MAX_SLACK",
    "APPROXIMATE_TRIM_MIN_SLACK",
    "LARGEST_INTEGER",
    "EntryId",
    "StreamsMixin",
    "append_entries",
    "approximate_trim_slack",
    "bound",
    "format_id",
    "parse_id",
    "require_stream",
    "stored_position",
    "stream_not_found",
]

APPROXIMATE_TRIM_MIN_SLACK = 10
APPROXIMATE_TRIM_MAX_SLACK = 1000
LARGEST_INTEGER = 2**63 - 1

EntryId = tuple[int, int]


def approximate_trim_slack(maxlen: int) -> int:
    """How many entries above ``maxlen`` an approximate trim tolerates before it trims."""
    return min(APPROXIMATE_TRIM_MAX_SLACK, max(APPROXIMATE_TRIM_MIN_SLACK, maxlen // 10))


class StreamsMixin(SQLiteCore):
    """The SQLite store's streams: append, info, range, trim and delete."""

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
        """Append ``bodies`` under new ids, then trim; see the module docstring for both rules."""

        def work(connection: sqlite3.Connection, now: float) -> AppendResult:
            ids, length = append_entries(
                connection, stream, bodies, now, nomkstream=nomkstream, traceparent=traceparent
            )
            trimmed = 0
            if trim is not None:
                length, trimmed = _trim_entries(connection, stream, trim, length)
                connection.execute("UPDATE streams SET length = ? WHERE name = ?", (length, stream))
            return AppendResult(ids=ids, length=length, trimmed=trimmed)

        result = await self.run_transaction(
            write_once(
                idempotency,
                f"stream:{stream}",
                work,
                remember=lambda result: [result.ids, result.length, result.trimmed],
                replay=lambda kept: AppendResult(
                    ids=kept[0], length=kept[1], trimmed=kept[2], replayed=True
                ),
            )
        )
        self._notify()
        return result

    async def _list_streams(
        self, *, prefix: str, limit: int, cursor: str | None
    ) -> tuple[list[StreamSummary], str | None]:
        """A range of the streams table by name, each stream's ends and group count read by
        its key; one more row than ``limit`` tells whether a next page exists.
        """

        def work(
            connection: sqlite3.Connection, _now: float
        ) -> tuple[list[StreamSummary], str | None]:
            rows = connection.execute(
                """SELECT s.name, s.length,
                       (SELECT ms || '-' || seq FROM stream_entries e WHERE e.stream = s.name
                         ORDER BY ms, seq LIMIT 1) AS first_id,
                       (SELECT ms || '-' || seq FROM stream_entries e WHERE e.stream = s.name
                         ORDER BY ms DESC, seq DESC LIMIT 1) AS last_id,
                       (SELECT COUNT(*) FROM stream_groups g WHERE g.stream = s.name) AS groups
                   FROM streams s
                   WHERE s.name >= ? AND s.name < ? AND s.name > ?
                   ORDER BY s.name LIMIT ?""",
                (prefix, name_prefix_end(prefix), cursor or "", limit + 1),
            ).fetchall()
            streams = [
                StreamSummary(
                    stream=row["name"],
                    length=row["length"],
                    first_id=row["first_id"],
                    last_id=row["last_id"],
                    group_count=row["groups"],
                )
                for row in rows[:limit]
            ]
            return streams, streams[-1].stream if len(rows) > limit else None

        return await self.run_transaction(work, write=False)

    async def _count_streams(self) -> int:
        """The streams table's rows."""

        def work(connection: sqlite3.Connection, _now: float) -> int:
            count: int = connection.execute("SELECT COUNT(*) FROM streams").fetchone()[0]
            return count

        return await self.run_transaction(work, write=False)

    async def _stream_info(self, stream: str) -> StreamInfo:
        """The stream's length, first and last entry ids, and groups by name, each with its lag
        counted along the entries' primary key from the group's position.
        """

        def work(connection: sqlite3.Connection, _now: float) -> StreamInfo:
            length = require_stream(connection, stream)["length"]
            first = connection.execute(
                "SELECT ms, seq FROM stream_entries WHERE stream = ? ORDER BY ms, seq LIMIT 1",
                (stream,),
            ).fetchone()
            last = connection.execute(
                "SELECT ms, seq FROM stream_entries WHERE stream = ?"
                " ORDER BY ms DESC, seq DESC LIMIT 1",
                (stream,),
            ).fetchone()
            groups = connection.execute(
                """SELECT g.name, g.last_ms, g.last_seq, g.max_deliveries,
                       (SELECT COUNT(*) FROM stream_consumers c
                         WHERE c.stream = g.stream AND c.grp = g.name) AS consumers,
                       (SELECT COUNT(*) FROM stream_pending p
                         WHERE p.stream = g.stream AND p.grp = g.name) AS pending
                   FROM stream_groups g WHERE g.stream = ? ORDER BY g.name""",
                (stream,),
            ).fetchall()
            return StreamInfo(
                stream=stream,
                length=length,
                first_id=None if first is None else format_id((first["ms"], first["seq"])),
                last_id=None if last is None else format_id((last["ms"], last["seq"])),
                groups=[
                    GroupInfo(
                        group=group["name"],
                        consumers=group["consumers"],
                        pending=group["pending"],
                        last_delivered_id=format_id(stored_position(group)),
                        max_deliveries=group["max_deliveries"],
                        lag=connection.execute(
                            "SELECT COUNT(*) FROM stream_entries"
                            " WHERE stream = ? AND (ms, seq) > (?, ?)",
                            (stream, *bound(stored_position(group))),
                        ).fetchone()[0],
                    )
                    for group in groups
                ],
            )

        return await self.run_transaction(work, write=False)

    async def _range(
        self, stream: str, *, start: str, end: str, count: int, reverse: bool
    ) -> list[Entry]:
        """Entries between two inclusive bounds, oldest (or with ``reverse`` newest) first."""
        low = (0, 0) if start == "-" else bound(parse_id(start, missing_seq=0))
        high = (
            (LARGEST_INTEGER, LARGEST_INTEGER)
            if end == "+"
            else bound(parse_id(end, missing_seq=None))
        )
        order = "DESC" if reverse else "ASC"

        def work(connection: sqlite3.Connection, _now: float) -> list[Entry]:
            require_stream(connection, stream)
            rows = connection.execute(
                f"""SELECT ms, seq, body, traceparent FROM stream_entries
                    WHERE stream = ? AND (ms, seq) >= (?, ?) AND (ms, seq) <= (?, ?)
                    ORDER BY ms {order}, seq {order} LIMIT ?""",
                (stream, *low, *high, count),
            ).fetchall()
            return [
                Entry(
                    id=format_id((row["ms"], row["seq"])),
                    body=json.loads(row["body"]),
                    traceparent=row["traceparent"],
                )
                for row in rows
            ]

        return await self.run_transaction(work, write=False)

    async def _trim(self, stream: str, trim: Trim) -> TrimResult:
        """Trim an existing stream by ``maxlen`` and/or ``minid``."""

        def work(connection: sqlite3.Connection, _now: float) -> TrimResult:
            length = require_stream(connection, stream)["length"]
            length, trimmed = _trim_entries(connection, stream, trim, length)
            connection.execute("UPDATE streams SET length = ? WHERE name = ?", (length, stream))
            return TrimResult(length=length, trimmed=trimmed)

        return await self.run_transaction(work)

    async def _delete_stream(self, stream: str) -> None:
        """Delete the stream with its entries, groups and pending lists."""

        def work(connection: sqlite3.Connection, _now: float) -> None:
            if connection.execute("DELETE FROM streams WHERE name = ?", (stream,)).rowcount == 0:
                raise stream_not_found(stream)

        await self.run_transaction(work)


def parse_id(text: str, *, missing_seq: int | None) -> EntryId:
    """Read a checked ``ms-seq`` or bare ``ms`` (whose seq is ``missing_seq``, or the largest if
    None).
    """
    ms, seq = entry_id_parts(text)
    if seq is None:
        seq = MAX_ID_PART if missing_seq is None else missing_seq
    return ms, seq


def bound(entry_id: EntryId) -> EntryId:
    """``entry_id`` as SQL compares it with stored ids: a part above SQLite's largest integer as
    that integer, exact because no stored entry id comes near it.
    """
    return min(entry_id[0], LARGEST_INTEGER), min(entry_id[1], LARGEST_INTEGER)


def stored_position(row: sqlite3.Row) -> EntryId:
    """The group position kept in a row's ``last_ms`` and ``last_seq`` (see ``_column``)."""
    return row["last_ms"] % 2**64, row["last_seq"] % 2**64


def format_id(entry_id: EntryId) -> str:
    """An entry id as its ``ms-seq`` text."""
    return f"{entry_id[0]}-{entry_id[1]}"


def stream_not_found(stream: str) -> NotFoundError:
    """The error for a stream that does not exist."""
    return NotFoundError("stream_not_found", f"stream {stream!r} does not exist")


def require_stream(connection: sqlite3.Connection, stream: str) -> sqlite3.Row:
    """The stream's row; ``stream_not_found`` when there is none."""
    row: sqlite3.Row | None = connection.execute(
        "SELECT * FROM streams WHERE name = ?", (stream,)
    ).fetchone()
    if row is None:
        raise stream_not_found(stream)
    return row


def append_entries(
    connection: sqlite3.Connection,
    stream: str,
    encoded: Sequence[str],
    now: float,
    *,
    nomkstream: bool,
    traceparent: str | None = None,
) -> tuple[list[str], int]:
    """Append JSON texts under new ids (creating the stream unless ``nomkstream``), each with
    ``traceparent``; answer the ids and the stream's length.
    """
    row = connection.execute(
        "SELECT last_ms, last_seq, length FROM streams WHERE name = ?", (stream,)
    ).fetchone()
    if row is None:
        if nomkstream:
            raise stream_not_found(stream)
        last_ms, last_seq, length = 0, 0, 0
        connection.execute(
            "INSERT INTO streams (name, last_ms, last_seq, length, created_at)"
            " VALUES (?, 0, 0, 0, ?)",
            (stream, now),
        )
    else:
        last_ms, last_seq, length = row["last_ms"], row["last_seq"], row["length"]
    now_ms = int(now * 1000)
    rows = []
    for body in encoded:
        if now_ms > last_ms:
            last_ms, last_seq = now_ms, 0
        else:
            last_seq += 1
        rows.append((stream, last_ms, last_seq, body, traceparent))
    connection.executemany(
        "INSERT INTO stream_entries (stream, ms, seq, body, traceparent) VALUES (?, ?, ?, ?, ?)",
        rows,
    )
    length += len(rows)
    connection.execute(
        "UPDATE streams SET last_ms = ?, last_seq = ?, length = ? WHERE name = ?",
        (last_ms, last_seq, length, stream),
    )
    return [format_id((ms, seq)) for _, ms, seq, _, _ in rows], length


def _trim_entries(
    connection: sqlite3.Connection, stream: str, trim: Trim, length: int
) -> tuple[int, int]:
    """Apply ``trim`` to a stream of ``length`` entries; return the new length and the count cut."""
    trimmed = 0
    if trim.maxlen is not None:
        tolerated = trim.maxlen + (approximate_trim_slack(trim.maxlen) if trim.approximate else 0)
        if length > tolerated:
            trimmed += _drop_oldest(connection, stream, length - trim.maxlen, length)
    if trim.minid is not None:
        trimmed += connection.execute(
            "DELETE FROM stream_entries WHERE stream = ? AND (ms, seq) < (?, ?)",
            (stream, *bound(parse_id(trim.minid, missing_seq=0))),
        ).rowcount
    return length - trimmed, trimmed


def _drop_oldest(connection: sqlite3.Connection, stream: str, count: int, length: int) -> int:
    if count >= length:
        return connection.execute("DELETE FROM stream_entries WHERE stream = ?", (stream,)).rowcount
    first_kept = connection.execute(
        "SELECT ms, seq FROM stream_entries WHERE stream = ? ORDER BY ms, seq LIMIT 1 OFFSET ?",
        (stream, count),
    ).fetchone()
    return connection.execute(
        "DELETE FROM stream_entries WHERE stream = ? AND (ms, seq) < (?, ?)",
        (stream, first_kept["ms"], first_kept["seq"]),
    ).rowcount
