"""Fixtures of the delivery tests: receivers, an in-memory store and engines on it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from server.delivery import DeliveryEngine, DeliverySettings
from tests.server.delivery._support import (
    KEYS,
    LOOPBACK,
    Endpoint,
    EndpointFactory,
    EngineFactory,
    MemoryStore,
    Reply,
)


@pytest.fixture
async def endpoint() -> AsyncIterator[EndpointFactory]:
    """Start receivers following a script of replies; all are closed after the test."""
    started: list[Endpoint] = []

    async def start(*script: Reply) -> Endpoint:
        receiver = Endpoint(script)
        await receiver.start()
        started.append(receiver)
        return receiver

    yield start
    for receiver in started:
        await receiver.close()


@pytest.fixture
def store() -> MemoryStore:
    """A fresh in-memory store."""
    return MemoryStore()


@pytest.fixture
async def engine(store: MemoryStore) -> AsyncIterator[EngineFactory]:
    """Build and start engines on the test store with fast polling; all are stopped afterwards."""
    engines: list[DeliveryEngine] = []

    def build(
        *,
        http_transport_factory: Callable[[], httpx.AsyncBaseTransport] | None = None,
        **options: Any,
    ) -> DeliveryEngine:
        settings: dict[str, Any] = {
            "signing_keys": KEYS,
            "policy": LOOPBACK,
            "poll_interval": 0.02,
            "lease_margin": 30.0,
            "default_retry_delay": lambda retried: 10.0,
        }
        settings.update(options)
        built = DeliveryEngine(
            store,
            DeliverySettings(**settings),
            http_transport_factory=http_transport_factory,
        )
        engines.append(built)
        return built

    yield build
    for built in engines:
        await built.stop()
