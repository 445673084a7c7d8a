"""Queue doorbells (server/stores/redis/doorbell.py): a publish through one store, or a job given back
(released, nacked without delay, a dead job retried), wakes a lease long poll of another store on
the same Redis or Redis Cluster, as one in another service process, long before the lease's own
re-check; and each queue's doorbell stays a few entries long and goes with its queue.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from urllib.parse import urlsplit

import pytest
import redis
from redis.cluster import RedisCluster

from server.stores.base import LeasedJob, NewJob, QueueSettings
from server.stores.redis import RedisStore
from server.stores.redis.doorbell import MAX_READERS, Doorbells
from server.stores.redis.keys import StoreKeys

pytestmark = pytest.mark.redis

# Far beyond how long a test waits for a woken lease, so only a ring can wake it in time.
_RECHECK_SECONDS = 60.0
_WOKEN_WITHIN_SECONDS = 5.0
_WAIT_MS = 30_000


@pytest.fixture(params=["redis", "redis-cluster"])
def backend(request: pytest.FixtureRequest) -> str:
    """Standalone Redis, then the test cluster."""
    return str(request.param)


@pytest.fixture
def store_url(backend: str, request: pytest.FixtureRequest) -> str:
    fixture = {"redis": "redis_store_url", "redis-cluster": "redis_cluster_store_url"}[backend]
    return str(request.getfixturevalue(fixture))


@pytest.fixture
async def stores(store_url: str) -> AsyncIterator[tuple[RedisStore, RedisStore]]:
    """Two stores on one Redis, as two service processes have; neither re-checks on its own
    within the test.
    """
    async with AsyncExitStack() as stack:
        pair = []
        for _ in range(2):
            store = RedisStore.from_url(store_url)
            await store.open()
            stack.push_async_callback(store.close)
            store.lease_recheck_seconds = _RECHECK_SECONDS
            pair.append(store)
        yield pair[0], pair[1]


@pytest.fixture
def raw(backend: str, request: pytest.FixtureRequest) -> Iterator[redis.Redis | RedisCluster]:
    """A plain client of the same Redis or cluster, to look at the doorbell's key."""
    client: redis.Redis | RedisCluster
    if backend == "redis":
        client = redis.Redis.from_url(request.getfixturevalue("redis_url"), decode_responses=True)
    else:
        address = urlsplit(request.getfixturevalue("redis_cluster_url")).netloc.split(",")[0]
        host, _, port = address.rpartition(":")
        client = RedisCluster(host=host, port=int(port), decode_responses=True)
    try:
        yield client
    finally:
        client.close()


async def _long_poll(store: RedisStore, queue: str) -> list[LeasedJob]:
    return await store.lease_jobs(
        queue, consumer=None, topics=None, max_jobs=1, lease_seconds=None, wait_ms=_WAIT_MS
    )


async def _waiting(task: asyncio.Task[list[LeasedJob]]) -> None:
    """Give the long poll time to find the queue empty and start waiting."""
    await asyncio.sleep(0.3)
    assert not task.done()


async def test_a_publish_through_another_store_wakes_a_long_poll(
    stores: tuple[RedisStore, RedisStore],
) -> None:
    """The lease returns the job long before its re-check would have looked again."""
    leasing, publishing = stores
    await publishing.put_queue("work", QueueSettings())
    lease = asyncio.create_task(_long_poll(leasing, "work"))
    await _waiting(lease)
    [receipt] = await publishing.publish_jobs("work", [NewJob("t", {"n": 1})])
    leased = await asyncio.wait_for(lease, timeout=_WOKEN_WITHIN_SECONDS)
    assert [job.job_id for job in leased] == [receipt.job_id]


async def _give_back(store: RedisStore, how: str, job: LeasedJob) -> None:
    if how == "release":
        await store.release_job("work", job.job_id, job.lease_id)
    elif how == "release_many":
        await store.release_jobs("work", [(job.job_id, job.lease_id)])
    elif how == "nack":
        await store.nack_job("work", job.job_id, job.lease_id, retry_delay=0, error="boom")
    else:
        await store.nack_job("work", job.job_id, job.lease_id, retry_delay=0, error="boom")
        await store.retry_job("work", job.job_id)


