"""Health and the API document (server/routes/system.py)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import RunningApp

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
