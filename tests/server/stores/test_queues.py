"""The queue half of the store contract (``Store.put_queue`` … ``Store.delete_job``), on every backend.

Time-dependent tests move the store's clock (the ``clock`` fixture) instead of sleeping.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

import pytest

from server.stores.base import (
    ConflictError,
    JobReceipt,
    JobRecord,
    JobState,
    LeasedJob,
    NewJob,
    NotFoundError,
    QueueSettings,
    QueueStats,
    Store,
    StoreError,
)
from tests.server.stores._support import JOB_ID, LEASE_ID, FakeClock, make_queue


async def publish(store: Store, queue: str, *jobs: NewJob) -> list[JobReceipt]:
    """Publish ``jobs`` (one ``{"n": 0}`` job of topic ``email`` if none given)."""
    return await store.publish_jobs(queue, list(jobs) or [NewJob(topic="email", payload={"n": 0})])


async def lease(
    store: Store,
    queue: str = "work",
    *,
    max_jobs: int = 10,
    topics: Sequence[str] | None = None,
    lease_seconds: int | None = None,
) -> list[LeasedJob]:
    """Lease without waiting."""
    return await store.lease_jobs(
        queue,
        consumer="worker-1",
        topics=topics,
        max_jobs=max_jobs,
        lease_seconds=lease_seconds,
        wait_ms=0,
    )


# Queues ------------------------------------------------------------------------------------


async def test_put_queue_creates_then_updates_keeping_jobs(store: Store, clock: FakeClock) -> None:
    """The first ``put_queue`` creates; a second changes settings and keeps jobs and created_at."""
    created, was_created = await store.put_queue("work", QueueSettings())
    assert was_created
    # mypy's strict equality honours pytest.approx's __eq__ in lists and dicts but not in
    # fixed-length tuples, so it takes this comparison (and the file's others like it) for one
    # that never holds.
    assert (created.name, created.settings, created.created_at) == (  # type: ignore[comparison-overlap]
        "work",
        QueueSettings(),
        pytest.approx(clock.now, abs=0.01),
    )
    assert created.stats == QueueStats(ready=0, delayed=0, leased=0, dead=0)
    await publish(store, "work")
    clock.advance(60)
    changed = QueueSettings(
        max_attempts=2, lease_seconds=10, retention_seconds=3600, deduplication_window_seconds=0
    )
    updated, was_created = await store.put_queue("work", changed)
    assert not was_created
    assert (updated.settings, updated.created_at, updated.stats.ready) == (
        changed,
        created.created_at,
        1,
    )
    assert (await store.get_queue("work")).settings == changed


async def test_list_queues_by_name_and_delete_queue(store: Store) -> None:
    """``list_queues`` answers every queue by name; a deleted queue and its jobs are gone."""
    for name in ("zeta", "alpha", "mid"):
        await make_queue(store, name)
    assert [queue.name for queue in await store.list_queues()] == ["alpha", "mid", "zeta"]
    [receipt] = await publish(store, "mid")
    await store.delete_queue("mid")
    assert [queue.name for queue in await store.list_queues()] == ["alpha", "zeta"]
    await make_queue(store, "mid")
    with pytest.raises(NotFoundError) as raised:
        await store.get_job("mid", receipt.job_id)
    assert raised.value.code == "job_not_found"
    assert (await store.get_queue("mid")).stats == QueueStats(ready=0, delayed=0, leased=0, dead=0)


@pytest.mark.parametrize(
    "call",
    [
        lambda store: store.get_queue("missing"),
        lambda store: store.delete_queue("missing"),
        lambda store: store.publish_jobs("missing", [NewJob(topic="t", payload=1)]),
        lambda store: store.lease_jobs(
            "missing", consumer=None, topics=None, max_jobs=1, lease_seconds=None, wait_ms=0
        ),
        lambda store: store.get_job("missing", "job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"),
        lambda store: store.list_jobs("missing", state=None, limit=10),
        lambda store: store.ack_job("missing", "job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9", "lease_x"),
        lambda store: store.ack_jobs("missing", [("job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9", "lease_x")]),
        lambda store: store.nack_job(
            "missing", "job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9", "lease_x", retry_delay=0, error=None
        ),
        lambda store: store.extend_lease(
            "missing", "job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9", "lease_x", lease_seconds=10
        ),
        lambda store: store.retry_job("missing", "job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"),
        lambda store: store.delete_job("missing", "job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"),
    ],
    ids=[
        "get",
        "delete",
        "publish",
        "lease",
        "get_job",
        "list",
        "ack",
        "ack_many",
        "nack",
        "extend",
        "retry",
        "delete_job",
    ],
)
async def test_a_missing_queue_is_queue_not_found(
    store: Store, call: Callable[[Store], Awaitable[object]]
) -> None:
    """Every queue operation on a queue that was never created answers ``queue_not_found``."""
    with pytest.raises(NotFoundError) as raised:
        await call(store)
    assert raised.value.code == "queue_not_found"


async def test_publishing_never_creates_a_queue(store: Store) -> None:
    """A refused publish leaves no queue behind: queues are explicit."""
    with pytest.raises(NotFoundError):
        await publish(store, "implicit")
    with pytest.raises(NotFoundError):
        await store.get_queue("implicit")
    assert await store.list_queues() == []


# Publishing --------------------------------------------------------------------------------


async def test_publish_answers_one_receipt_per_job_in_order(store: Store, clock: FakeClock) -> None:
    """Receipts follow the request order, with fresh time-sortable ``job_`` ids."""
    await make_queue(store)
    receipts = await publish(
        store,
        "work",
        NewJob(topic="email", payload={"to": "a@example.com"}),
        NewJob(topic="sms", payload=["+1", 2]),
        NewJob(topic="email", payload="third"),
    )
    assert [(r.queue, r.topic, r.deduplicated) for r in receipts] == [
        ("work", "email", False),
        ("work", "sms", False),
        ("work", "email", False),
    ]
    assert all(JOB_ID.fullmatch(receipt.job_id) for receipt in receipts)
    assert len({receipt.job_id for receipt in receipts}) == 3
    job = await store.get_job("work", receipts[1].job_id)
    assert (job.job_id, job.queue, job.topic, job.payload, job.state) == (
        receipts[1].job_id,
        "work",
        "sms",
        ["+1", 2],
        "ready",
    )
    assert (job.attempts, job.max_attempts, job.lease_expires_at, job.last_error) == (
        0,
        5,
        None,
        None,
    )
    assert job.published_at == job.available_at == pytest.approx(clock.now, abs=0.01)


async def test_deduplication_id_within_the_window_yields_the_first_job(
    store: Store, clock: FakeClock
) -> None:
    """A repeated ``deduplication_id`` inside the window answers the first job's id, once."""
    await make_queue(store, deduplication_window_seconds=300)
    [first] = await publish(store, "work", NewJob(topic="email", payload=1, deduplication_id="d1"))
    clock.advance(299)
    [repeat] = await publish(store, "work", NewJob(topic="email", payload=2, deduplication_id="d1"))
    assert (repeat.job_id, repeat.deduplicated) == (first.job_id, True)
    [other] = await publish(store, "work", NewJob(topic="email", payload=3, deduplication_id="d2"))
    assert not other.deduplicated
    assert (await store.get_job("work", first.job_id)).deduplication_id == "d1"
    assert len(await store.list_jobs("work", state=None, limit=100)) == 2


