"""Fixtures of the SDK's respx tests: a mocked service, both clients, and no real sleeping."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
import respx

import sdk
from sdk import _retry
from tests.sdk._support import API_KEY, BASE_URL, RECEIPT
from tests.sdk._worker_support import GROUP


@pytest.fixture(autouse=True)
def no_spool_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's $SPOOL_BASE_URL/$SPOOL_API_KEY out of every test."""
    monkeypatch.delenv("SPOOL_BASE_URL", raising=False)
    monkeypatch.delenv("SPOOL_API_KEY", raising=False)


@pytest.fixture(autouse=True)
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every wait the SDK asks for, recorded instead of slept: no test ever really sleeps."""
    waits: list[float] = []

    def record(seconds: float) -> None:
        waits.append(seconds)

    async def arecord(seconds: float) -> None:
        waits.append(seconds)

    # The retry budget's clock moves by the waits alone, as if they had been slept.
    monkeypatch.setattr(_retry, "sleep", record)
    monkeypatch.setattr(_retry, "asleep", arecord)
    monkeypatch.setattr(_retry, "now", lambda: sum(waits))
    return waits


@pytest.fixture
def api() -> Iterator[respx.MockRouter]:
    """The mocked service at BASE_URL; a request to any route not mocked fails the test."""
    with respx.mock(base_url=BASE_URL, assert_all_called=False) as router:
        yield router


@pytest.fixture(params=["sync", "async"])
async def make_client(
    request: pytest.FixtureRequest,
) -> AsyncIterator[Callable[..., sdk.Client | sdk.AsyncClient]]:
    """Builds Clients, then (in the second run) AsyncClients, closing them afterwards."""
    made: list[sdk.Client | sdk.AsyncClient] = []
    client_class = sdk.Client if request.param == "sync" else sdk.AsyncClient

    def make(**options: Any) -> sdk.Client | sdk.AsyncClient:
        options.setdefault("base_url", BASE_URL)
        options.setdefault("api_key", API_KEY)
        made.append(client_class(**options))
        return made[-1]

    yield make
    for client in made:
        if isinstance(client, sdk.AsyncClient):
            await client.close()
        else:
            client.close()


@pytest.fixture
def client(
    make_client: Callable[..., sdk.Client | sdk.AsyncClient],
) -> sdk.Client | sdk.AsyncClient:
    """A Client, then an AsyncClient: every test using it runs against both surfaces."""
    return make_client()


@pytest.fixture(scope="session")
def delivering_client() -> Iterator[sdk.Client]:
    """A real embedded service, shared by the tests that need real signed deliveries."""
    with sdk.Client.embedded() as client:
        yield client


@pytest.fixture
def group(api: respx.MockRouter) -> respx.Route:
    """createGroup of the orders stream answering 201 (the run() tests)."""
    return api.post("/v1/streams/orders/groups").mock(
        return_value=httpx.Response(
            201, json={"group": "billing", "consumers": 0, "pending": 0, "last_delivered_id": "0-0"}
        )
    )


@pytest.fixture
def ack(api: respx.MockRouter) -> respx.Route:
    """ackEntries of the orders stream's billing group answering 1 (the run() tests)."""
    return api.post(f"{GROUP}/ack").mock(return_value=httpx.Response(200, json={"acked": 1}))


@pytest.fixture
def publish(api: respx.MockRouter) -> respx.Route:
    """publishMessage answering with one receipt."""
    return api.post("/v1/messages").mock(
        return_value=httpx.Response(202, json={"messages": [RECEIPT]})
    )
