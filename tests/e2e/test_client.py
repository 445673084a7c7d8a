"""The clients themselves against the real service: settings from the environment, health."""

from __future__ import annotations

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
