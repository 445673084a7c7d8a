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
