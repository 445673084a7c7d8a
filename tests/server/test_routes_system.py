"""Health, the API document and the calling token (server/routes/system.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from generated.pydantic_models import TokenInfo
from server.config import Permission, RateLimit, Settings, TokenConfig
from tests.conftest import RunningApp, assert_problem

AppFactory = Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]]

ROOT = Path(__file__).resolve().parents[2]


async def test_health_reports_the_store_kind_without_a_token(
    api: RunningApp, store_url: str
) -> None:
    """GET /v1/health answers 200 with the store's kind and needs no token."""
    response = await api.client.get("/v1/health", headers={"Authorization": ""})
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["store"] == store_url.split(":", 1)[0]
    assert body["version"]


async def test_health_is_503_when_the_store_does_not_answer(api: RunningApp) -> None:
    """A store whose ping fails makes health a 503 unavailable problem with Retry-After."""

    async def broken_ping() -> bool:
        raise ConnectionError("store is gone")

    api.store.ping = broken_ping
    response = await api.client.get("/v1/health")
    assert response.status_code == 503
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["retry-after"] == "1"
    assert response.json()["code"] == "unavailable"


async def test_openapi_document_is_served_byte_for_byte(api: RunningApp) -> None:
    """GET /openapi.yaml returns the file's exact bytes as application/yaml, without a token."""
    response = await api.client.get("/openapi.yaml", headers={"Authorization": ""})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/yaml"
    assert response.content == (ROOT / "openapi.yaml").read_bytes()


async def test_no_other_schema_is_served(api: RunningApp) -> None:
    """Framework-style schema paths are plain 404s: openapi.yaml, and its reference at /docs,
    are the only documents.
    """
    for path in ("/openapi.json", "/redoc", "/v1/openapi.yaml"):
        response = await api.client.get(path)
        assert response.status_code == 404, path
        assert response.json()["code"] == "not_found"


async def test_the_development_token_reads_itself(api: RunningApp) -> None:
    """getToken answers the development token: id dev, every permission, development true."""
    response = await api.client.get("/v1/token")
    assert response.status_code == 200, response.text
    document = response.json()
    TokenInfo.model_validate(document)
    assert document == {
        "id": "dev",
        "development": True,
        "permissions": [{"resource": "*", "name": "*", "actions": ["admin", "consume", "publish"]}],
    }


async def test_a_configured_token_reads_itself_and_never_its_secret(
    app_factory: AppFactory, store_url: str
) -> None:
    """A token with one narrow permission still reads itself: its id, permissions as
    configured, quota and rate limit, and nothing of its secret; an unknown key is 401.
    """
    narrow = TokenConfig(
        id="billing",
        secret="billing-secret-value",
        permissions=(Permission("queue", "billing-*", frozenset({"publish", "consume"})),),
        quota=1000,
        rate_limit=RateLimit(per_second=5.0, burst=10),
    )
    dev_named = TokenConfig(id="dev", secret="not-development", permissions=())
    settings = Settings(tokens=(narrow, dev_named), store_url=store_url)
    async with app_factory(settings, token=narrow.secret) as running:
        response = await running.client.get("/v1/token")
        assert response.status_code == 200, response.text
        assert "billing-secret-value" not in response.text
        assert response.json() == {
            "id": "billing",
            "development": False,
            "permissions": [
                {"resource": "queue", "name": "billing-*", "actions": ["consume", "publish"]}
            ],
            "quota": 1000,
            "rate_limit": {"per_second": 5.0, "burst": 10},
        }
        headers = {"Authorization": "Bearer not-development"}
        named_dev = (await running.client.get("/v1/token", headers=headers)).json()
        assert (named_dev["id"], named_dev["development"], named_dev["permissions"]) == (
            "dev",
            False,
            [],
        )
        wrong = await running.client.get("/v1/token", headers={"Authorization": "Bearer nope"})
        assert_problem(wrong, 401, "unauthenticated")
        assert_problem(
            await running.client.get("/v1/token", headers={"Authorization": ""}),
            401,
            "unauthenticated",
        )
