"""End-to-end fixtures: the real service in child processes, on SQLite and on Redis.

Each store gets one service for the whole session (a service per test would spend most of the
run starting processes); tests keep apart by using names no other test uses. The services are
started the way `Client.embedded()` starts its own (tests/sdk/test_embedded.py covers that
wrapper): SQLite in a temporary directory, and Redis under a private key prefix removed at the end.
Every test using `client` runs four times: both stores, with a `Client` and an `AsyncClient`.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator

import pytest

import sdk
from sdk._embedded import EmbeddedService

AnyClient = sdk.Client | sdk.AsyncClient


@pytest.fixture(scope="session")
def sqlite_service() -> Iterator[EmbeddedService]:
    """The embedded default: SQLite in a temporary directory."""
    service = EmbeddedService.start()
    yield service
    service.stop()


@pytest.fixture(scope="session")
def redis_service(redis_url: str) -> Iterator[EmbeddedService]:
    """The service on the test Redis, under a key prefix of its own, removed afterwards."""
    import redis

    prefix = f"spoole2e-{uuid.uuid4().hex[:12]}"
    service = EmbeddedService.start(store=f"{redis_url}?prefix={prefix}")
    yield service
    service.stop()
    connection = redis.Redis.from_url(redis_url)
    try:
        for key in connection.scan_iter(match=f"{prefix}*", count=1000):
            connection.delete(key)
    finally:
        connection.close()


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def service(request: pytest.FixtureRequest) -> EmbeddedService:
    """Each store's service in turn."""
    found: EmbeddedService = request.getfixturevalue(f"{request.param}_service")
    return found


@pytest.fixture(params=["sync", "async"])
async def client(
    request: pytest.FixtureRequest, service: EmbeddedService
) -> AsyncIterator[AnyClient]:
    """A Client, then an AsyncClient, of each store's service; closed afterwards.

    The service's log is printed afterwards: pytest shows it when the test failed.
    """
    if request.param == "sync":
        with sdk.Client(service.base_url, service.token) as sync_client:
            yield sync_client
    else:
        async with sdk.AsyncClient(service.base_url, service.token) as async_client:
            yield async_client
    print(f"the service's log ends with:\n{service.log_tail()}")  # noqa: T201


@pytest.fixture
def name() -> Callable[[str], str]:
    """Makes names no other test uses: `name("events")` -> `events-3f2a9c1b0d`."""

    def unique(prefix: str) -> str:
        return f"{prefix}-{uuid.uuid4().hex[:10]}"

    return unique