async def test_deduplication_applies_within_one_batch(store: Store) -> None:
    """A ``deduplication_id`` repeated later in the same batch yields the batch's first job."""
    await make_queue(store)
    receipts = await publish(
        store,
        "work",
        NewJob(topic="email", payload=1, deduplication_id="same"),
        NewJob(topic="email", payload=2),
        NewJob(topic="email", payload=3, deduplication_id="same"),
    )
    assert [r.deduplicated for r in receipts] == [False, False, True]
    assert receipts[2].job_id == receipts[0].job_id
    assert len(await store.list_jobs("work", state=None, limit=100)) == 2


async def test_deduplication_id_is_forgotten_after_the_window(
    store: Store, clock: FakeClock
) -> None:
    """Once the window has passed the same ``deduplication_id`` makes a new job."""
    await make_queue(store, deduplication_window_seconds=300)
    [first] = await publish(store, "work", NewJob(topic="email", payload=1, deduplication_id="d1"))
    clock.advance(301)
    [second] = await publish(store, "work", NewJob(topic="email", payload=2, deduplication_id="d1"))
    assert not second.deduplicated
    assert second.job_id != first.job_id
    clock.advance(10)
    [third] = await publish(store, "work", NewJob(topic="email", payload=3, deduplication_id="d1"))
    assert (third.job_id, third.deduplicated) == (second.job_id, True)


async def test_deduplication_is_per_queue(store: Store) -> None:
    """The same ``deduplication_id`` in two queues makes two jobs."""
    await make_queue(store, "a")
    await make_queue(store, "b")
    [in_a] = await publish(store, "a", NewJob(topic="t", payload=1, deduplication_id="d"))
    [in_b] = await publish(store, "b", NewJob(topic="t", payload=1, deduplication_id="d"))
    assert not in_b.deduplicated
    assert in_a.job_id != in_b.job_id


async def test_a_failed_batch_publishes_nothing(store: Store) -> None:
    """A batch with one job that cannot be stored leaves no job and no deduplication id."""
    await make_queue(store)
    with pytest.raises((StoreError, TypeError, ValueError)):
        await publish(
            store,
            "work",
            NewJob(topic="email", payload=1, deduplication_id="d1"),
            NewJob(topic="email", payload=object()),
        )
    assert await store.list_jobs("work", state=None, limit=100) == []
    [receipt] = await publish(
        store, "work", NewJob(topic="email", payload=1, deduplication_id="d1")
    )
    assert not receipt.deduplicated


