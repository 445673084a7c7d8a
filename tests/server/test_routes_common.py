"""What every route shares (server/routes/_common.py): the publish pipeline's quota and rate
limit, dates, query parameters.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from server.config import Permission, RateLimit, Settings, TokenConfig
from server.routes._common import rfc3339
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


def test_dates_are_rfc3339_utc_with_a_z() -> None:
    """Times are written with milliseconds and a Z, as the spec's examples are."""
    assert rfc3339(0) == "1970-01-01T00:00:00.000Z"
    assert rfc3339(1796472000.25) == "2026-12-05T12:00:00.250Z"


async def test_repeated_query_parameters_use_one_value(api: RunningApp) -> None:
    """A query parameter given twice is read once, not rejected or crashed on."""
    await api.client.post("/v1/streams/events/batch", json={"entries": [{"body": 1}, {"body": 2}]})
    response = await api.client.get("/v1/streams/events/entries?count=1&count=2")
    assert response.status_code == 200
    assert len(response.json()["entries"]) in (1, 2)


async def test_whole_floats_are_integers(api: RunningApp) -> None:
    """As in JSON Schema, ``90.0`` is an integer (Python clients send it); ``90.5`` is not."""
    created = await api.client.put("/v1/queues/jobs", content=b'{"lease_seconds": 90.0}')
    assert created.status_code == 201
    assert created.json()["lease_seconds"] == 90
    fraction = await api.client.put("/v1/queues/jobs", content=b'{"lease_seconds": 90.5}')
    assert_problem(fraction, 422, "validation_failed")
    nested = await api.client.post(
        "/v1/queues/jobs/batch", content=b'{"jobs": [{"topic": "t", "payload": 2.0, "delay": 1.0}]}'
    )
    assert nested.status_code == 202
    job_id = nested.json()["receipts"][0]["job_id"]
    job = (await api.client.get(f"/v1/queues/jobs/jobs/{job_id}")).json()
    assert job["payload"] == 2.0


async def test_null_is_not_a_value_for_typed_optional_fields(api: RunningApp) -> None:
    """``null`` for an optional typed field is 422; for an any-JSON field it is a value."""
    response = await api.client.post(
        "/v1/streams/events/batch", json={"entries": [{"body": None}], "minid": None}
    )
    problem = assert_problem(response, 422, "validation_failed")
    assert [error["location"] for error in problem["errors"]] == ["body.minid"]
    nested = await api.client.post(
        "/v1/messages/batch",
        json={"messages": [{"url": "https://example.com/", "body": None, "headers": None}]},
    )
    problem = assert_problem(nested, 422, "validation_failed")
    assert problem["errors"][0]["location"] == "body.messages.0.headers"
    accepted = await api.client.post("/v1/streams/events/entries", json={"body": None})
    assert accepted.status_code == 201


async def test_other_methods_on_the_batch_path_are_405(api: RunningApp) -> None:
    """/v1/messages/batch takes only POST; GET there is 405, not an invalid message id."""
    response = await api.client.get("/v1/messages/batch")
    assert_problem(response, 405, "method_not_allowed")
    assert response.headers["allow"] == "POST"


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
