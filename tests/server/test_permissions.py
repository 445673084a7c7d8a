"""The service enforces exactly the permission each operation states in ``x-spool-permission``.

For every operation, on both stores, its own example request is sent: without a token and with an
unknown one (401); with a token holding just the stated permission (it must get past the
permission check: anything but 401 and 403); with a token holding every other permission there is
(other kinds, other actions: 403); and, where the operation names its resource in the path, with
the stated kind and action on other names only (403).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from typing import Any

import httpx
import pytest

from server.app import create_app, lifespan
from server.config import ALL_ACTIONS, Action, Permission, Resource, Settings, TokenConfig
from tests.conftest import TEST_DESTINATIONS, assert_problem
from tests.generated._spec import Operation, example_request, operations

KINDS: tuple[Resource, ...] = ("stream", "queue", "message", "url_group")
SECURED = [operation for operation in operations() if operation.security]


def _token(token_id: str, rules: Iterable[tuple[Resource, str, frozenset[Action]]]) -> TokenConfig:
    return TokenConfig(
        id=token_id,
        secret=f"secret-{token_id}",
        permissions=tuple(
            Permission(resource=kind, name=name, actions=actions) for kind, name, actions in rules
        ),
    )


def _everything_but(kind: Resource) -> list[tuple[Resource, str, frozenset[Action]]]:
    return [(other, "*", ALL_ACTIONS) for other in KINDS if other != kind]


def _other_names(permission: dict[str, str]) -> TokenConfig | None:
    """A token with the stated kind and action on names that miss the example's, when the
    operation names its resource in the path.
    """
    if permission["scope"] != "path" or permission["action"] == "any":
        return None
    kind: Resource = permission["resource"]  # type: ignore[assignment]
    action: Action = permission["action"]  # type: ignore[assignment]
    return _token("other-names", [(kind, "zz-not-this-one-*", frozenset({action}))])


def _tokens(permission: dict[str, str]) -> tuple[list[TokenConfig], TokenConfig]:
    """The tokens that hold just the stated permission, and the one that holds all the others."""
    kind: Resource = permission["resource"]  # type: ignore[assignment]
    action = permission["action"]
    if action == "any":
        allowed = [_token(f"only-{one}", [(kind, "*", frozenset({one}))]) for one in ALL_ACTIONS]
        return allowed, _token("all-other-kinds", _everything_but(kind))
    stated: Action = action  # type: ignore[assignment]
    allowed = [_token("stated", [(kind, "*", frozenset({stated}))])]
    others = [*_everything_but(kind), (kind, "*", ALL_ACTIONS - {stated})]
    if permission["scope"] == "every":
        # Covering every URL and group by some glob is still not "every name".
        others += [(kind, "https://*/*", ALL_ACTIONS), (kind, "http://*/*", ALL_ACTIONS)]
    return allowed, _token("all-others", others)


@contextlib.asynccontextmanager
async def _app(tokens: list[TokenConfig], store_url: str) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        tokens=tuple(tokens), store_url=store_url, allowed_destinations=TEST_DESTINATIONS
    )
    app = create_app(settings, services=())
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://spool.test") as client:
            yield client


async def _send(client: httpx.AsyncClient, operation: Operation, secret: str | None) -> Any:
    request = example_request(operation)
    headers = {key: str(value) for key, value in request.header_params.items()}
    if secret is not None:
        headers["Authorization"] = f"Bearer {secret}"
    return await client.request(
        operation.method.upper(),
        request.path,
        params=dict(request.query_params),
        headers=headers,
        json=request.body if request.has_body else None,
    )


@pytest.mark.parametrize("operation", SECURED, ids=[op.operation_id for op in SECURED])
async def test_the_service_enforces_the_stated_permission(
    operation: Operation, store_url: str
) -> None:
    """The stated permission is enough; no token, an unknown one, every other permission
    together, or the stated one on other names is not.
    """
    permission = operation.raw["x-spool-permission"]
    allowed, denied = _tokens(permission)
    other_names = _other_names(permission)
    refused = [denied] if other_names is None else [denied, other_names]
    async with _app([*allowed, *refused], store_url) as client:
        for secret in (None, "not-a-known-token"):
            assert_problem(await _send(client, operation, secret), 401, "unauthenticated")
        for token in allowed:
            response = await _send(client, operation, token.secret)
            assert response.status_code not in (401, 403), (token.id, response.text)
        for token in refused:
            response = await _send(client, operation, token.secret)
            assert_problem(response, 403, "permission_denied")
