"""Consumer groups of a stream: create, delete, read, ack, claim and the pending list.

Dead letters: a claim that dead-letters entries (a group's ``max_deliveries``) appends them to the
stream ``<stream>.dead`` in its own transaction, so an entry is never both pending and dead.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ..base import (
    ClaimResult,
    ConflictError,
    DeliveredEntry,
    GroupInfo,
    NotFoundError,
    PendingEntry,
    dead_letter_stream,
    dump_json,
)
from ._core import SQLiteCore
from ._streams import (
    LARGEST_INTEGER,
    EntryId,
    append_entries,
    bound,
    format_id,
    parse_id,
    require_stream,
    stored_position,
    stream_not_found,
)

__all__ = ["GroupsMixin"]


class GroupsMixin(SQLiteCore):
    """The SQLite store's consumer groups: create, delete, read, ack, claim and pending."""

    async def _create_group(
        self,
        stream: str,
        group: str,
        *,
        start_id: str,
        mkstream: bool,
        max_deliveries: int | None,
    ) -> GroupInfo:
        """Create a group positioned at ``start_id`` (``$`` for the stream's last id)."""
        start = None if start_id == "$" else parse_id(start_id, missing_seq=0)

        def work(connection: sqlite3.Connection, now: float) -> GroupInfo:
            row = connection.execute(
                "SELECT last_ms, last_seq FROM streams WHERE name = ?", (stream,)
            ).fetchone()
            if row is None:
                if not mkstream:
                    raise stream_not_found(stream)
                connection.execute(
                    "INSERT INTO streams (name, last_ms, last_seq, length, created_at)"
                    " VALUES (?, 0, 0, 0, ?)",
                    (stream, now),
                )
                stream_last = (0, 0)
            else:
                stream_last = (row["last_ms"], row["last_seq"])
            position = stream_last if start is None else start
            inserted = connection.execute(
                "INSERT OR IGNORE INTO stream_groups"
                " (stream, name, last_ms, last_seq, max_deliveries) VALUES (?, ?, ?, ?, ?)",
                (stream, group, *map(_column, position), max_deliveries),
            )
            if inserted.rowcount == 0:
                raise ConflictError(
                    "group_exists", f"stream {stream!r} already has a group {group!r}"
                )
            return GroupInfo(
                group=group,
                consumers=0,
                pending=0,
                last_delivered_id=format_id(position),
                max_deliveries=max_deliveries,
            )

        return await self.run_transaction(work)

    async def _delete_group(self, stream: str, group: str) -> None:
        """Delete the group and its pending list; the entries stay."""

        def work(connection: sqlite3.Connection, _now: float) -> None:
            _require_group(connection, stream, group)
            connection.execute(
                "DELETE FROM stream_groups WHERE stream = ? AND name = ?", (stream, group)
            )

        await self.run_transaction(work)

    async def _read_group(
        self, stream: str, group: str, *, consumer: str, count: int, wait_ms: int
    ) -> list[DeliveredEntry]:
        """Hand up to ``count`` undelivered entries to ``consumer``, waiting up to ``wait_ms``."""

        def work(connection: sqlite3.Connection, now: float) -> list[DeliveredEntry]:
            position = _require_group(connection, stream, group)
            _remember_consumer(connection, stream, group, consumer)
            rows = connection.execute(
                """SELECT ms, seq, body, traceparent FROM stream_entries
                   WHERE stream = ? AND (ms, seq) > (?, ?) ORDER BY ms, seq LIMIT ?""",
                (stream, *bound(position), count),
            ).fetchall()
            if not rows:
                return []
            now_ms = int(now * 1000)
            connection.executemany(
                """INSERT INTO stream_pending
                   (stream, grp, ms, seq, consumer, delivery_count, delivered_ms)
                   VALUES (?, ?, ?, ?, ?, 1, ?)""",
                [(stream, group, row["ms"], row["seq"], consumer, now_ms) for row in rows],
            )
            connection.execute(
                "UPDATE stream_groups SET last_ms = ?, last_seq = ? WHERE stream = ? AND name = ?",
                (rows[-1]["ms"], rows[-1]["seq"], stream, group),
            )
            return [
                DeliveredEntry(
                    id=format_id((row["ms"], row["seq"])),
                    body=json.loads(row["body"]),
                    delivery_count=1,
                    traceparent=row["traceparent"],
                )
                for row in rows
            ]

        return await self._poll(lambda: self.run_transaction(work), wait_ms)

    async def _ack(self, stream: str, group: str, ids: Sequence[str]) -> int:
        """Remove ``ids`` from the pending list; count only those that were pending."""
        parsed = [bound(parse_id(entry_id, missing_seq=0)) for entry_id in ids]

        def work(connection: sqlite3.Connection, _now: float) -> int:
            _require_group(connection, stream, group)
            removed = 0
            for ms, seq in parsed:
                removed += connection.execute(
                    "DELETE FROM stream_pending WHERE stream = ? AND grp = ? AND ms = ? AND seq = ?",
                    (stream, group, ms, seq),
                ).rowcount
            return removed

        return await self.run_transaction(work)

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
        """Scan up to ``count`` pending entries from ``start_id``; see ``Store.claim``."""
        start = bound(parse_id(start_id, missing_seq=0))

        def work(connection: sqlite3.Connection, now: float) -> ClaimResult:
            _require_group(connection, stream, group)
            max_deliveries: int | None = connection.execute(
                "SELECT max_deliveries FROM stream_groups WHERE stream = ? AND name = ?",
                (stream, group),
            ).fetchone()["max_deliveries"]
            _remember_consumer(connection, stream, group, consumer)
            rows = connection.execute(
                """SELECT p.ms, p.seq, p.delivery_count, p.delivered_ms, e.body, e.traceparent
                   FROM stream_pending p
                   LEFT JOIN stream_entries e
                     ON e.stream = p.stream AND e.ms = p.ms AND e.seq = p.seq
                   WHERE p.stream = ? AND p.grp = ? AND (p.ms, p.seq) >= (?, ?)
                   ORDER BY p.ms, p.seq LIMIT ?""",
                (stream, group, *start, count + 1),
            ).fetchall()
            now_ms = int(now * 1000)
            entries: list[DeliveredEntry] = []
            deleted: list[str] = []
            dead: list[tuple[str, str]] = []
            for row in rows[:count]:
                key = (stream, group, row["ms"], row["seq"])
                entry_id = format_id((row["ms"], row["seq"]))
                idle = now_ms - row["delivered_ms"] >= min_idle_ms
                if row["body"] is None or (
                    idle and max_deliveries is not None and row["delivery_count"] >= max_deliveries
                ):
                    connection.execute(
                        "DELETE FROM stream_pending"
                        " WHERE stream = ? AND grp = ? AND ms = ? AND seq = ?",
                        key,
                    )
                    if row["body"] is None:
                        deleted.append(entry_id)
                    else:
                        dead.append((entry_id, _dead_letter(stream, group, entry_id, row)))
                elif idle:
                    connection.execute(
                        """UPDATE stream_pending
                           SET consumer = ?, delivery_count = delivery_count + 1, delivered_ms = ?
                           WHERE stream = ? AND grp = ? AND ms = ? AND seq = ?""",
                        (consumer, now_ms, *key),
                    )
                    entries.append(
                        DeliveredEntry(
                            id=entry_id,
                            body=json.loads(row["body"]),
                            delivery_count=row["delivery_count"] + 1,
                            traceparent=row["traceparent"],
                        )
                    )
            if dead:
                append_entries(
                    connection,
                    dead_letter_stream(stream),
                    [body for _, body in dead],
                    now,
                    nomkstream=False,
                )
            following = rows[count] if len(rows) > count else None
            return ClaimResult(
                entries=entries,
                deleted_ids=deleted,
                next_start_id="0-0"
                if following is None
                else format_id((following["ms"], following["seq"])),
                dead_lettered_ids=[entry_id for entry_id, _ in dead],
            )

        return await self.run_transaction(work)

    async def _pending(self, stream: str, group: str, *, count: int) -> list[PendingEntry]:
        """Up to ``count`` pending entries, lowest id first, with their idle time."""

        def work(connection: sqlite3.Connection, now: float) -> list[PendingEntry]:
            _require_group(connection, stream, group)
            rows = connection.execute(
                """SELECT ms, seq, consumer, delivery_count, delivered_ms FROM stream_pending
                   WHERE stream = ? AND grp = ? ORDER BY ms, seq LIMIT ?""",
                (stream, group, count),
            ).fetchall()
            now_ms = int(now * 1000)
            return [
                PendingEntry(
                    id=format_id((row["ms"], row["seq"])),
                    consumer=row["consumer"],
                    idle_ms=max(0, now_ms - row["delivered_ms"]),
                    delivery_count=row["delivery_count"],
                )
                for row in rows
            ]

        return await self.run_transaction(work, write=False)


