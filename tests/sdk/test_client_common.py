"""What both clients share (sdk/_client_common.py): `whoami()`, the token the client sends."""

from __future__ import annotations

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import resolve

TOKEN = {
    "id": "billing",
    "development": False,
    "permissions": [
        {"resource": "queue", "name": "billing-*", "actions": ["consume", "publish"]},
        {"resource": "*", "name": "*", "actions": ["admin"]},
    ],
    "quota": 100,
    "rate_limit": {"per_second": 2.5, "burst": 5},
}


async def test_whoami_reads_the_token_as_typed_results(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """`whoami()` asks GET /v1/token and answers a TokenInfo with its permissions and limits."""
    route = api.get("/v1/token").mock(return_value=httpx.Response(200, json=TOKEN))
    token = await resolve(client.whoami())
    assert route.called
    assert token == sdk.TokenInfo(
        id="billing",
        development=False,
        permissions=[
            sdk.TokenPermission("queue", "billing-*", ["consume", "publish"]),
            sdk.TokenPermission("*", "*", ["admin"]),
        ],
        quota=100,
        rate_limit=sdk.TokenRateLimit(per_second=2.5, burst=5),
    )
    bare = {"id": "dev", "development": True, "permissions": []}
    api.get("/v1/token").mock(return_value=httpx.Response(200, json=bare))
    assert await resolve(client.whoami()) == sdk.TokenInfo("dev", True, [], None, None)


async def test_whoami_tells_a_bad_key(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A key the service does not know is an AuthenticationError, not retried."""
    problem = {
        "type": "https://spool.dev/problems/unauthenticated",
        "title": "Unauthenticated",
        "status": 401,
        "detail": "unknown bearer token",
        "code": "unauthenticated",
    }
    route = api.get("/v1/token").mock(
        return_value=httpx.Response(
            401,
            json=problem,
            headers={"content-type": "application/problem+json", "x-should-retry": "false"},
        )
    )
    with pytest.raises(sdk.AuthenticationError):
        await resolve(client.whoami())
    assert route.call_count == 1


def test_whoami_against_a_real_service_tells_the_development_token_and_a_bad_key(
    delivering_client: sdk.Client,
) -> None:
    """The embedded service's token is its development token; a wrong key is refused."""
    token = delivering_client.whoami()
    assert (token.id, token.development) == ("dev", True)
    assert token.permissions == [sdk.TokenPermission("*", "*", ["admin", "consume", "publish"])]
    service = delivering_client.embedded_service
    assert service is not None
    with sdk.Client(service.base_url, "not-the-key", max_retries=0) as wrong:
        with pytest.raises(sdk.AuthenticationError):
            wrong.whoami()
    assert "secret" not in repr(token) and service.token not in repr(token)