async def test_delay_holds_a_job_back_until_it_is_due(store: Store, clock: FakeClock) -> None:
    """A delayed job is ``delayed`` and unleasable until ``delay`` seconds have passed."""
    await make_queue(store)
    [receipt] = await publish(store, "work", NewJob(topic="email", payload=1, delay=60))
    job = await store.get_job("work", receipt.job_id)
    assert (job.state, job.available_at) == ("delayed", pytest.approx(clock.now + 60, abs=0.01))  # type: ignore[comparison-overlap]
    assert (await store.get_queue("work")).stats == QueueStats(ready=0, delayed=1, leased=0, dead=0)
    assert await lease(store) == []
    clock.advance(59)
    assert await lease(store) == []
    clock.advance(2)
    assert (await store.get_job("work", receipt.job_id)).state == "ready"
    assert [job.job_id for job in await lease(store)] == [receipt.job_id]


# Leasing -----------------------------------------------------------------------------------


async def test_lease_hands_out_the_oldest_jobs_first(store: Store, clock: FakeClock) -> None:
    """Leasing takes up to ``max_jobs`` available jobs in publish order."""
    await make_queue(store)
    receipts = []
    for n in range(5):
        receipts += await publish(store, "work", NewJob(topic="email", payload={"n": n}))
        clock.advance(0.001)
    first = await lease(store, max_jobs=2)
    second = await lease(store, max_jobs=10)
    assert [job.job_id for job in first + second] == [r.job_id for r in receipts]
    assert [job.payload for job in first] == [{"n": 0}, {"n": 1}]
    assert await lease(store) == []


async def test_a_lease_carries_attempt_lease_id_and_expiry(store: Store, clock: FakeClock) -> None:
    """A lease is attempt 1 with a fresh ``lease_`` id, ending after the queue's lease_seconds."""
    await make_queue(store, lease_seconds=45)
    [receipt] = await publish(store, "work", NewJob(topic="email", payload={"to": "x"}))
    [leased] = await lease(store)
    assert (leased.job_id, leased.queue, leased.topic, leased.payload, leased.attempt) == (
        receipt.job_id,
        "work",
        "email",
        {"to": "x"},
        1,
    )
    assert LEASE_ID.fullmatch(leased.lease_id)
    assert leased.lease_expires_at == pytest.approx(clock.now + 45, abs=0.01)
    assert leased.published_at == pytest.approx(clock.now, abs=0.01)
    job = await store.get_job("work", receipt.job_id)
    assert (job.state, job.attempts) == ("leased", 1)
    assert job.lease_expires_at == pytest.approx(clock.now + 45, abs=0.01)


async def test_a_leased_job_shows_its_consumer_while_the_lease_holds(
    store: Store, clock: FakeClock
) -> None:
    """``leased_by`` is the lease's consumer while it holds; none for an anonymous lease, after
    the lease ends or once the job is settled.
    """
    await make_queue(store, lease_seconds=30)
    first, second = await publish(
        store, "work", NewJob(topic="email", payload=1), NewJob(topic="email", payload=2)
    )
    [named] = await lease(store, max_jobs=1)
    [anonymous] = await store.lease_jobs(
        "work", consumer=None, topics=None, max_jobs=1, lease_seconds=None, wait_ms=0
    )
    assert (await store.get_job("work", first.job_id)).leased_by == "worker-1"
    assert (await store.get_job("work", second.job_id)).leased_by is None
    listed = await store.list_jobs("work", state="leased", limit=10)
    assert {job.job_id: job.leased_by for job in listed} == {
        first.job_id: "worker-1",
        second.job_id: None,
    }
    await store.ack_job("work", first.job_id, named.lease_id)
    assert (await store.get_job("work", first.job_id)).leased_by is None
    clock.advance(31)
    assert (await store.get_job("work", second.job_id)).leased_by is None
    assert anonymous.job_id == second.job_id


async def test_lease_seconds_overrides_the_queue_default(store: Store, clock: FakeClock) -> None:
    """A lease's own ``lease_seconds`` wins over the queue's."""
    await make_queue(store, lease_seconds=45)
    await publish(store, "work")
    [leased] = await lease(store, lease_seconds=5)
    assert leased.lease_expires_at == pytest.approx(clock.now + 5, abs=0.01)


async def test_lease_only_takes_jobs_of_the_given_topics(store: Store) -> None:
    """With ``topics`` only jobs of those topics are leased; the others stay ready."""
    await make_queue(store)
    receipts = await publish(
        store,
        "work",
        NewJob(topic="email", payload=1),
        NewJob(topic="sms", payload=2),
        NewJob(topic="push", payload=3),
    )
    leased = await lease(store, topics=["sms", "push"])
    assert [job.job_id for job in leased] == [receipts[1].job_id, receipts[2].job_id]
    assert [job.topic for job in await lease(store)] == ["email"]


async def test_a_leased_job_is_not_leased_again_while_its_lease_runs(
    store: Store, clock: FakeClock
) -> None:
    """Until its lease ends a job is ``leased`` and no other lease gets it."""
    await make_queue(store, lease_seconds=30)
    await publish(store, "work")
    assert len(await lease(store)) == 1
    clock.advance(29)
    assert await lease(store) == []
    assert (await store.get_queue("work")).stats == QueueStats(ready=0, delayed=0, leased=1, dead=0)


