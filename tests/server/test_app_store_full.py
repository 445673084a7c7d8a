"""A full SQLite file answers as a full Redis does (tests/faults/test_attack_redis_oom.py):
``503 store_full`` with ``Retry-After: 5``, never ``500``, for one publish and for publishes
that share a transaction; the refused publish's Idempotency-Key is free once room is made.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable

import pytest

from server.stores.sqlite import SQLiteStore
from tests.conftest import RunningApp, assert_problem

BIG = "x" * 40_000


@pytest.fixture
def store_url(sqlite_store_url: str) -> str:
    """SQLite only: the file's page limit stands in for a full disk."""
    return sqlite_store_url


async def _cap(store: SQLiteStore, pages: int | None) -> None:
    def cap(connection: sqlite3.Connection, _now: float) -> None:
        limit = pages or connection.execute("PRAGMA page_count").fetchone()[0]
        connection.execute(f"PRAGMA max_page_count = {int(limit)}")

    await store.run_transaction(cap, write=False)


async def test_a_full_sqlite_file_answers_store_full_with_retry_after(
    app_factory: Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]],
) -> None:
    """A publish to a full file, alone or beside others, is ``503 store_full`` with
    ``Retry-After: 5``; once room is made the same publish with the same key is written.
    """
    async with app_factory() as api:
        client = api.client
        assert (await client.post("/v1/streams/events/entries", json={"body": 0})).is_success
        await _cap(api.store, None)
        key = {"Idempotency-Key": "full-1"}
        refused = await client.post("/v1/streams/events/entries", json={"body": BIG}, headers=key)
        problem = assert_problem(refused, 503, "store_full")
        assert refused.headers["retry-after"] == "5"
        assert "no room left" in problem["detail"]
        together = await asyncio.gather(
            *(
                client.post("/v1/streams/events/batch", json={"entries": [{"body": BIG}]})
                for _ in range(5)
            )
        )
        for response in together:
            assert_problem(response, 503, "store_full")
        await _cap(api.store, 1_000_000)
        written = await client.post("/v1/streams/events/entries", json={"body": BIG}, headers=key)
        assert written.status_code == 201, written.text
        assert "idempotent-replayed" not in written.headers
        assert written.json()["length"] == 2
