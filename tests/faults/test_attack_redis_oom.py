"""The attack on a Redis out of memory, against a real service: a client publishes until Redis,
at ``maxmemory`` under ``noeviction``, refuses. Every write then answers ``503 store_full`` with
``Retry-After`` (as a full SQLite disk does), and so do a lease and the reads Redis runs in a
MULTI, never ``500 internal_error``; nothing refused is written, the refused publish's
Idempotency-Key stays free, and trimming the stream that filled Redis, which the API allows over
the limit, lets publishing resume.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests._full_redis import FullRedis, small_redis
from tests.conftest import ServerProcess, assert_problem
from tests.faults._config import CONFIG, TOKEN

pytestmark = [pytest.mark.slow, pytest.mark.redis]

# Batches of this many entries of this size fill the private Redis (a few MB) in a few requests.
_BATCH = [{"body": "x" * 50_000} for _ in range(10)]
_MAX_FILLING_BATCHES = 100
_KEY = "oom-publish-1"


@pytest.fixture
def full_redis() -> Iterator[FullRedis]:
    with small_redis() as redis_server:
        yield redis_server


@pytest.fixture
def client(
    full_redis: FullRedis, spool_server: Callable[..., ServerProcess]
) -> Iterator[httpx.Client]:
    server = spool_server(
        f"{full_redis.url}?prefix=spooltest-{uuid.uuid4().hex[:12]}", config=CONFIG
    )
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=30) as http:
        yield http


def _publish_until_refused(client: httpx.Client) -> httpx.Response:
    for _ in range(_MAX_FILLING_BATCHES):
        response = client.post("/v1/streams/filler/batch", json={"entries": _BATCH})
        if response.status_code != 201:
            return response
    pytest.fail(f"Redis took {_MAX_FILLING_BATCHES} batches without refusing one")


def _assert_store_full(response: httpx.Response) -> None:
    problem = assert_problem(response, 503, "store_full")
    assert response.headers["retry-after"] == "5"
    assert "out of memory" in problem["detail"]


def test_a_full_redis_answers_store_full_and_publishing_resumes_once_room_is_made(
    client: httpx.Client, full_redis: FullRedis
) -> None:
    """Publishes (one entry, a batch, a job, a batch of jobs, a message), a lease and reads in
    a MULTI (a stream's info, a range) answer ``503 store_full``; keys are unchanged by them.
    Trimming the filler stream frees the memory; the same publish with the same key is then
    written, once.
    """
    assert client.put("/v1/queues/work", json={}).status_code == 201
    assert client.post("/v1/queues/work/jobs", json={"topic": "t", "payload": 1}).status_code == 202
    assert client.post("/v1/streams/events/entries", json={"body": 0}).status_code == 201

    _assert_store_full(_publish_until_refused(client))
    full_redis.hold_full()
    before = full_redis.store_keys()
    idempotent = {"Idempotency-Key": _KEY}
    refused: list[tuple[str, str, dict[str, Any] | None, dict[str, str]]] = [
        ("POST", "/v1/streams/events/entries", {"body": 1}, idempotent),
        ("POST", "/v1/streams/events/batch", {"entries": [{"body": 2}, {"body": 3}]}, {}),
        ("POST", "/v1/queues/work/jobs", {"topic": "t", "payload": 2}, {}),
        ("POST", "/v1/queues/work/batch", {"jobs": [{"topic": "t", "payload": 3}]}, {}),
        (
            "POST",
            "/v1/messages",
            {"url": "http://127.0.0.1:9/hook", "body": {"n": 1}, "delay": 3600},
            {},
        ),
        ("POST", "/v1/queues/work/leases", {"max_jobs": 1}, {}),
        ("GET", "/v1/streams/events", None, {}),
        ("GET", "/v1/streams/events/entries", None, {}),
    ]
    for method, path, document, headers in refused:
        response = client.request(method, path, json=document, headers=headers)
        _assert_store_full(response)
    assert full_redis.store_keys() == before

    trimmed = client.post("/v1/streams/filler/trim", json={"maxlen": 0, "approximate": False})
    assert trimmed.status_code == 200, trimmed.text

    published = client.post("/v1/streams/events/entries", json={"body": 1}, headers=idempotent)
    assert published.status_code == 201, published.text
    assert "idempotent-replayed" not in published.headers
    entries = client.get("/v1/streams/events/entries")
    assert entries.status_code == 200, entries.text
    assert [entry["body"] for entry in entries.json()["entries"]] == [0, 1]
    leased = client.post("/v1/queues/work/leases", json={"max_jobs": 1})
    assert leased.status_code == 200, leased.text
    assert [job["payload"] for job in leased.json()["jobs"]] == [1]
