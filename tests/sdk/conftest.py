"""Fixtures of the SDK's respx tests: a mocked service, both clients, and no real sleeping."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import respx

import sdk
from sdk import _retry
from tests.sdk._support import API_KEY, BASE_URL


@pytest.fixture(autouse=True)
def no_spool_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's $SPOOL_BASE_URL/$SPOOL_API_KEY out of every test."""
    monkeypatch.delenv("SPOOL_BASE_URL", raising=False)
    monkeypatch.delenv("SPOOL_API_KEY", raising=False)


@pytest.fixture(autouse=True)
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every wait the SDK asks for, recorded instead of slept: no test ever really sleeps."""
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(_retry, "sleep", waits.append)
    monkeypatch.setattr(_retry, "asleep", record)
    return waits


@pytest.fixture
def api() -> Iterator[respx.MockRouter]:
    """The mocked service at BASE_URL; a request to any route not mocked fails the test."""
    with respx.mock(base_url=BASE_URL, assert_all_called=False) as router:
        yield router


@pytest.fixture(params=["sync", "async"])
async def client(request: pytest.FixtureRequest) -> AsyncIterator[sdk.Client | sdk.AsyncClient]:
    """A Client, then an AsyncClient: every test using it runs against both surfaces."""
    if request.param == "sync":
        sync_client = sdk.Client(BASE_URL, API_KEY)
        yield sync_client
        sync_client.close()
    else:
        async_client = sdk.AsyncClient(BASE_URL, API_KEY)
        yield async_client
        await async_client.close()