def _column(part: int) -> int:
    """A group position's id part as stored: above SQLite's largest integer, the negative integer
    with the same 64 bits.
    """
    return part - 2**64 if part > LARGEST_INTEGER else part


def _require_group(connection: sqlite3.Connection, stream: str, group: str) -> EntryId:
    """The group's last delivered id, after checking that the stream and group exist."""
    require_stream(connection, stream)
    row = connection.execute(
        "SELECT last_ms, last_seq FROM stream_groups WHERE stream = ? AND name = ?",
        (stream, group),
    ).fetchone()
    if row is None:
        raise NotFoundError("group_not_found", f"stream {stream!r} has no group {group!r}")
    return stored_position(row)


def _dead_letter(stream: str, group: str, entry_id: str, row: sqlite3.Row) -> str:
    """The dead-letter stream's entry for a pending entry (``Store.claim`` gives its shape)."""
    return dump_json(
        {
            "stream": stream,
            "id": entry_id,
            "group": group,
            "delivery_count": row["delivery_count"],
            "body": json.loads(row["body"]),
        },
        what="a dead letter",
    )


def _remember_consumer(
    connection: sqlite3.Connection, stream: str, group: str, consumer: str
) -> None:
    connection.execute(
        "INSERT OR IGNORE INTO stream_consumers (stream, grp, consumer) VALUES (?, ?, ?)",
        (stream, group, consumer),
    )
