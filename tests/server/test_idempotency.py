"""Idempotent publishes (server/idempotency.py): replay, conflict, in progress, release."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import Any

import pytest

from server.config import Permission, Settings, TokenConfig
from server.idempotency import idempotent_request
from tests.conftest import TEST_DESTINATIONS, RunningApp, assert_problem

AppFactory = Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]]
KEY = {"Idempotency-Key": "5f0c6a1e-2d4b-4c8e-9a8f-0d6c1b2a3e4f"}
HOOK = "https://example.com/hooks/a"
EVERYTHING = (
    Permission(resource="*", name="*", actions=frozenset({"publish", "consume", "admin"})),
)


async def _count_written(api: RunningApp) -> int:
    """Entries, jobs and messages written (the tests below use these names); call it once, as
    it claims the messages it counts.
    """
    count = 0
    stream = await api.client.get("/v1/streams/events")
    if stream.status_code == 200:
        count += stream.json()["length"]
    jobs = await api.client.get("/v1/queues/jobs/jobs")
    count += len(jobs.json()["jobs"])
    count += len(await api.store.claim_due_messages(now=1e12, limit=1000, lease_margin=0))
    return count


PUBLISHES: list[tuple[str, str, dict[str, Any], int]] = [
    ("appendEntry", "/v1/streams/events/entries", {"body": {"n": 1}}, 1),
    ("appendEntries", "/v1/streams/events/batch", {"entries": [{"body": 1}, {"body": 2}]}, 2),
    ("publishJob", "/v1/queues/jobs/jobs", {"topic": "t", "payload": 1}, 1),
    ("publishJobs", "/v1/queues/jobs/batch", {"jobs": [{"topic": "t", "payload": 1}]}, 1),
    ("publishMessage", "/v1/messages", {"url": HOOK, "body": "x"}, 1),
    ("publishMessages", "/v1/messages/batch", {"messages": [{"url": HOOK, "body": "x"}]}, 1),
]


@pytest.mark.parametrize(
    ("operation", "path", "body", "items"), PUBLISHES, ids=[p[0] for p in PUBLISHES]
)
async def test_a_repeat_replays_the_first_response_and_writes_nothing(
    api: RunningApp, operation: str, path: str, body: dict[str, Any], items: int
) -> None:
    """Every publish repeated with its key answers the stored response, marked as replayed."""
    await api.client.put("/v1/queues/jobs", json={})
    first = await api.client.post(path, json=body, headers=KEY)
    assert first.status_code in (201, 202), first.text
    assert "idempotent-replayed" not in first.headers
    repeat = await api.client.post(path, json=body, headers=KEY)
    assert repeat.status_code == first.status_code
    assert repeat.content == first.content
    assert repeat.headers["idempotent-replayed"] == "true"
    assert repeat.headers["content-type"] == "application/json"
    assert await _count_written(api) == items


async def test_the_same_key_with_another_body_is_a_conflict(api: RunningApp) -> None:
    """A used key with a different request is 409 conflict, and nothing more is written."""
    path = "/v1/streams/events/entries"
    await api.client.post(path, json={"body": 1}, headers=KEY)
    response = await api.client.post(path, json={"body": 2}, headers=KEY)
    problem = assert_problem(response, 409, "conflict")
    assert "different request" in problem["detail"]
    assert (await api.client.get("/v1/streams/events")).json()["length"] == 1


async def test_a_key_still_in_progress_is_a_conflict(api: RunningApp) -> None:
    """While the first request holds the key, a repeat is 409 conflict saying so."""
    path = "/v1/streams/events/entries"
    raw = b'{"body": 1}'
    reservation = idempotent_request(
        KEY["Idempotency-Key"],
        key_pattern=re.compile(r"[\x21-\x7E]{1,255}"),
        token_id="dev",
        operation="appendEntry",
        method="POST",
        path=path,
        raw_body=raw,
    )
    assert reservation is not None
    await api.store.begin_idempotent(reservation.key, reservation.request_hash, ttl=60)
    response = await api.client.post(path, content=raw, headers=KEY)
    problem = assert_problem(response, 409, "conflict")
    assert "in progress" in problem["detail"]
    assert_problem(await api.client.get("/v1/streams/events"), 404, "stream_not_found")


async def test_a_failed_publish_frees_its_key(api: RunningApp) -> None:
    """A publish that fails (queue missing) releases the key, so the corrected repeat runs."""
    job = {"topic": "t", "payload": 1}
    failed = await api.client.post("/v1/queues/jobs/jobs", json=job, headers=KEY)
    assert_problem(failed, 404, "queue_not_found")
    await api.client.put("/v1/queues/jobs", json={})
    retried = await api.client.post("/v1/queues/jobs/jobs", json=job, headers=KEY)
    assert retried.status_code == 202
    assert "idempotent-replayed" not in retried.headers


async def test_an_invalid_request_does_not_reserve_the_key(api: RunningApp) -> None:
    """A request refused by validation never touches the key."""
    path = "/v1/streams/events/entries"
    assert_problem(
        await api.client.post(path, json={"body": 1, "maxlen": -1}, headers=KEY),
        422,
        "validation_failed",
    )
    assert (await api.client.post(path, json={"body": 1}, headers=KEY)).status_code == 201


async def test_keys_are_scoped_to_the_path(api: RunningApp) -> None:
    """The same key on two streams is two independent publishes."""
    for stream in ("a", "b"):
        response = await api.client.post(
            f"/v1/streams/{stream}/entries", json={"body": 1}, headers=KEY
        )
        assert response.status_code == 201
        assert "idempotent-replayed" not in response.headers


async def test_keys_are_scoped_to_the_token(app_factory: AppFactory, store_url: str) -> None:
    """Two tokens using the same key on the same path do not see each other's responses."""
    tokens = tuple(
        TokenConfig(id=name, secret=f"secret-{name}", permissions=EVERYTHING)
        for name in ("one", "two")
    )
    settings = Settings(tokens=tokens, store_url=store_url, allowed_destinations=TEST_DESTINATIONS)
    async with app_factory(settings, token="secret-one") as running:
        path = "/v1/streams/events/entries"
        first = await running.client.post(path, json={"body": 1}, headers=KEY)
        other = await running.client.post(
            path, json={"body": 1}, headers={**KEY, "Authorization": "Bearer secret-two"}
        )
        assert "idempotent-replayed" not in other.headers
        assert other.json()["id"] != first.json()["id"]


