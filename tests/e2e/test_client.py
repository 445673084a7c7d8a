"""The clients themselves against the real service: settings from the environment, health."""

from __future__ import annotations

import asyncio
import importlib.abc
import sys

import pytest

import sdk
from sdk._embedded import EmbeddedService

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
