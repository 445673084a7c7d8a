"""Idempotent publishes (server/idempotency.py): replay, conflict, failures, concurrent repeats,
a killed process, quotas.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import re
import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from server.config import Permission, Settings, TokenConfig
from server.idempotency import idempotent_request
from server.stores.base import Store
from tests.conftest import DEV_TOKEN, TEST_DESTINATIONS, RunningApp, ServerProcess, assert_problem

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


@pytest.mark.parametrize(
    ("operation", "path", "body", "items"), PUBLISHES, ids=[p[0] for p in PUBLISHES]
)
async def test_an_idempotent_publish_is_one_store_call(
    api: RunningApp,
    monkeypatch: pytest.MonkeyPatch,
    operation: str,
    path: str,
    body: dict[str, Any],
    items: int,
) -> None:
    """With a key, the first publish and its replay each make one store call: the write, which
    keeps or replays the key itself (one transaction, one script: see the store suite). The calls
    counted are the store contract's; what a backend runs inside one is its own.
    """
    await api.client.put("/v1/queues/jobs", json={})
    calls: list[str] = []
    for name in dir(Store):
        method = getattr(api.store, name)
        if name.startswith("_") or not inspect.iscoroutinefunction(method):
            continue

        def counted(method: Any = method, name: str = name) -> Any:
            async def call(*args: Any, **kwargs: Any) -> Any:
                calls.append(name)
                return await method(*args, **kwargs)

            return call

        monkeypatch.setattr(api.store, name, counted())
    first = await api.client.post(path, json=body, headers=KEY)
    assert first.status_code in (201, 202), first.text
    repeat = await api.client.post(path, json=body, headers=KEY)
    assert repeat.headers["idempotent-replayed"] == "true"
    assert len(calls) == 2, calls
    assert calls[0] == calls[1] in {"append", "publish_jobs", "publish_messages"}


async def test_the_same_key_with_another_body_is_a_conflict(api: RunningApp) -> None:
    """A used key with a different request is 409 conflict, and nothing more is written."""
    path = "/v1/streams/events/entries"
    await api.client.post(path, json={"body": 1}, headers=KEY)
    response = await api.client.post(path, json={"body": 2}, headers=KEY)
    problem = assert_problem(response, 409, "conflict")
    assert "different request" in problem["detail"]
    assert (await api.client.get("/v1/streams/events")).json()["length"] == 1


@pytest.mark.parametrize(
    ("operation", "path", "body", "items"), PUBLISHES, ids=[p[0] for p in PUBLISHES]
)
async def test_concurrent_repeats_never_see_a_publish_in_progress(
    api: RunningApp, operation: str, path: str, body: dict[str, Any], items: int
) -> None:
    """Repeats sent while the first is still running all get its answer: one writes, the others
    replay it; none is told to wait, as there is no "in progress" state to see.
    """
    await api.client.put("/v1/queues/jobs", json={})
    responses = await asyncio.gather(
        *(api.client.post(path, json=body, headers=KEY) for _ in range(8))
    )
    assert {response.status_code for response in responses} in ({201}, {202})
    assert len({response.content for response in responses}) == 1
    assert sum("idempotent-replayed" not in response.headers for response in responses) == 1
    assert await _count_written(api) == items


async def test_a_failed_publish_leaves_no_record(api: RunningApp) -> None:
    """A publish whose write fails (queue missing, stream missing with nomkstream) records
    nothing under its key, so the repeat runs once the cause is fixed.
    """
    job = {"topic": "t", "payload": 1}
    failed = await api.client.post("/v1/queues/jobs/jobs", json=job, headers=KEY)
    assert_problem(failed, 404, "queue_not_found")
    await api.client.put("/v1/queues/jobs", json={})
    retried = await api.client.post("/v1/queues/jobs/jobs", json=job, headers=KEY)
    assert retried.status_code == 202
    assert "idempotent-replayed" not in retried.headers

    entries = {"entries": [{"body": 1}], "nomkstream": True}
    failed = await api.client.post("/v1/streams/events/batch", json=entries, headers=KEY)
    assert_problem(failed, 404, "stream_not_found")
    await api.client.post("/v1/streams/events/entries", json={"body": 0})
    retried = await api.client.post("/v1/streams/events/batch", json=entries, headers=KEY)
    assert retried.status_code == 201
    assert "idempotent-replayed" not in retried.headers
    assert (await api.client.get("/v1/streams/events")).json()["length"] == 2


async def test_a_replayed_batch_answers_the_url_groups_it_was_published_to(
    api: RunningApp,
) -> None:
    """A replay is rendered from what the first publish wrote: a URL group given another endpoint
    since then changes nothing in the answer, and nothing more is published.
    """
    await api.client.put("/v1/queues/jobs", json={})
    group = {"endpoints": [{"url": HOOK}]}
    assert (await api.client.put("/v1/url-groups/partners", json=group)).status_code == 200
    batch = {"messages": [{"url_group": "partners", "body": "x"}, {"url": HOOK, "body": "y"}]}
    first = await api.client.post("/v1/messages/batch", json=batch, headers=KEY)
    assert first.status_code == 202
    assert [len(result["messages"]) for result in first.json()["results"]] == [1, 1]
    group["endpoints"].append({"url": "https://example.com/hooks/b"})
    assert (await api.client.put("/v1/url-groups/partners", json=group)).status_code == 200
    repeat = await api.client.post("/v1/messages/batch", json=batch, headers=KEY)
    assert repeat.content == first.content
    assert repeat.headers["idempotent-replayed"] == "true"
    assert await _count_written(api) == 2


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
    """Replaying a publish writes nothing, so it takes nothing from the token's quota, and it is
    answered even once the quota is used up; a new publish then is still refused.
    """
    token = TokenConfig(id="q", secret="secret-q", permissions=EVERYTHING, quota=2)
    settings = Settings(tokens=(token,), store_url=store_url)
    async with app_factory(settings, token="secret-q") as running:
        path = "/v1/streams/events/entries"
        first = await running.client.post(path, json={"body": 1}, headers=KEY)
        assert first.status_code == 201
        for _ in range(3):
            replay = await running.client.post(path, json={"body": 1}, headers=KEY)
            assert replay.headers["idempotent-replayed"] == "true"
        assert (await running.client.post(path, json={"body": 2})).status_code == 201
        used_up = await running.client.post(path, json={"body": 1}, headers=KEY)
        assert used_up.content == first.content
        assert used_up.headers["idempotent-replayed"] == "true"
        other_key = {"Idempotency-Key": "another"}
        refused = await running.client.post(path, json={"body": 3}, headers=other_key)
        assert_problem(refused, 429, "quota_exceeded")
        conflict = await running.client.post(path, json={"body": 3}, headers=KEY)
        assert_problem(conflict, 409, "conflict")
        assert (await running.client.get("/v1/streams/events")).json()["length"] == 2


@pytest.mark.slow
def test_a_killed_process_leaves_every_key_safe_to_repeat(
    store_url: str, spool_server: Callable[..., ServerProcess]
) -> None:
    """SIGKILL a server in the middle of a stream of idempotent publishes, then repeat every one
    of them on a new server: each key was either written and recorded (the repeat replays it) or
    not at all (the repeat writes it), so every repeat succeeds and each publish exists once.
    """
    first = spool_server(store_url)
    started: list[int] = []
    lock = threading.Lock()
    stop = threading.Event()

    def publish_until_stopped(worker: int) -> None:
        with httpx.Client(base_url=first.base_url, headers=_auth(), timeout=30) as http:
            for n in range(worker, 100_000, 4):
                if stop.is_set():
                    return
                with lock:
                    started.append(n)
                try:
                    http.post(
                        "/v1/streams/events/entries",
                        json={"body": n},
                        headers={"Idempotency-Key": f"publish-{n}"},
                    )
                except httpx.TransportError:
                    return

    workers = [threading.Thread(target=publish_until_stopped, args=(n,)) for n in range(4)]
    for worker in workers:
        worker.start()
    with httpx.Client(base_url=first.base_url, headers=_auth(), timeout=30) as http:
        while len(started) < 100:
            http.get("/v1/health")
    first.kill()
    stop.set()
    for worker in workers:
        worker.join(timeout=60)

    second = spool_server(store_url)
    with httpx.Client(base_url=second.base_url, headers=_auth(), timeout=30) as http:
        for n in started:
            repeat = http.post(
                "/v1/streams/events/entries",
                json={"body": n},
                headers={"Idempotency-Key": f"publish-{n}"},
            )
            assert repeat.status_code == 201, repeat.text
        entries = http.get("/v1/streams/events/entries", params={"count": 1000}).json()
    assert sorted(entry["body"] for entry in entries["entries"]) == sorted(started)


def _auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {DEV_TOKEN}"}


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
            ttl=60,
        )
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
