"""Automatic batching against the real service: concurrent single publishes share batch requests,
each caller gets its own result, and a batch refused for its content is retried item by item.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import httpx
import pytest

import sdk
from sdk._embedded import EmbeddedService

# Long enough that concurrent publishes certainly meet; a full batch goes out at once anyway.
LINGER = 0.05
# Over the service's 1 MiB body limit together, under it alone.
HALF_MEGABYTE = "x" * (600 * 1024)


def _counting(requests: list[str]) -> httpx.AsyncClient:
    async def count(request: httpx.Request) -> None:
        requests.append(request.url.path)

    return httpx.AsyncClient(event_hooks={"request": [count]})


async def test_concurrent_publishes_to_a_stream_share_requests(
    service: EmbeddedService, name: Callable[[str], str]
) -> None:
    """64 concurrent publishes become a few batch requests; every caller gets its own id, and
    the stream holds each body once.
    """
    stream = name("batched")
    requests: list[str] = []
    http = _counting(requests)
    batching = sdk.Batching(linger=LINGER, max_items=32)
    async with sdk.AsyncClient(
        service.base_url, service.token, http_client=http, batching=batching
    ) as client:
        ids = await asyncio.gather(*(client.publish(stream, {"n": n}) for n in range(64)))
        publishing = list(requests)
        entries = await client.streams.range(stream, count=1000)
    await http.aclose()

    assert len(set(ids)) == 64
    assert sorted(entry.body["n"] for entry in entries) == list(range(64))
    by_id = {entry.id: entry.body["n"] for entry in entries}
    assert [by_id[entry_id] for entry_id in ids] == list(range(64))
    assert publishing == [f"/v1/streams/{stream}/batch"] * 2


async def test_concurrent_jobs_share_requests(
    service: EmbeddedService, name: Callable[[str], str]
) -> None:
    """Single job publishes to one queue are batched too, each with its own receipt."""
    queue_name = name("batched")
    requests: list[str] = []
    http = _counting(requests)
    async with sdk.AsyncClient(
        service.base_url, service.token, http_client=http, batching=True
    ) as client:
        await client.queues.create(queue_name)
        queue = await client.init_queue(queue_name)
        requests.clear()
        receipts = await asyncio.gather(*(queue.publish("work", {"n": n}) for n in range(20)))
        publishing = list(requests)
        jobs = await queue.jobs(limit=100)
    await http.aclose()

    assert len({receipt.job_id for receipt in receipts}) == 20
    assert sorted(job.payload["n"] for job in jobs) == list(range(20))
    assert publishing == [f"/v1/queues/{queue_name}/batch"]


async def test_a_batch_too_large_together_is_sent_item_by_item(
    service: EmbeddedService, name: Callable[[str], str]
) -> None:
    """Two bodies over the size limit together (413) go again one by one, and both land."""
    stream = name("big")
    async with sdk.AsyncClient(
        service.base_url, service.token, batching=sdk.Batching(linger=LINGER)
    ) as client:
        first, second = await asyncio.gather(
            client.publish(stream, HALF_MEGABYTE), client.publish(stream, HALF_MEGABYTE)
        )
        assert first != second
        assert await client.streams.length(stream) == 2


async def test_only_the_caller_whose_body_is_refused_fails(
    service: EmbeddedService, name: Callable[[str], str]
) -> None:
    """In a batch refused for one body, the others still publish and only that caller fails."""
    stream = name("mixed")
    async with sdk.AsyncClient(
        service.base_url, service.token, batching=sdk.Batching(linger=LINGER)
    ) as client:
        small, too_large = await asyncio.gather(
            client.publish(stream, {"ok": True}),
            client.publish(stream, "x" * (1100 * 1024)),
            return_exceptions=True,
        )
        assert isinstance(small, str)
        assert isinstance(too_large, sdk.PublishError)
        assert isinstance(too_large.__cause__, sdk.PayloadTooLargeError)
        assert await client.streams.length(stream) == 1


def test_a_sync_client_batches_publishes_from_threads(
    service: EmbeddedService, name: Callable[[str], str]
) -> None:
    """Threads publishing through one batching Client each get their own id."""
    stream = name("threads")
    ids: list[str] = []
    with sdk.Client(
        service.base_url, service.token, batching=sdk.Batching(linger=LINGER)
    ) as client:

        def publish(number: int) -> None:
            ids.append(client.publish(stream, {"n": number}))

        threads = [threading.Thread(target=publish, args=(n,)) for n in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert client.streams.length(stream) == 16
    assert len(set(ids)) == 16


@pytest.mark.parametrize("batching", [True, sdk.Batching(linger=0.5)])
async def test_a_publish_with_its_own_key_is_sent_alone(
    service: EmbeddedService, name: Callable[[str], str], batching: sdk.Batching | bool
) -> None:
    """An Idempotency-Key belongs to one request, so such a publish never joins a batch."""
    stream = name("keyed")
    requests: list[str] = []
    http = _counting(requests)
    async with sdk.AsyncClient(
        service.base_url, service.token, http_client=http, batching=batching
    ) as client:
        first = await client.publish(stream, {"n": 1}, idempotency_key="order-1")
        again = await client.publish(stream, {"n": 1}, idempotency_key="order-1")
    await http.aclose()
    assert first == again
    assert requests == [f"/v1/streams/{stream}/entries"] * 2


def test_publish_nowait_sends_in_the_background_and_close_waits_for_it(
    service: EmbeddedService, name: Callable[[str], str]
) -> None:
    """A producer publishing one at a time with publish_nowait gets futures at once; the jobs
    and entries go in a few batch requests, each future resolves to its own receipt or id, a
    bad topic raises before anything is queued, and close() sends what is still queued.
    """
    queue_name, stream = name("nowait-jobs"), name("nowait-entries")
    requests: list[str] = []
    http = httpx.Client(
        event_hooks={"request": [lambda request: requests.append(request.url.path)]}
    )
    with sdk.Client(service.base_url, service.token, http_client=http) as client:
        client.queues.create(queue_name)
        queue = client.init_queue(queue_name)
        jobs = [queue.publish_nowait("welcome", {"n": n}) for n in range(300)]
        with pytest.raises(sdk.InvalidTopicError):
            queue.publish_nowait("not a topic", {})
        entries = [client.publish_nowait(stream, {"n": n}) for n in range(300)]
        client.flush()
        assert all(future.done() for future in jobs + entries)
        receipts = [future.result() for future in jobs]
        assert len({receipt.job_id for receipt in receipts}) == 300
        ids = [future.result() for future in entries]
        assert ids == sorted(ids, key=lambda entry_id: tuple(map(int, entry_id.split("-"))))
        assert [entry.body["n"] for entry in client.streams.range(stream, count=1000)] == list(
            range(300)
        )
        assert queue.info().stats.ready == 300
        last = [client.publish_nowait(stream, {"n": n}) for n in range(300, 310)]
    http.close()
    assert all(future.done() and not future.exception() for future in last)
    batches = [path for path in requests if path.endswith(("/batch", "/entries/batch"))]
    assert 2 <= len(batches) < 100
    with sdk.Client(service.base_url, service.token) as client:
        assert client.streams.info(stream).length == 310


async def test_async_publish_nowait_resolves_futures_and_close_waits(
    service: EmbeddedService, name: Callable[[str], str]
) -> None:
    """The AsyncClient's publish_nowait returns futures at once; close() waits for them."""
    queue_name, stream = name("anowait-jobs"), name("anowait-entries")
    async with sdk.AsyncClient(service.base_url, service.token) as client:
        await client.queues.create(queue_name)
        queue = await client.init_queue(queue_name)
        jobs = [queue.publish_nowait("welcome", {"n": n}) for n in range(200)]
        await client.flush()
        assert len({(await job).job_id for job in jobs}) == 200
        entries = [client.publish_nowait(stream, {"n": n}) for n in range(200)]
    assert all(entry.done() for entry in entries)
    async with sdk.AsyncClient(service.base_url, service.token) as client:
        assert [entry.body["n"] for entry in await client.streams.range(stream, count=1000)] == (
            list(range(200))
        )