async def test_an_ended_lease_makes_the_job_available_again(store: Store, clock: FakeClock) -> None:
    """After its lease ends the job reads ``ready`` and is leased again as the next attempt."""
    await make_queue(store, lease_seconds=30)
    [receipt] = await publish(store, "work")
    [first] = await lease(store, lease_seconds=5)
    clock.advance(6)
    job = await store.get_job("work", receipt.job_id)
    assert (job.state, job.attempts) == ("ready", 1)
    assert (await store.get_queue("work")).stats == QueueStats(ready=1, delayed=0, leased=0, dead=0)
    [second] = await lease(store)
    assert (second.job_id, second.attempt) == (receipt.job_id, 2)
    assert second.lease_id != first.lease_id
    with pytest.raises(ConflictError) as raised:
        await store.ack_job("work", receipt.job_id, first.lease_id)
    assert raised.value.code == "lease_expired"


async def test_a_job_that_used_max_attempts_becomes_dead(store: Store, clock: FakeClock) -> None:
    """When the last allowed lease ends the job is ``dead`` and never leased again."""
    await make_queue(store, max_attempts=2, lease_seconds=10)
    [receipt] = await publish(store, "work")
    for attempt in (1, 2):
        [leased] = await lease(store)
        assert leased.attempt == attempt
        clock.advance(11)
    job = await store.get_job("work", receipt.job_id)
    assert (job.state, job.attempts, job.max_attempts) == ("dead", 2, 2)
    assert await lease(store) == []
    assert (await store.get_queue("work")).stats == QueueStats(ready=0, delayed=0, leased=0, dead=1)
    assert [job.job_id for job in await store.list_jobs("work", state="dead", limit=10)] == [
        receipt.job_id
    ]


async def test_a_lease_that_runs_out_on_the_last_attempt_says_so(
    store: Store, clock: FakeClock
) -> None:
    """A job whose last lease ran out is dead with that as its last error, replacing an earlier
    attempt's: read before anything settles the queue, listed after, and still after a retry.
    """
    await make_queue(store, max_attempts=2, lease_seconds=30)
    [receipt] = await publish(store, "work")
    [first] = await lease(store)
    await store.nack_job("work", receipt.job_id, first.lease_id, retry_delay=0, error="boom")
    await lease(store, lease_seconds=5)
    clock.advance(6)
    reason = "lease expired after 5 s, attempt 2 of 2"
    job = await store.get_job("work", receipt.job_id)
    assert (job.state, job.last_error) == ("dead", reason)
    [listed] = await store.list_jobs("work", state="dead", limit=10)
    assert listed.last_error == reason
    assert await lease(store) == []
    assert (await store.get_job("work", receipt.job_id)).last_error == reason
    retried = await store.retry_job("work", receipt.job_id)
    assert (retried.state, retried.last_error) == ("ready", reason)


class _LeaseDeaths:
    """What a store's ``on_lease_deaths`` listener was told, call by call."""

    def __init__(self, store: Store) -> None:
        self.told: list[tuple[str, list[str]]] = []
        store.on_lease_deaths(lambda queue, job_ids: self.told.append((queue, sorted(job_ids))))


