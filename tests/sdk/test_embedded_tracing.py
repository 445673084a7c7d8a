"""Client.embedded(tracing=True): the service runs as `python -m server.traced`, configured
from the `OTEL_*` variables (the spans it exports are checked in tests/e2e/test_tracing.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import sdk
from sdk._embedded import EmbeddedService
from tests.sdk._support import resolve

pytestmark = pytest.mark.slow


@pytest.fixture(params=["sync", "async"])
def flavour(request: pytest.FixtureRequest) -> str:
    """Each client kind in turn."""
    return str(request.param)


async def _start_client(flavour: str, **kwargs: Any) -> sdk.Client | sdk.AsyncClient:
    if flavour == "sync":
        return sdk.Client.embedded(**kwargs)
    return await sdk.AsyncClient.embedded(**kwargs)


def test_tracing_is_true_or_false() -> None:
    """Anything else is a ConfigurationError before any process starts."""
    with pytest.raises(sdk.ConfigurationError, match="tracing must be True or False, got 'yes'"):
        EmbeddedService.start(tracing="yes")  # type: ignore[arg-type]


def test_tracing_without_the_otel_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without OpenTelemetry's distro the error says `pip install 'spool[otel]'`."""
    monkeypatch.setitem(sys.modules, "opentelemetry.distro", None)
    with pytest.raises(sdk.ConfigurationError, match="pip install 'spool\\[otel\\]'"):
        EmbeddedService.start(tracing=True)


async def test_a_traced_service_serves_and_ignores_a_server_module_in_the_working_directory(
    flavour: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Unlike `opentelemetry-instrument`, the traced service keeps the working directory off its
    path, so the app's own `server` package does not shadow Spool's.
    """
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "__init__.py").write_text("raise SystemExit('the app server ran')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "none")
    client = await _start_client(flavour, tracing=True)
    try:
        assert (await resolve(client.health())).status == "ok"
    finally:
        await resolve(client.close())


def test_an_exporter_that_cannot_be_made_stops_the_service_before_it_serves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A service that could not configure tracing does not serve untraced: it exits, and the
    error carries its log, which names the exporter.
    """
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "no_such_exporter")
    with pytest.raises(sdk.EmbeddedServiceError, match="exited") as caught:
        EmbeddedService.start(tracing=True)
    assert "no_such_exporter" in caught.value.log
