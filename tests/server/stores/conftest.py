"""Fixtures of the store behaviour suite; the ``store`` fixture itself is in tests/conftest.py."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from server.stores import store_from_url
from server.stores.base import Store
from tests.server.stores._support import FakeClock


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("redis", marks=pytest.mark.redis),
        pytest.param("redis-cluster", marks=pytest.mark.redis),
    ]
)
def store_url(request: pytest.FixtureRequest) -> str:
    """Each store's URL in turn, and here also the Redis store on a local Redis Cluster: every
    behaviour test runs on SQLite, standalone Redis and Redis Cluster.
    """
    fixture = {
        "sqlite": "sqlite_store_url",
        "redis": "redis_store_url",
        "redis-cluster": "redis_cluster_store_url",
    }[request.param]
    return str(request.getfixturevalue(fixture))


@pytest.fixture
def clock(store: Store, monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A clock standing at the real time now, installed as the store's ``clock``.

    Every store reads the time for leases, delays, deduplication windows, idempotency records and
    its own timestamps through ``self.clock()``; moving this clock moves all of them.
    """
    fake = FakeClock(time.time())
    monkeypatch.setattr(store, "clock", fake)
    return fake


@pytest.fixture
async def open_store(store_url: str) -> AsyncIterator[Callable[[], Awaitable[Store]]]:
    """Open more stores on the URL the ``store`` fixture uses, as other processes would."""
    opened: list[Store] = []

    async def open_another() -> Store:
        another = store_from_url(store_url)
        await another.open()
        opened.append(another)
        return another

    yield open_another
    for another in opened:
        await another.close()
