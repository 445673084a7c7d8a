"""The clients themselves against the real service: settings from the environment, health."""

from __future__ import annotations

import asyncio
import importlib.abc
import sys
from collections.abc import Callable

import pytest

import sdk
from sdk._embedded import EmbeddedService
from tests.e2e.conftest import AnyClient
from tests.sdk._support import resolve

pytestmark = pytest.mark.slow


def test_base_url_and_api_key_come_from_the_environment(
    service: EmbeddedService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sdk.Client()` reads $SPOOL_BASE_URL and $SPOOL_API_KEY."""
    monkeypatch.setenv("SPOOL_BASE_URL", service.base_url)
    monkeypatch.setenv("SPOOL_API_KEY", service.token)
    with sdk.Client() as client:
        assert client.health().status == "ok"
        assert service.token not in repr(client)


async def test_the_async_client_reads_the_same_environment(
    service: EmbeddedService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sdk.AsyncClient()` reads the same variables."""
    monkeypatch.setenv("SPOOL_BASE_URL", service.base_url)
    monkeypatch.setenv("SPOOL_API_KEY", service.token)
    async with sdk.AsyncClient() as client:
        health = await client.health()
    assert health.store in ("sqlite", "redis")


def test_a_missing_base_url_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without base_url or $SPOOL_BASE_URL, ConfigurationError says what to set."""
    monkeypatch.delenv("SPOOL_BASE_URL", raising=False)
    with pytest.raises(sdk.ConfigurationError, match="SPOOL_BASE_URL"):
        sdk.Client()
    with pytest.raises(sdk.ConfigurationError, match="SPOOL_BASE_URL"):
        sdk.AsyncClient()


class _ImportSpy(importlib.abc.MetaPathFinder):
    """Records every module an import statement had to search for."""

    def __init__(self) -> None:
        self.searched: list[str] = []

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        self.searched.append(name)


async def test_requests_in_flight_import_nothing(
    sqlite_service: EmbeddedService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once warm, 64 concurrent async publishes (and sync ones) search sys.path for no module:
    a failed import per request (httpcore's `import sniffio` when it is missing) walks sys.path
    every time.
    """
    spy = _ImportSpy()
    base_url, token = sqlite_service.base_url, sqlite_service.token
    async with sdk.AsyncClient(base_url, token) as aclient:
        with sdk.Client(base_url, token) as client:
            await asyncio.gather(*(aclient.publish("imports", {"n": n}) for n in range(64)))
            client.publish("imports", {"n": 0})
            monkeypatch.setattr(sys, "meta_path", [spy, *sys.meta_path])
            await asyncio.gather(*(aclient.publish("imports", {"n": n}) for n in range(64)))
            client.publish("imports", {"n": 0})
    assert spy.searched == []


async def test_a_calls_extra_headers_reach_the_service(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """The service names a request by the X-Request-Id it was sent, and answers with it."""
    events = name("events")
    await resolve(client.publish(events, {}, extra_headers={"X-Request-Id": "req-percall-1"}))
    raw = await resolve(
        client.with_raw_response.streams.info(events, extra_headers={"X-Request-Id": "req-2"})
    )
    assert (raw.request_id, raw.parse().length) == ("req-2", 1)


async def test_a_calls_timeout_ends_a_long_poll_the_service_holds(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """A lease waiting for jobs of an empty queue outlasts its call's timeout: the call times
    out, not retried, where the client's own timeout would have let the lease come back empty.
    """
    queue_name = name("jobs")
    await resolve(client.queues.create(queue_name))
    queue = await resolve(client.init_queue(queue_name))
    with pytest.raises(sdk.APITimeoutError):
        await resolve(queue.lease(consumer="w1", wait=5, timeout=0.5, max_retries=0))
    await resolve(client.queues.delete(queue_name))