@pytest.mark.parametrize("key", [b"", b"has space", b"x" * 256, "naïve".encode()])
async def test_an_invalid_key_is_422(api: RunningApp, key: bytes) -> None:
    """An Idempotency-Key outside the spec's pattern is 422 located at the header."""
    response = await api.client.post(
        "/v1/streams/events/entries", json={"body": 1}, headers={b"Idempotency-Key": key}
    )
    problem = assert_problem(response, 422, "validation_failed")
    assert problem["errors"][0]["location"] == "header.Idempotency-Key"


async def test_a_replay_does_not_use_quota(app_factory: AppFactory, store_url: str) -> None:
    """Replaying a publish writes nothing, so it takes nothing from the token's quota."""
    token = TokenConfig(id="q", secret="secret-q", permissions=EVERYTHING, quota=1)
    settings = Settings(tokens=(token,), store_url=store_url)
    async with app_factory(settings, token="secret-q") as running:
        path = "/v1/streams/events/entries"
        assert (await running.client.post(path, json={"body": 1}, headers=KEY)).status_code == 201
        replay = await running.client.post(path, json={"body": 1}, headers=KEY)
        assert replay.headers["idempotent-replayed"] == "true"
        assert_problem(await running.client.post(path, json={"body": 2}), 429, "quota_exceeded")


def test_the_request_hash_covers_method_path_and_body() -> None:
    """Changing the method, the path or one byte of the body changes the hash."""
    pattern = re.compile(r"[\x21-\x7E]{1,255}")

    def hashed(method: str, path: str, body: bytes) -> str:
        request = idempotent_request(
            "k",
            key_pattern=pattern,
            token_id="t",
            operation="op",
            method=method,
            path=path,
            raw_body=body,
        )
        assert request is not None
        return request.request_hash

    base = hashed("POST", "/a", b"{}")
    assert (
        len(
            {
                base,
                hashed("PUT", "/a", b"{}"),
                hashed("POST", "/b", b"{}"),
                hashed("POST", "/a", b"{ }"),
            }
        )
        == 4
    )
    assert (
        idempotent_request(
            None,
            key_pattern=pattern,
            token_id="t",
            operation="op",
            method="POST",
            path="/",
            raw_body=b"",
        )
        is None
    )
