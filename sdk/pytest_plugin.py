"""Spool's pytest plugin: a real service for the test session, clients, and a signed-delivery receiver.

Installed with the SDK and loaded by pytest on its own (the `pytest11` entry point `spool`); it
starts nothing until a test asks for one of its fixtures, every one named `spool_...`:

- `spool_service` (session): an embedded service, started once per session (per xdist worker)
  and stopped at its end. `--spool-store URL` (ini `spool_store`) puts it on Redis, with a key
  prefix of its own; `--spool-base-url URL` (ini `spool_base_url`, token in `$SPOOL_API_KEY`) uses
  a service that is already running instead.
- `spool_client` / `spool_async_client`: an `sdk.Client` / `sdk.AsyncClient` of that service (the
  async one needs pytest-asyncio).
- `spool_receiver`: a local HTTP endpoint that records deliveries and verifies their signatures;
  `spool_wait_for_delivery(count=1, timeout=10)` waits for them.

After every test that used them, the service is swept: every queue, URL group and dead letter is
deleted, and so are the streams that the plugin's clients touched and their messages not yet
delivered, so the next test starts clean.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ._client import Client
    from ._pytest_receiver import Delivery, DeliveryReceiver
    from ._pytest_service import SpoolService

__all__ = [
    "spool_client",
    "spool_receiver",
    "spool_service",
    "spool_wait_for_delivery",
]

_SERVICE = pytest.StashKey["SpoolService"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register --spool-store and --spool-base-url, and their ini settings."""
    group = parser.getgroup("spool", "Spool service for tests")
    group.addoption(
        "--spool-store",
        dest="spool_store",
        default=None,
        help="store URL of the embedded service: a Redis URL (default: SQLite in a temporary file)",
    )
    group.addoption(
        "--spool-base-url",
        dest="spool_base_url",
        default=None,
        help="use the Spool service at this URL instead of starting one ($SPOOL_API_KEY is its token)",
    )
    parser.addini("spool_store", "store URL of the embedded service (see --spool-store)")
    parser.addini("spool_base_url", "URL of a running Spool service (see --spool-base-url)")


def pytest_configure(config: pytest.Config) -> None:
    """Add `spool_async_client` when pytest-asyncio is there to run async fixtures."""
    manager = config.pluginmanager
    # Its entry point's name, or its module's when it was loaded with `-p pytest_asyncio.plugin`.
    if manager.has_plugin("asyncio") or manager.has_plugin("pytest_asyncio.plugin"):
        manager.import_plugin("sdk._pytest_async")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """Sweep the service after each test that used it, once the test's own fixtures are gone."""
    try:
        yield
    finally:
        service = item.config.stash.get(_SERVICE, None)
        # Every fixture of the plugin's, and any of the project's that uses the service, needs
        # `spool_service`: a test without it in its closure left nothing to sweep.
        if service is not None and "spool_service" in getattr(item, "fixturenames", ()):
            service.sweep()


def _setting(config: pytest.Config, name: str) -> str | None:
    value = config.getoption(name) or config.getini(name)
    return str(value) if value else None


@pytest.fixture(scope="session")
def spool_service(pytestconfig: pytest.Config) -> Iterator[SpoolService]:
    """A Spool service for the whole session: embedded, or the one --spool-base-url names.

    Yields:
        The session's SpoolService, closed (an embedded one stopped) at the session's end.

    Raises:
        ConfigurationError: --spool-base-url without `$SPOOL_API_KEY`, or an embedded service
            that cannot start for want of the `server` extra or with these settings.
        EmbeddedServiceError: the embedded service exited or timed out before it was ready.
    """
    from ._pytest_service import SpoolService

    base_url = _setting(pytestconfig, "spool_base_url")
    if base_url is not None:
        service = SpoolService.attach(base_url, api_key=os.environ.get("SPOOL_API_KEY"))
    else:
        service = SpoolService.start(store=_setting(pytestconfig, "spool_store"))
    pytestconfig.stash[_SERVICE] = service
    try:
        yield service
    finally:
        del pytestconfig.stash[_SERVICE]
        service.close()


@pytest.fixture
def spool_client(spool_service: SpoolService) -> Iterator[Client]:
    """An `sdk.Client` of the session's service, closed after the test.

    Yields:
        The client; the streams it touched and the messages it published are swept after the test.
    """
    with spool_service.client() as client:
        yield client


@pytest.fixture
def spool_receiver(spool_service: SpoolService) -> Iterator[DeliveryReceiver]:
    """A local endpoint the service may deliver to: `.url`, `.deliveries`, `.wait_for()`.

    Yields:
        The DeliveryReceiver, which stops listening after the test.

    Raises:
        APIError: the service's signing keys could not be read (PermissionDeniedError when the
            API key lacks `admin` on every message).
    """
    from ._pytest_receiver import DeliveryReceiver

    receiver = DeliveryReceiver(spool_service.receiver())
    try:
        yield receiver
    finally:
        receiver.close()


@pytest.fixture
def spool_wait_for_delivery(
    spool_receiver: DeliveryReceiver,
) -> Callable[..., list[Delivery]]:
    """`spool_wait_for_delivery(count=1, timeout=10)`: `spool_receiver.wait_for`, as a fixture.

    Returns:
        `DeliveryReceiver.wait_for` of the test's receiver: it returns the deliveries, or raises
        AssertionError when they do not arrive in time or one fails verification.
    """
    return spool_receiver.wait_for
