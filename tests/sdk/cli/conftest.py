"""Fixtures of the command line's tests: one real embedded service, and a runner of `spool`."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from click.testing import CliRunner, Result

import sdk
from sdk._cli._app import cli
from sdk._embedded import EmbeddedService
from tests.sdk.cli._support import Spool


@pytest.fixture(scope="session")
def cli_service() -> Iterator[EmbeddedService]:
    """One embedded service (SQLite) for every command-line test; names keep them apart."""
    service = EmbeddedService.start()
    yield service
    service.stop()


@pytest.fixture
def environment(cli_service: EmbeddedService) -> dict[str, str]:
    """What `spool` needs to find the service, as a user would set it."""
    return {
        "SPOOL_BASE_URL": cli_service.base_url,
        "SPOOL_API_KEY": cli_service.token,
        "COLUMNS": "200",
    }


@pytest.fixture
def spool(environment: dict[str, str]) -> Spool:
    """Runs `spool ARGS...` in process (click's CliRunner) against the service."""
    runner = CliRunner()

    def run(*args: str, input: str | bytes | None = None, **env: str) -> Result:
        return runner.invoke(cli, list(args), input=input, env={**environment, **env})

    return run


@pytest.fixture
def client(cli_service: EmbeddedService) -> Iterator[sdk.Client]:
    """An SDK client of the same service, to set things up and check what `spool` did."""
    with sdk.Client(cli_service.base_url, cli_service.token) as made:
        yield made


@pytest.fixture
def name() -> str:
    """A resource name no other test uses."""
    return f"cli-{uuid.uuid4().hex[:10]}"
