"""The publish pipeline (server/routes/_publish.py): a token's quota and its rate limit, and the
path an Idempotency-Key is scoped to.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import pytest
from starlette.requests import Request

from server.config import Permission, RateLimit, Settings, TokenConfig
from server.routes._publish import _url_path
from tests.conftest import TEST_DESTINATIONS, RunningApp, assert_problem

AppFactory = Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]]
EVERYTHING = (
    Permission(resource="*", name="*", actions=frozenset({"publish", "consume", "admin"})),
)


def _quota_settings(store_url: str, quota: int) -> Settings:
    token = TokenConfig(id="metered", secret="secret-metered", permissions=EVERYTHING, quota=quota)
    return Settings(tokens=(token,), store_url=store_url, allowed_destinations=TEST_DESTINATIONS)


async def test_the_quota_counts_every_published_item(
    app_factory: AppFactory, store_url: str
) -> None:
    """Each entry of a batch counts; a publish that would pass the quota is refused whole."""
    async with app_factory(_quota_settings(store_url, 3), token="secret-metered") as running:
        batch = {"entries": [{"body": 1}, {"body": 2}]}
        assert (
            await running.client.post("/v1/streams/events/batch", json=batch)
        ).status_code == 201
        over = await running.client.post("/v1/streams/events/batch", json=batch)
        problem = assert_problem(over, 429, "quota_exceeded")
        assert "retry-after" not in over.headers
        assert "3" in problem["detail"]
        assert (await running.client.get("/v1/streams/events")).json()["length"] == 2
        one = await running.client.post("/v1/streams/events/entries", json={"body": 3})
        assert one.status_code == 201
        assert_problem(
            await running.client.post("/v1/streams/events/entries", json={"body": 4}),
            429,
            "quota_exceeded",
        )


async def test_a_failed_publish_gives_its_quota_back(
    app_factory: AppFactory, store_url: str
) -> None:
    """Quota taken for a publish that the store then refuses is refunded."""
    async with app_factory(_quota_settings(store_url, 1), token="secret-metered") as running:
        job = {"topic": "t", "payload": 1}
        assert_problem(
            await running.client.post("/v1/queues/jobs/jobs", json=job), 404, "queue_not_found"
        )
        await running.client.put("/v1/queues/jobs", json={})
        assert (await running.client.post("/v1/queues/jobs/jobs", json=job)).status_code == 202


async def test_a_url_group_counts_one_per_endpoint(app_factory: AppFactory, store_url: str) -> None:
    """A message to a URL group of two endpoints uses two of the quota."""
    async with app_factory(_quota_settings(store_url, 3), token="secret-metered") as running:
        endpoints = [{"url": "https://a.example.com/"}, {"url": "https://b.example.com/"}]
        await running.client.put("/v1/url-groups/pair", json={"endpoints": endpoints})
        message = {"url_group": "pair", "body": 1}
        assert (await running.client.post("/v1/messages", json=message)).status_code == 202
        assert_problem(
            await running.client.post("/v1/messages", json=message), 429, "quota_exceeded"
        )


async def test_invalid_publishes_use_no_quota(app_factory: AppFactory, store_url: str) -> None:
    """A publish refused by validation takes nothing from the quota."""
    async with app_factory(_quota_settings(store_url, 1), token="secret-metered") as running:
        path = "/v1/streams/events/entries"
        for _ in range(3):
            bad = await running.client.post(path, json={"body": 1, "maxlen": -1})
            assert_problem(bad, 422, "validation_failed")
        assert (await running.client.post(path, json={"body": 1})).status_code == 201


async def test_publishing_too_fast_is_rate_limited(app_factory: AppFactory, store_url: str) -> None:
    """Over its rate, a token's publishes get 429 rate_limited with Retry-After; reads do not."""
    token = TokenConfig(
        id="fast",
        secret="secret-fast",
        permissions=EVERYTHING,
        rate_limit=RateLimit(per_second=0.01, burst=1),
    )
    settings = Settings(tokens=(token,), store_url=store_url)
    async with app_factory(settings, token="secret-fast") as running:
        path = "/v1/streams/events/entries"
        assert (await running.client.post(path, json={"body": 1})).status_code == 201
        response = await running.client.post(path, json={"body": 2})
        problem = assert_problem(response, 429, "rate_limited")
        assert int(response.headers["retry-after"]) >= 1
        assert "fast" in problem["detail"]
        assert (await running.client.get("/v1/streams/events")).json()["length"] == 1


@pytest.mark.parametrize(
    "path", ["/v1/streams/events/entries", "/v1/queues/a?b#c/jobs", "/v1/q\\x/%3F", "/a b/é"]
)
@pytest.mark.parametrize("host", [b"api.example:8443", b"bad host", None])
def test_the_keyed_path_is_what_starlette_calls_the_url_path(path: str, host: bytes | None) -> None:
    """Keys scoped before the path was read from the scope keep matching: the two agree on
    every path, escapes included, whatever the Host header says.
    """
    headers = [] if host is None else [(b"host", host)]
    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "headers": headers,
        "server": ("127.0.0.1", 8000),
        "scheme": "http",
        "query_string": b"x=1",
        "root_path": "",
    }
    request = Request(scope)
    assert _url_path(request) == request.url.path