async def test_the_jobs_a_lease_expiry_makes_dead_are_told_once(
    store: Store,
    clock: FakeClock,
    open_store: Callable[[], Awaitable[Store]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The write that moves them to dead tells its own store's listeners, once, also when another
    process settles the queue later; a job with attempts left is not dead and not told.
    """
    other = await open_store()
    monkeypatch.setattr(other, "clock", clock)
    deaths, other_deaths = _LeaseDeaths(store), _LeaseDeaths(other)
    await make_queue(store, max_attempts=2, lease_seconds=10)
    receipts = await publish(store, "work", *(NewJob(topic="email", payload=n) for n in range(3)))
    leased = await lease(store, max_jobs=2)
    for job in leased:
        await store.nack_job("work", job.job_id, job.lease_id, retry_delay=0, error="boom")
    await lease(store)
    clock.advance(11)
    assert (await store.get_job("work", receipts[0].job_id)).state == "dead"
    assert [job.job_id for job in await lease(store)] == [receipts[2].job_id]
    assert deaths.told == [("work", sorted(job.job_id for job in leased))]
    clock.advance(11)
    await lease(other)
    await store.list_jobs("work", state=None, limit=10)
    await other.get_queue("work")
    assert other_deaths.told == [("work", [receipts[2].job_id])]
    assert len(deaths.told) == 1


async def test_retry_and_delete_tell_of_a_job_dead_by_the_clock_and_a_refusal_tells_nothing(
    store: Store, clock: FakeClock
) -> None:
    """Retry and delete settle the queue first and tell of the jobs its ended leases killed; a
    retry refused for a job that is not dead settles nothing, so the death is told later.
    """
    deaths = _LeaseDeaths(store)
    await make_queue(store, max_attempts=1, lease_seconds=10)
    dying, spare = await publish(
        store, "work", *(NewJob(topic="email", payload=n) for n in range(2))
    )
    await lease(store, max_jobs=1)
    clock.advance(11)
    with pytest.raises(ConflictError):
        await store.retry_job("work", spare.job_id)
    assert deaths.told == []
    retried = await store.retry_job("work", dying.job_id)
    assert (retried.state, retried.attempts) == ("ready", 0)
    assert deaths.told == [("work", [dying.job_id])]
    assert [job.job_id for job in await lease(store, max_jobs=1)] == [dying.job_id]
    clock.advance(11)
    await store.delete_job("work", dying.job_id)
    assert deaths.told == [("work", [dying.job_id])] * 2


async def test_a_failing_lease_death_listener_does_not_fail_the_write(
    store: Store, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    def fail(_queue: str, _job_ids: Sequence[str]) -> None:
        raise RuntimeError("listener broke")

    store.on_lease_deaths(fail)
    deaths = _LeaseDeaths(store)
    await make_queue(store, max_attempts=1, lease_seconds=10)
    [receipt] = await publish(store, "work")
    await lease(store)
    clock.advance(11)
    assert await lease(store) == []
    assert deaths.told == [("work", [receipt.job_id])]
    assert "a listener of jobs dead by lease expiry failed" in caplog.text


async def test_a_lease_extended_then_run_out_counts_from_when_it_was_taken(
    store: Store, clock: FakeClock
) -> None:
    """The reason gives how long the lease was held in all, its extensions included."""
    await make_queue(store, max_attempts=1, lease_seconds=30)
    [receipt] = await publish(store, "work")
    [leased] = await lease(store)
    clock.advance(20)
    await store.extend_lease("work", receipt.job_id, leased.lease_id, lease_seconds=30)
    clock.advance(31)
    await store.list_jobs("work", state=None, limit=10)
    job = await store.get_job("work", receipt.job_id)
    assert (job.state, job.last_error) == ("dead", "lease expired after 50 s, attempt 1 of 1")


async def test_concurrent_leases_never_hand_out_one_job_twice(
    store: Store, open_store: Callable[[], Awaitable[Store]]
) -> None:
    """Many leases at once, through several store instances, give each job to one worker."""
    await make_queue(store)
    receipts = await store.publish_jobs("work", [NewJob(topic="t", payload=n) for n in range(40)])
    stores = [store, await open_store(), await open_store(), await open_store()]
    batches = await asyncio.gather(
        *(
            stores[n % len(stores)].lease_jobs(
                "work",
                consumer=f"worker-{n}",
                topics=None,
                max_jobs=3,
                lease_seconds=None,
                wait_ms=0,
            )
            for n in range(24)
        )
    )
    leased = [job.job_id for batch in batches for job in batch]
    assert len(leased) == len(set(leased))
    assert set(leased) <= {receipt.job_id for receipt in receipts}
    leased += [job.job_id for job in await lease(store, max_jobs=100)]
    assert sorted(leased) == sorted(receipt.job_id for receipt in receipts)


async def test_lease_waits_for_a_job_published_meanwhile(store: Store) -> None:
    """With ``wait_ms`` a lease that finds nothing takes the job published while it waits."""
    await make_queue(store)
    waiting = asyncio.create_task(
        store.lease_jobs(
            "work", consumer=None, topics=None, max_jobs=1, lease_seconds=None, wait_ms=20_000
        )
    )
    await asyncio.sleep(0.2)
    [receipt] = await publish(store, "work")
    leased = await asyncio.wait_for(waiting, timeout=60)
    assert [job.job_id for job in leased] == [receipt.job_id]


async def test_lease_returns_nothing_when_the_wait_ends(store: Store) -> None:
    """A lease that waits and sees no job answers an empty list."""
    await make_queue(store)
    assert (
        await store.lease_jobs(
            "work", consumer=None, topics=None, max_jobs=1, lease_seconds=None, wait_ms=100
        )
        == []
    )


# Settling leases ---------------------------------------------------------------------------


async def test_ack_marks_the_job_succeeded(store: Store) -> None:
    """Acking with the current lease makes the job ``succeeded`` and leaves the counts."""
    await make_queue(store)
    [receipt] = await publish(store, "work")
    [leased] = await lease(store)
    job = await store.ack_job("work", receipt.job_id, leased.lease_id)
    assert (job.job_id, job.state, job.attempts) == (receipt.job_id, "succeeded", 1)
    assert (await store.get_job("work", receipt.job_id)).state == "succeeded"
    assert (await store.get_queue("work")).stats == QueueStats(ready=0, delayed=0, leased=0, dead=0)
    assert await lease(store) == []


async def test_only_the_current_unexpired_lease_settles_a_job(
    store: Store, clock: FakeClock
) -> None:
    """Ack, nack, release and extend with a wrong, ended or used lease are ``lease_expired``."""
    await make_queue(store, lease_seconds=10)
    [receipt] = await publish(store, "work")
    [leased] = await lease(store)
    job_id = receipt.job_id
    settle: tuple[Callable[[str], Awaitable[JobRecord]], ...] = (
        lambda lease_id: store.ack_job("work", job_id, lease_id),
        lambda lease_id: store.nack_job("work", job_id, lease_id, retry_delay=0, error=None),
        lambda lease_id: store.release_job("work", job_id, lease_id),
        lambda lease_id: store.extend_lease("work", job_id, lease_id, lease_seconds=10),
    )
    for call in settle:
        with pytest.raises(ConflictError) as raised:
            await call("lease_01JDX4Q5Z8K2M3N4P5Q6R7S8T9")
        assert raised.value.code == "lease_expired"
    clock.advance(11)
    for call in settle:
        with pytest.raises(ConflictError) as raised:
            await call(leased.lease_id)
        assert raised.value.code == "lease_expired"
    [current] = await lease(store)
    await store.ack_job("work", job_id, current.lease_id)
    for call in settle:
        with pytest.raises(ConflictError) as raised:
            await call(current.lease_id)
        assert raised.value.code == "lease_expired"
        # Both stores say it in the same words.
        assert raised.value.detail == (
            f"lease {current.lease_id!r} of job {job_id!r} has ended or belongs to another worker"
        )


async def test_ack_jobs_acknowledges_each_current_lease_and_says_why_not_for_the_rest(
    store: Store, clock: FakeClock
) -> None:
    """One call settles many jobs; a wrong, ended, repeated or unknown one fails alone."""
    await make_queue(store, lease_seconds=10)
    await make_queue(store, "other")
    [elsewhere] = await publish(store, "other")
    receipts = await publish(
        store, "work", *[NewJob(topic="email", payload={"n": n}) for n in range(4)]
    )
    leased = await lease(store, max_jobs=3)
    clock.advance(5)
    [late] = await lease(store, lease_seconds=1)
    clock.advance(2)
    outcomes = await store.ack_jobs(
        "work",
        [
            (leased[0].job_id, leased[0].lease_id),
            (leased[1].job_id, "lease_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"),
            (leased[2].job_id, leased[2].lease_id),
            (leased[2].job_id, leased[2].lease_id),
            (late.job_id, late.lease_id),
            (elsewhere.job_id, "lease_x"),
            ("job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9", "lease_x"),
        ],
    )
    assert outcomes == [
        "acked",
        "lease_expired",
        "acked",
        "lease_expired",
        "lease_expired",
        "job_not_found",
        "job_not_found",
    ]
    states = [(await store.get_job("work", r.job_id)).state for r in receipts]
    assert states == ["succeeded", "leased", "succeeded", "ready"]
    assert (await store.get_queue("work")).stats == QueueStats(ready=1, delayed=0, leased=1, dead=0)
    # Nothing acked twice, nothing more acked on a repeat.
    again = await store.ack_jobs("work", [(leased[0].job_id, leased[0].lease_id)])
    assert again == ["lease_expired"]


async def test_ack_jobs_needs_at_least_one_lease(store: Store) -> None:
    await make_queue(store)
    with pytest.raises(StoreError) as raised:
        await store.ack_jobs("work", [])
    assert raised.value.code == "validation_failed"


async def test_settling_an_unknown_job_is_job_not_found(store: Store) -> None:
    """Ack, nack, release, extend, get and retry of a job the queue lacks: ``job_not_found``."""
    await make_queue(store)
    await make_queue(store, "other")
    [elsewhere] = await publish(store, "other")
    for job_id in ("job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9", elsewhere.job_id):
        for call in (
            store.ack_job("work", job_id, "lease_x"),
            store.nack_job("work", job_id, "lease_x", retry_delay=0, error=None),
            store.release_job("work", job_id, "lease_x"),
            store.extend_lease("work", job_id, "lease_x", lease_seconds=10),
            store.get_job("work", job_id),
            store.retry_job("work", job_id),
        ):
            with pytest.raises(NotFoundError) as raised:
                await call
            assert raised.value.code == "job_not_found"


async def test_nack_makes_the_job_ready_after_the_retry_delay(
    store: Store, clock: FakeClock
) -> None:
    """A nacked job keeps its error, waits ``retry_delay`` seconds, then is leased again."""
    await make_queue(store)
    [receipt] = await publish(store, "work")
    [leased] = await lease(store)
    job = await store.nack_job(
        "work", receipt.job_id, leased.lease_id, retry_delay=30, error="boom"
    )
    assert (job.state, job.attempts, job.last_error) == ("delayed", 1, "boom")
    assert job.available_at == pytest.approx(clock.now + 30, abs=0.01)
    assert job.lease_expires_at is None
    assert await lease(store) == []
    clock.advance(31)
    [again] = await lease(store)
    assert (again.job_id, again.attempt) == (receipt.job_id, 2)


async def test_nack_without_delay_makes_the_job_ready_now(store: Store) -> None:
    """``retry_delay=0`` makes the job available at once."""
    await make_queue(store)
    [receipt] = await publish(store, "work")
    [leased] = await lease(store)
    job = await store.nack_job("work", receipt.job_id, leased.lease_id, retry_delay=0, error=None)
    assert job.state == "ready"
    assert [job.job_id for job in await lease(store)] == [receipt.job_id]


async def test_nack_of_the_last_attempt_makes_the_job_dead(store: Store) -> None:
    """Nacking a job that used ``max_attempts`` makes it ``dead`` with the error kept."""
    await make_queue(store, max_attempts=1)
    [receipt] = await publish(store, "work")
    [leased] = await lease(store)
    job = await store.nack_job(
        "work", receipt.job_id, leased.lease_id, retry_delay=0, error="gave up"
    )
    assert (job.state, job.attempts, job.last_error) == ("dead", 1, "gave up")
    assert await lease(store) == []
    assert (await store.get_queue("work")).stats.dead == 1


async def test_release_gives_the_job_back_untried(store: Store, clock: FakeClock) -> None:
    """A released job is ready at once, first in line, with the attempt not counted and its last
    error kept; the next lease is the same attempt again.
    """
    await make_queue(store, max_attempts=3)
    [receipt, later] = await publish(
        store, "work", NewJob(topic="email", payload={"n": 0}), NewJob(topic="email", payload=1)
    )
    [first] = await lease(store, max_jobs=1)
    await store.nack_job("work", receipt.job_id, first.lease_id, retry_delay=0, error="boom")
    [second] = await lease(store, max_jobs=1)
    assert (second.job_id, second.attempt) == (receipt.job_id, 2)
    clock.advance(3)
    job = await store.release_job("work", receipt.job_id, second.lease_id)
    assert (job.state, job.attempts, job.last_error) == ("ready", 1, "boom")
    assert job.available_at == pytest.approx(clock.now, abs=0.01)
    assert (job.lease_expires_at, job.leased_by, job.finished_at) == (None, None, None)
    assert [job.job_id for job in await lease(store, max_jobs=1)] == [receipt.job_id]
    assert [job.job_id for job in await lease(store)] == [later.job_id]


async def test_release_on_the_last_attempt_never_makes_the_job_dead(store: Store) -> None:
    """Released on its only attempt, a job is ready again with that attempt still to use."""
    await make_queue(store, max_attempts=1)
    [receipt] = await publish(store, "work")
    for _ in range(3):
        [leased] = await lease(store)
        assert leased.attempt == 1
        job = await store.release_job("work", receipt.job_id, leased.lease_id)
        assert (job.state, job.attempts, job.last_error) == ("ready", 0, None)
    assert (await store.get_queue("work")).stats == QueueStats(ready=1, delayed=0, leased=0, dead=0)
    [leased] = await lease(store)
    job = await store.nack_job("work", receipt.job_id, leased.lease_id, retry_delay=0, error="x")
    assert (job.state, job.attempts) == ("dead", 1)


async def test_release_jobs_releases_each_current_lease_and_says_why_not_for_the_rest(
    store: Store, clock: FakeClock
) -> None:
    """Each pair is released as ``release_job`` would, or answered ``lease_expired`` (ended,
    another's, or the same job again) or ``job_not_found``, in order; a missing queue refuses
    the whole call.
    """
    await make_queue(store, max_attempts=1, lease_seconds=10)
    receipts = await publish(store, "work", *(NewJob(topic="email", payload=n) for n in range(3)))
    first, _ = await lease(store, max_jobs=2)
    clock.advance(11)
    [third] = await lease(store)
    assert third.job_id == receipts[2].job_id
    outcomes = await store.release_jobs(
        "work",
        [
            (third.job_id, third.lease_id),
            (third.job_id, third.lease_id),
            (first.job_id, first.lease_id),
            ("job_01JDX4Q5Z8K2M3N4P5Q6R7S8T9", "lease_x"),
        ],
    )
    assert outcomes == ["released", "lease_expired", "lease_expired", "job_not_found"]
    released = await store.get_job("work", third.job_id)
    assert (released.state, released.attempts) == ("ready", 0)
    assert released.attempt_history[-1].outcome == "released"
    assert (await store.get_job("work", first.job_id)).state == "dead"
    with pytest.raises(NotFoundError) as raised:
        await store.release_jobs("nope", [(third.job_id, third.lease_id)])
    assert raised.value.code == "queue_not_found"
    with pytest.raises(StoreError) as refused:
        await store.release_jobs("work", [])
    assert refused.value.code == "validation_failed"


async def test_extend_lease_moves_the_expiry_from_now(store: Store, clock: FakeClock) -> None:
    """Extending sets the lease to end ``lease_seconds`` from now; the job stays leased that long."""
    await make_queue(store, lease_seconds=30)
    [receipt] = await publish(store, "work")
    [leased] = await lease(store)
    clock.advance(20)
    job = await store.extend_lease("work", receipt.job_id, leased.lease_id, lease_seconds=100)
    assert (job.state, job.lease_expires_at) == ("leased", pytest.approx(clock.now + 100, abs=0.01))  # type: ignore[comparison-overlap]
    clock.advance(90)
    assert await lease(store) == []
    assert (await store.ack_job("work", receipt.job_id, leased.lease_id)).state == "succeeded"


# Inspecting and retrying -------------------------------------------------------------------


async def test_list_jobs_filters_by_state_oldest_first(store: Store, clock: FakeClock) -> None:
    """``list_jobs`` answers jobs in one (computed) state, or all, oldest first, up to ``limit``."""
    await make_queue(store, max_attempts=1, lease_seconds=10)
    receipts = []
    for n in range(5):
        receipts += await publish(store, "work", NewJob(topic="t", payload=n, delay=100 * (n == 4)))
        clock.advance(0.001)
    ids = [receipt.job_id for receipt in receipts]
    [done] = await lease(store, max_jobs=1)
    await store.ack_job("work", done.job_id, done.lease_id)
    await lease(store, max_jobs=1)
    clock.advance(11)
    await lease(store, max_jobs=1)

    async def listed(state: JobState | None, limit: int = 100) -> list[str]:
        return [job.job_id for job in await store.list_jobs("work", state=state, limit=limit)]

    assert await listed("succeeded") == [ids[0]]
    assert await listed("dead") == [ids[1]]
    assert await listed("leased") == [ids[2]]
    assert await listed("ready") == [ids[3]]
    assert await listed("delayed") == [ids[4]]
    assert await listed(None) == ids
    assert await listed(None, limit=2) == ids[:2]
    assert (await store.get_queue("work")).stats == QueueStats(ready=1, delayed=1, leased=1, dead=1)


async def test_retry_job_revives_a_dead_job_with_fresh_attempts(
    store: Store, clock: FakeClock
) -> None:
    """A dead job retried is ``ready`` now with no attempts used, and is leased as attempt 1."""
    await make_queue(store, max_attempts=1, lease_seconds=10)
    [receipt] = await publish(store, "work")
    await lease(store)
    clock.advance(11)
    assert (await store.get_job("work", receipt.job_id)).state == "dead"
    job = await store.retry_job("work", receipt.job_id)
    assert (job.state, job.attempts) == ("ready", 0)
    assert job.available_at == pytest.approx(clock.now, abs=0.01)
    [leased] = await lease(store)
    assert (leased.job_id, leased.attempt) == (receipt.job_id, 1)


async def test_retry_and_delete_job_refuse_jobs_that_are_not_dead(
    store: Store, clock: FakeClock
) -> None:
    """Retrying or deleting a ready, delayed, leased or succeeded job is ``invalid_state``,
    naming the state a reader sees: a job whose lease ran out with attempts left is ready.
    """
    await make_queue(store, max_attempts=2, lease_seconds=10)
    [delayed] = await publish(store, "work", NewJob(topic="t", payload=1, delay=600))
    await publish(store, "work", NewJob(topic="x", payload=2))
    await publish(store, "work", *(NewJob(topic="t", payload=n) for n in (3, 4)))
    [expired] = await lease(store, topics=["x"])
    clock.advance(11)
    [leased, succeeded] = await lease(store, max_jobs=2, topics=["t"])
    await store.ack_job("work", succeeded.job_id, succeeded.lease_id)
    [ready] = await publish(store, "work", NewJob(topic="t", payload=5))
    clock.advance(1)
    refused = {
        ready.job_id: "ready",
        expired.job_id: "ready",
        delayed.job_id: "delayed",
        leased.job_id: "leased",
        succeeded.job_id: "succeeded",
    }
    for job_id, state in refused.items():
        for action, verb in ((store.retry_job, "retried"), (store.delete_job, "deleted")):
            with pytest.raises(ConflictError) as raised:
                await action("work", job_id)
            assert raised.value.code == "invalid_state"
            assert raised.value.detail == f"job {job_id!r} is {state}; only dead jobs can be {verb}"
    states = {job.job_id: job.state for job in await store.list_jobs("work", state=None, limit=10)}
    assert states[ready.job_id] == "ready" and states[succeeded.job_id] == "succeeded"
    assert len(states) == 5


async def test_delete_job_removes_a_dead_job_at_once(store: Store, clock: FakeClock) -> None:
    """A dead job deleted is gone from the job, the listings and the counts; a second delete is
    ``job_not_found``, and the queue's other jobs stay.
    """
    await make_queue(store, max_attempts=1, lease_seconds=10)
    [dead, kept] = await publish(
        store, "work", NewJob(topic="t", payload=1), NewJob(topic="t", payload=2)
    )
    await lease(store, max_jobs=1)
    clock.advance(11)
    assert (await store.get_job("work", dead.job_id)).state == "dead"
    await store.delete_job("work", dead.job_id)
    with pytest.raises(NotFoundError) as raised:
        await store.get_job("work", dead.job_id)
    assert raised.value.code == "job_not_found"
    with pytest.raises(NotFoundError) as again:
        await store.delete_job("work", dead.job_id)
    assert again.value.code == "job_not_found"
    assert [job.job_id for job in await store.list_jobs("work", state=None, limit=10)] == [
        kept.job_id
    ]
    assert await store.list_jobs("work", state="dead", limit=10) == []
    assert (await store.get_queue("work")).stats == QueueStats(ready=1, delayed=0, leased=0, dead=0)
