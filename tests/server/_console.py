"""Running the console in-process for its tests: an app with tokens of chosen permissions, an
httpx client holding the console's cookie, and the form token read from a page.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator

import httpx

from server.app import create_app, lifespan
from server.config import ALL_ACTIONS, MetricsSettings, Permission, Settings, TokenConfig
from server.stores.base import Store
from tests.conftest import TEST_DESTINATIONS

__all__ = [
    "ADMIN_TOKEN",
    "BILLING_TOKEN",
    "CONSOLE_TOKENS",
    "HOOKS_TOKEN",
    "ConsoleApp",
    "console_app",
    "csrf_of",
    "sign_in",
]

ADMIN_TOKEN = "admin-secret"
# Sees only the billing-* names of every kind, and any message to https://billing.example.com/.
BILLING_TOKEN = "billing-secret"
# May publish and read messages to https://billing.example.com/ and nothing else.
HOOKS_TOKEN = "hooks-secret"
CONSOLE_TOKENS = (
    TokenConfig(
        id="admin",
        secret=ADMIN_TOKEN,
        permissions=(Permission(resource="*", name="*", actions=ALL_ACTIONS),),
    ),
    TokenConfig(
        id="billing",
        secret=BILLING_TOKEN,
        permissions=(
            Permission(resource="stream", name="billing-*", actions=ALL_ACTIONS),
            Permission(resource="queue", name="billing-*", actions=ALL_ACTIONS),
            Permission(resource="url_group", name="billing-*", actions=ALL_ACTIONS),
            Permission(
                resource="message", name="https://billing.example.com/*", actions=ALL_ACTIONS
            ),
        ),
    ),
    TokenConfig(
        id="hooks",
        secret=HOOKS_TOKEN,
        permissions=(
            Permission(
                resource="message",
                name="https://billing.example.com/*",
                actions=frozenset({"publish", "consume"}),
            ),
        ),
    ),
)
_CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')


class ConsoleApp:
    """A running app: a client for the console (cookies kept) and one for the API (admin), and
    what they reach it by, for more clients.
    """

    def __init__(
        self,
        console: httpx.AsyncClient,
        api: httpx.AsyncClient,
        store: Store,
        transport: httpx.AsyncBaseTransport,
    ) -> None:
        self.console = console
        self.api = api
        self.store = store
        self.transport = transport


@contextlib.asynccontextmanager
async def console_app(
    store_url: str,
    *,
    console: bool = True,
    base_url: str = "http://spool.test",
    tokens: tuple[TokenConfig, ...] = CONSOLE_TOKENS,
    metrics: bool = False,
) -> AsyncIterator[ConsoleApp]:
    """The app on ``store_url`` with ``tokens`` (:data:`CONSOLE_TOKENS` unless told), the console
    on unless told, metrics (and so the dashboard's rates) off unless told.
    """
    settings = Settings(
        tokens=tokens,
        store_url=store_url,
        allowed_destinations=TEST_DESTINATIONS,
        console=console,
        metrics=MetricsSettings(enabled=metrics),
    )
    app = create_app(settings, services=())
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with (
            httpx.AsyncClient(transport=transport, base_url=base_url) as browser,
            httpx.AsyncClient(
                transport=transport,
                base_url=base_url,
                headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
            ) as api,
        ):
            yield ConsoleApp(browser, api, app.state.context.store, transport)


def csrf_of(page: httpx.Response) -> str:
    """The form token a console page carries."""
    found = _CSRF.search(page.text)
    assert found is not None, page.text
    return found.group(1)


async def sign_in(client: httpx.AsyncClient, token: str) -> str:
    """Sign in with ``token`` and return the session's form token."""
    response = await client.post("/console/sign-in", data={"token": token})
    assert response.status_code == 303, response.text
    return csrf_of(await client.get("/console/streams"))