@pytest.mark.parametrize("how", ["release", "release_many", "nack", "retry"])
async def test_a_job_given_back_through_another_store_wakes_a_long_poll(
    stores: tuple[RedisStore, RedisStore], how: str
) -> None:
    """A job ready again at once (released, nacked without a retry delay, or retried once dead)
    rings as a publish does: the waiting lease gets it long before its re-check.
    """
    leasing, working = stores
    # One attempt: a nack makes the job dead, for the retry case to bring back.
    attempts = 1 if how == "retry" else 5
    await working.put_queue("work", QueueSettings(max_attempts=attempts))
    [receipt] = await working.publish_jobs("work", [NewJob("t", {"n": 1})])
    [job] = await _long_poll(working, "work")
    lease = asyncio.create_task(_long_poll(leasing, "work"))
    await _waiting(lease)
    await _give_back(working, how, job)
    leased = await asyncio.wait_for(lease, timeout=_WOKEN_WITHIN_SECONDS)
    assert [again.job_id for again in leased] == [receipt.job_id]


async def test_one_ring_wakes_every_long_poll_of_the_queue_in_a_process(
    stores: tuple[RedisStore, RedisStore],
) -> None:
    """Several leases waiting on one queue (and one on another queue) each get a job."""
    leasing, publishing = stores
    for queue in ("work", "other"):
        await publishing.put_queue(queue, QueueSettings())
    leases = [asyncio.create_task(_long_poll(leasing, "work")) for _ in range(3)]
    other = asyncio.create_task(_long_poll(leasing, "other"))
    for task in [*leases, other]:
        await _waiting(task)
    receipts = await publishing.publish_jobs("work", [NewJob("t", n) for n in range(3)])
    [other_receipt] = await publishing.publish_jobs("other", [NewJob("t", 0)])
    leased = await asyncio.wait_for(asyncio.gather(*leases), timeout=_WOKEN_WITHIN_SECONDS)
    assert sorted(job.job_id for jobs in leased for job in jobs) == sorted(
        receipt.job_id for receipt in receipts
    )
    other_leased = await asyncio.wait_for(other, timeout=_WOKEN_WITHIN_SECONDS)
    assert [job.job_id for job in other_leased] == [other_receipt.job_id]


async def test_a_lease_that_starts_after_the_ring_still_finds_the_job(
    stores: tuple[RedisStore, RedisStore],
) -> None:
    """Waiting from the ring its lease saw, a long poll is not woken by an older ring, and one
    that arrives between its look and its wait is not lost.
    """
    leasing, publishing = stores
    await publishing.put_queue("work", QueueSettings())
    for n in range(2):
        lease = asyncio.create_task(_long_poll(leasing, "work"))
        await _waiting(lease)
        [receipt] = await publishing.publish_jobs("work", [NewJob("t", n)])
        leased = await asyncio.wait_for(lease, timeout=_WOKEN_WITHIN_SECONDS)
        assert [job.job_id for job in leased] == [receipt.job_id]


async def test_the_doorbell_stays_short_and_goes_with_its_queue(
    stores: tuple[RedisStore, RedisStore], redis_prefix: str, raw: redis.Redis | RedisCluster
) -> None:
    """Only publishes of jobs ready now ring; the stream keeps the last few rings; deleting the
    queue deletes it.
    """
    _, store = stores
    doorbell = StoreKeys(redis_prefix).queue("work").doorbell
    await store.put_queue("work", QueueSettings())
    await store.publish_jobs("work", [NewJob("t", 0, delay=60)])
    assert raw.exists(doorbell) == 0
    for n in range(40):
        await store.publish_jobs("work", [NewJob("t", n)])
    assert raw.xlen(doorbell) == 16
    await store.delete_queue("work")
    assert raw.exists(doorbell) == 0


async def _turns(count: int = 3) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


async def test_doorbell_readers_are_few_and_end_when_no_lease_waits() -> None:
    """Without Redis: one reader per doorbell, at most ``MAX_READERS``, each reading from the ring
    its first lease saw, waking at once a lease that saw an older ring than it knows of, and
    ending after a read nobody waited for.
    """
    reads: list[tuple[str, str]] = []
    ring = asyncio.Event()

    async def read(doorbell: str, after: str) -> str | None:
        reads.append((doorbell, after))
        await ring.wait()
        return "2-0"

    bells = Doorbells(read)
    loop = asyncio.get_running_loop()
    waiting = [loop.create_future() for _ in range(MAX_READERS + 1)]
    for number, wake in enumerate(waiting):
        bells.watch(f"bell-{number}", "1-0", wake)
    second: asyncio.Future[None] = loop.create_future()
    bells.watch("bell-0", "1-0", second)
    await _turns()
    assert sorted(reads) == sorted((f"bell-{n}", "1-0") for n in range(MAX_READERS))
    behind: asyncio.Future[None] = loop.create_future()
    bells.watch("bell-0", "0-5", behind)
    assert behind.done()
    ring.set()
    await _turns()
    assert all(wake.done() for wake in waiting[:MAX_READERS]) and second.done()
    assert not waiting[MAX_READERS].done()
    reads.clear()
    await _turns()
    assert reads == []
    await bells.close()
