"""One bad publish in a batch fails alone, against the real service: with `batching=` on a
Client (threads) and an AsyncClient, and with `publish_nowait` on both, for streams and queues.

A body the codec cannot encode (NaN), one the service cannot read (nested too deep: 400), one too
large (413), a job option the service refuses (422) and a name refused before sending each fail
only their own caller; the other publishes of the batch land exactly once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest

import sdk
from sdk._embedded import EmbeddedService

# Publishes per case, and the one that is bad.
COUNT = 7
BAD_AT = 3


def _nested(depth: int) -> Any:
    body: Any = 0
    for _ in range(depth):
        body = [body]
    return body


@dataclasses.dataclass(frozen=True)
class Case:
    """A bad publish: what it changes in an item, and what it fails with."""

    kind: str  # "stream" or "queue"
    label: str
    bad: dict[str, Any]
    # The error's class for a refusal before sending; else the PublishError's cause's class.
    refused_at_once: type[Exception] | None = None
    cause: type[BaseException] | None = None


CASES = [
    *(Case(kind, "nan", {"body": float("nan")}, cause=ValueError) for kind in ("stream", "queue")),
    *(
        Case(kind, "nested-too-deep", {"body": _nested(250)}, cause=sdk.BadRequestError)
        for kind in ("stream", "queue")
    ),
    *(
        Case(kind, "too-large", {"body": "x" * (1100 * 1024)}, cause=sdk.PayloadTooLargeError)
        for kind in ("stream", "queue")
    ),
    Case(
        "queue",
        "empty-deduplication-id",
        {"deduplication_id": ""},
        cause=sdk.UnprocessableEntityError,
    ),
    Case(
        "stream",
        "bad-stream-name",
        {"target": "not a stream!"},
        refused_at_once=sdk.InvalidNameError,
    ),
    Case("queue", "bad-topic", {"topic": "not a topic"}, refused_at_once=sdk.InvalidTopicError),
]
MODES = ["batching-sync", "batching-async", "nowait-sync", "nowait-async"]


def _items(case: Case) -> list[dict[str, Any]]:
    return [{"body": {"n": n}, **(case.bad if n == BAD_AT else {})} for n in range(COUNT)]


def _publisher(client: Any, queue: Any, target: str, *, nowait: bool) -> Callable[..., Any]:
    """Publishes one item through `client` (or its `queue`, for jobs), sync or async, with
    `publish` or `publish_nowait`: its result, awaitable or future.
    """

    def publish(item: dict[str, Any]) -> Any:
        if queue is None:
            send = client.publish_nowait if nowait else client.publish
            return send(item.get("target", target), item["body"])
        job = queue.publish_nowait if nowait else queue.publish
        return job(
            item.get("topic", "work"),
            item["body"],
            deduplication_id=item.get("deduplication_id"),
        )

    return publish


def _outcome(publish: Callable[[dict[str, Any]], Any], item: dict[str, Any]) -> Any:
    """What publishing `item` gave, or the error it raised at once."""
    try:
        return publish(item)
    except sdk.SpoolError as error:
        return error


def _batching_sync(
    service: EmbeddedService, case: Case, target: str, paths: list[str]
) -> list[Any]:
    """Threads publish at once through a batching Client, which sends them as one batch."""
    joining = COUNT - (case.refused_at_once is not None)
    http = httpx.Client(event_hooks={"request": [lambda request: paths.append(request.url.path)]})
    batching = sdk.Batching(linger=1.0, max_items=joining)
    results: list[Any] = [None] * COUNT
    with (
        http,
        sdk.Client(service.base_url, service.token, http_client=http, batching=batching) as client,
    ):
        queue = client.init_queue(target) if case.kind == "queue" else None
        publish = _publisher(client, queue, target, nowait=False)
        items = _items(case)

        def run(n: int) -> None:
            results[n] = _outcome(publish, items[n])

        threads = [threading.Thread(target=run, args=(n,)) for n in range(COUNT)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    return results


def _nowait_sync(service: EmbeddedService, case: Case, target: str, paths: list[str]) -> list[Any]:
    """publish_nowait while the sender is held in a first request, so that every item waits for
    the next one.
    """
    sending, release = threading.Event(), threading.Event()

    def hold_the_first(request: httpx.Request) -> None:
        paths.append(request.url.path)
        if request.method == "POST" and not sending.is_set():
            sending.set()
            assert release.wait(60)

    http = httpx.Client(event_hooks={"request": [hold_the_first]})
    with http, sdk.Client(service.base_url, service.token, http_client=http) as client:
        queue = client.init_queue(target) if case.kind == "queue" else None
        publish = _publisher(client, queue, target, nowait=True)
        first = publish({"body": {"warmup": True}})
        assert sending.wait(60)
        paths.clear()
        outcomes = [_outcome(publish, item) for item in _items(case)]
        release.set()
        client.flush()
        assert first.result()
    return [_resolved(outcome) for outcome in outcomes]


def _resolved(outcome: Any) -> Any:
    if isinstance(outcome, Exception):
        return outcome
    error = outcome.exception()
    return outcome.result() if error is None else error


async def _async_client_run(
    service: EmbeddedService, case: Case, target: str, paths: list[str], *, nowait: bool
) -> list[Any]:
    async def record(request: httpx.Request) -> None:
        paths.append(request.url.path)

    http = httpx.AsyncClient(event_hooks={"request": [record]})
    batching = False if nowait else sdk.Batching(linger=1.0, max_items=COUNT)
    async with (
        http,
        sdk.AsyncClient(
            service.base_url, service.token, http_client=http, batching=batching
        ) as client,
    ):
        queue = await client.init_queue(target) if case.kind == "queue" else None
        paths.clear()
        publish = _publisher(client, queue, target, nowait=nowait)
        if nowait:
            outcomes = [_outcome(publish, item) for item in _items(case)]
            await client.flush()
            return [_resolved(outcome) for outcome in outcomes]
        return await asyncio.gather(
            *(publish(item) for item in _items(case)), return_exceptions=True
        )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.kind}-{case.label}")
async def test_only_the_bad_publish_of_a_batch_fails(
    service: EmbeddedService, name: Callable[[str], str], case: Case, mode: str
) -> None:
    """The bad item's caller alone gets the error; every other item lands once, and a batch
    request was made."""
    target = name(f"isolated-{case.kind}")
    if case.kind == "queue":
        with sdk.Client(service.base_url, service.token) as admin:
            admin.queues.create(target)
    paths: list[str] = []
    if mode == "batching-sync":
        results = _batching_sync(service, case, target, paths)
    elif mode == "nowait-sync":
        results = _nowait_sync(service, case, target, paths)
    else:
        results = await _async_client_run(
            service, case, target, paths, nowait=mode == "nowait-async"
        )

    failed = [n for n, result in enumerate(results) if isinstance(result, BaseException)]
    assert failed == [BAD_AT], results
    error = results[BAD_AT]
    if case.refused_at_once is not None:
        assert isinstance(error, case.refused_at_once)
    else:
        assert isinstance(error, sdk.PublishError)
        assert case.cause is not None and isinstance(error.__cause__, case.cause), error
    assert any(path.endswith("/batch") for path in paths), paths

    good = [n for n in range(COUNT) if n != BAD_AT]
    with sdk.Client(service.base_url, service.token) as reader:
        if case.kind == "stream":
            ids = [results[n] for n in good]
            entries = reader.streams.range(target, count=1000)
            bodies = {entry.id: entry.body for entry in entries if "n" in entry.body}
            assert sorted(bodies.values(), key=lambda body: body["n"]) == [{"n": n} for n in good]
            assert sorted(ids) == sorted(bodies)
        else:
            receipts = [results[n] for n in good]
            jobs = reader.init_queue(target).jobs(limit=1000)
            payloads = {job.job_id: job.payload for job in jobs if "n" in job.payload}
            assert sorted(payloads.values(), key=lambda body: body["n"]) == [{"n": n} for n in good]
            assert sorted(receipt.job_id for receipt in receipts) == sorted(payloads)
