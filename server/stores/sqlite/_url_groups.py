"""URL groups: named lists of endpoints a message may be published to."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ..base import NotFoundError, UrlEndpoint, UrlGroupRecord, dump_json
from ._core import SQLiteCore

__all__ = ["UrlGroupsMixin"]


class UrlGroupsMixin(SQLiteCore):
    """The SQLite store's URL groups: put, get, list and delete."""

    async def _put_url_group(self, name: str, endpoints: Sequence[UrlEndpoint]) -> UrlGroupRecord:
        """Create the group or replace its endpoints, keeping its creation time."""
        encoded = dump_json(
            [{"url": endpoint.url, "name": endpoint.name} for endpoint in endpoints],
            what="URL group endpoints",
        )

        def work(connection: sqlite3.Connection, now: float) -> UrlGroupRecord:
            connection.execute(
                """INSERT INTO url_groups (name, endpoints, created_at, updated_at)
                   VALUES (?, ?, ?, ?)
                   ON CONFLICT (name) DO UPDATE
                   SET endpoints = excluded.endpoints, updated_at = excluded.updated_at""",
                (name, encoded, now, now),
            )
            return _url_group_record(_require_url_group(connection, name))

        return await self.run_transaction(work)

    async def _get_url_group(self, name: str) -> UrlGroupRecord:
        """The URL group."""

        def work(connection: sqlite3.Connection, _now: float) -> UrlGroupRecord:
            return _url_group_record(_require_url_group(connection, name))

        return await self.run_transaction(work, write=False)

    async def _list_url_groups(self) -> list[UrlGroupRecord]:
        """Every URL group, by name."""

        def work(connection: sqlite3.Connection, _now: float) -> list[UrlGroupRecord]:
            rows = connection.execute("SELECT * FROM url_groups ORDER BY name").fetchall()
            return [_url_group_record(row) for row in rows]

        return await self.run_transaction(work, write=False)

    async def _delete_url_group(self, name: str) -> None:
        """Delete the URL group; messages already published keep their URLs."""

        def work(connection: sqlite3.Connection, _now: float) -> None:
            if connection.execute("DELETE FROM url_groups WHERE name = ?", (name,)).rowcount == 0:
                raise NotFoundError("url_group_not_found", f"URL group {name!r} does not exist")

        await self.run_transaction(work)


def _require_url_group(connection: sqlite3.Connection, name: str) -> sqlite3.Row:
    row: sqlite3.Row | None = connection.execute(
        "SELECT * FROM url_groups WHERE name = ?", (name,)
    ).fetchone()
    if row is None:
        raise NotFoundError("url_group_not_found", f"URL group {name!r} does not exist")
    return row


def _url_group_record(row: sqlite3.Row) -> UrlGroupRecord:
    return UrlGroupRecord(
        name=row["name"],
        endpoints=[
            UrlEndpoint(url=endpoint["url"], name=endpoint["name"])
            for endpoint in json.loads(row["endpoints"])
        ],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )
