"""Fixtures shared by every test layer."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REDIS_URL = os.environ.get("SPOOL_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _redis_answers(url: str) -> bool:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except redis.RedisError:
        return False


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The test Redis URL; skips (or, with SPOOL_REQUIRE_REDIS=1 as in CI, fails) without Redis."""
    if _redis_answers(REDIS_URL):
        return REDIS_URL
    reason = f"needs a Redis server at {REDIS_URL} (set SPOOL_TEST_REDIS_URL)"
    if os.environ.get("SPOOL_REQUIRE_REDIS") == "1":
        pytest.fail(f"SPOOL_REQUIRE_REDIS=1 but Redis does not answer: {reason}")
    pytest.skip(reason)


@pytest.fixture
def redis_prefix() -> str:
    """A key prefix no other test uses, so tests never see each other's keys."""
    return f"spooltest-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def redis_store_url(redis_url: str, redis_prefix: str) -> Iterator[str]:
    """A Redis store URL with a private prefix; its keys are removed afterwards."""
    yield f"{redis_url}?prefix={redis_prefix}"
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        for key in client.scan_iter(match=f"{redis_prefix}*", count=1000):
            client.delete(key)
    finally:
        client.close()


@pytest.fixture
def sqlite_store_url(tmp_path: Path) -> str:
    """An SQLite store URL in a fresh temporary directory."""
    return f"sqlite:///{tmp_path / 'spool.db'}"


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request: pytest.FixtureRequest) -> str:
    """Each store's URL in turn: every test using it runs on both backends."""
    name = "sqlite_store_url" if request.param == "sqlite" else "redis_store_url"
    return str(request.getfixturevalue(name))


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[object]:
    """An opened store of each backend in turn."""
    from server.stores import store_from_url

    opened = store_from_url(store_url)
    await opened.open()
    try:
        yield opened
    finally:
        await opened.close()
