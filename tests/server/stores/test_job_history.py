"""A job's attempt history, leased_at and finished_at (server/stores/job_history.py), on every
backend: each lease recorded where it starts and where an ack, a nack or its expiry ends it.
"""

from __future__ import annotations

import sqlite3

import pytest

from server.stores.base import NewJob, Store
from server.stores.job_history import JOB_HISTORY_LIMIT, as_read, leased_at
from server.stores.lease_expiry import lease_expired_error, lease_taken_at
from server.stores.records import JobAttemptRecord
from server.stores.sqlite import SQLiteStore
from tests.server.stores._support import FakeClock, make_queue


async def _lease_one(store: Store, consumer: str | None = "worker-1", seconds: int = 30) -> str:
    [leased] = await store.lease_jobs(
        "work", consumer=consumer, topics=None, max_jobs=1, lease_seconds=seconds, wait_ms=0
    )
    return leased.lease_id


async def _publish(store: Store) -> str:
    [receipt] = await store.publish_jobs("work", [NewJob(topic="email", payload={"n": 1})])
    return receipt.job_id


async def test_a_job_never_leased_has_no_history(store: Store) -> None:
    await make_queue(store)
    job = await store.get_job("work", await _publish(store))
    assert (job.attempt_history, job.leased_at, job.finished_at) == ((), None, None)


async def test_each_lease_is_an_attempt_ended_by_its_nack_or_ack(
    store: Store, clock: FakeClock
) -> None:
    """A nack is a failure with its error (if any), an ack a success."""
    await make_queue(store, max_attempts=5)
    job_id = await _publish(store)
    first_at = clock.now
    lease_id = await _lease_one(store, "worker-1")
    leased = await store.get_job("work", job_id)
    assert leased.leased_at == pytest.approx(first_at, abs=0.01)
    [attempt] = leased.attempt_history
    assert [attempt.number, attempt.consumer, attempt.ended_at, attempt.outcome] == [
        1,
        "worker-1",
        None,
        None,
    ]
    assert attempt.leased_at == pytest.approx(first_at, abs=0.01)
    clock.advance(2)
    await store.nack_job("work", job_id, lease_id, retry_delay=0, error="SMTP timeout")
    clock.advance(1)
    await store.nack_job("work", job_id, await _lease_one(store, None), retry_delay=0, error=None)
    clock.advance(1)
    third_at = clock.now
    lease_id = await _lease_one(store, "worker-2")
    clock.advance(1)
    acked = await store.ack_job("work", job_id, lease_id)
    assert [
        (attempt.number, attempt.consumer, attempt.outcome, attempt.error)
        for attempt in acked.attempt_history
    ] == [
        (1, "worker-1", "failed", "SMTP timeout"),
        (2, None, "failed", None),
        (3, "worker-2", "succeeded", None),
    ]
    assert acked.attempt_history[0].ended_at == pytest.approx(first_at + 2, abs=0.01)
    assert acked.leased_at == pytest.approx(third_at, abs=0.01)
    assert acked.finished_at == pytest.approx(clock.now, abs=0.01)
    assert (await store.get_job("work", job_id)) == acked


async def test_a_release_ends_its_attempt_as_released_and_the_next_lease_reuses_its_number(
    store: Store, clock: FakeClock
) -> None:
    await make_queue(store, max_attempts=2)
    job_id = await _publish(store)
    lease_id = await _lease_one(store, "worker-1")
    clock.advance(1)
    await store.release_job("work", job_id, lease_id)
    released_at = clock.now
    clock.advance(1)
    await _lease_one(store, "worker-2")
    job = await store.get_job("work", job_id)
    assert [
        (attempt.number, attempt.consumer, attempt.outcome, attempt.error)
        for attempt in job.attempt_history
    ] == [(1, "worker-1", "released", None), (1, "worker-2", None, None)]
    assert job.attempt_history[0].ended_at == pytest.approx(released_at, abs=0.01)
    assert job.attempts == 1


async def test_ack_jobs_ends_each_attempt(store: Store, clock: FakeClock) -> None:
    await make_queue(store)
    job_id = await _publish(store)
    lease_id = await _lease_one(store)
    clock.advance(1)
    assert await store.ack_jobs("work", [(job_id, lease_id)]) == ["acked"]
    [job] = await store.list_jobs("work", state="succeeded", limit=10)
    [attempt] = job.attempt_history
    assert [attempt.outcome, attempt.ended_at] == ["succeeded", pytest.approx(clock.now, abs=0.01)]
    assert job.finished_at == pytest.approx(clock.now, abs=0.01)


async def test_an_expired_lease_ends_its_attempt_before_and_after_a_write_settles_it(
    store: Store, clock: FakeClock
) -> None:
    """Expiry is lazy: a reader sees the attempt ended at the lease's expiry with the reason the
    next lease records, and the next lease starts a second attempt.
    """
    await make_queue(store, max_attempts=3)
    job_id = await _publish(store)
    lease_id = await _lease_one(store, seconds=10)
    expires_at = (await store.get_job("work", job_id)).lease_expires_at
    assert expires_at is not None
    clock.advance(11)
    reason = lease_expired_error(lease_id, expires_at, 1, 3)
    [read] = (await store.get_job("work", job_id)).attempt_history
    assert [read.outcome, read.error, read.ended_at] == [
        "lease_expired",
        reason,
        pytest.approx(expires_at, abs=0.01),
    ]
    await _lease_one(store, "worker-2")
    job = await store.get_job("work", job_id)
    assert [(a.number, a.outcome, a.error) for a in job.attempt_history] == [
        (1, "lease_expired", reason),
        (2, None, None),
    ]
    [listed] = await store.list_jobs("work", state="leased", limit=10)
    assert listed.attempt_history == job.attempt_history


async def test_a_job_dead_by_its_last_lease_running_out_finished_then(
    store: Store, clock: FakeClock
) -> None:
    """finished_at is the lease's expiry, read before and after a write buries the job; a retry
    keeps the history and starts counting again.
    """
    await make_queue(store, max_attempts=1)
    job_id = await _publish(store)
    await _lease_one(store, seconds=10)
    expires_at = (await store.get_job("work", job_id)).lease_expires_at
    clock.advance(20)
    before = await store.get_job("work", job_id)
    assert [before.state, before.finished_at] == ["dead", pytest.approx(expires_at, abs=0.01)]
    assert before.attempt_history[-1].outcome == "lease_expired"
    await store.lease_jobs(
        "work", consumer=None, topics=None, max_jobs=1, lease_seconds=None, wait_ms=0
    )
    after = await store.get_job("work", job_id)
    assert after == before
    retried = await store.retry_job("work", job_id)
    assert (retried.finished_at, retried.attempt_history) == (None, before.attempt_history)
    await _lease_one(store)
    again = await store.get_job("work", job_id)
    assert [(a.number, a.outcome) for a in again.attempt_history] == [
        (1, "lease_expired"),
        (1, None),
    ]


async def test_a_job_retried_while_dead_by_the_clock_keeps_the_expiry(
    store: Store, clock: FakeClock
) -> None:
    """Retrying a job no write has buried yet records the attempt's end as readers saw it."""
    await make_queue(store, max_attempts=1)
    job_id = await _publish(store)
    await _lease_one(store, seconds=10)
    clock.advance(20)
    seen = (await store.get_job("work", job_id)).attempt_history
    retried = await store.retry_job("work", job_id)
    assert retried.attempt_history == seen
    assert retried.attempt_history[-1].outcome == "lease_expired"


async def test_the_history_keeps_the_last_attempts(store: Store, clock: FakeClock) -> None:
    await make_queue(store, max_attempts=JOB_HISTORY_LIMIT + 5)
    job_id = await _publish(store)
    for _ in range(JOB_HISTORY_LIMIT + 3):
        lease_id = await _lease_one(store)
        clock.advance(1)
        await store.nack_job("work", job_id, lease_id, retry_delay=0, error="boom")
    job = await store.get_job("work", job_id)
    assert [attempt.number for attempt in job.attempt_history] == list(
        range(4, JOB_HISTORY_LIMIT + 4)
    )


async def test_a_deleted_job_takes_its_history_with_it(store: Store, clock: FakeClock) -> None:
    """A job published again under a reused name of its queue starts with no history."""
    await make_queue(store, max_attempts=1)
    job_id = await _publish(store)
    await store.nack_job("work", job_id, await _lease_one(store), retry_delay=0, error="x")
    await store.delete_job("work", job_id)
    await store.delete_queue("work")
    await make_queue(store)
    fresh = await store.get_job("work", await _publish(store))
    assert fresh.attempt_history == ()


def test_as_read_leaves_a_held_lease_open() -> None:
    attempt = JobAttemptRecord(number=1, leased_at=10.0)
    history = as_read(
        [attempt],
        state="leased",
        stored_state="leased",
        lease_id=None,
        lease_expires_at=40.0,
        attempts=1,
        max_attempts=2,
    )
    assert history == (attempt,)
    assert leased_at(history, state="leased", lease_id=None) == 10.0
    assert leased_at((), state="ready", lease_id=None) is None


async def test_a_file_of_schema_version_7_gains_the_attempts_table(sqlite_store_url: str) -> None:
    """A job leased before the upgrade reads its lease's start from the lease id, and its next
    lease starts its history.
    """
    first = SQLiteStore.from_url(sqlite_store_url)
    await first.open()
    await make_queue(first)
    job_id = await _publish(first)
    lease_id = await _lease_one(first)
    await first.close()
    path = sqlite_store_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE job_attempts")
        connection.execute("DROP INDEX messages_by_flow_key")
        connection.execute("ALTER TABLE messages DROP COLUMN flow_key")
        connection.execute("UPDATE schema_version SET version = 7")
    connection.close()
    upgraded = SQLiteStore.from_url(sqlite_store_url)
    await upgraded.open()
    try:
        job = await upgraded.get_job("work", job_id)
        assert (job.attempt_history, job.leased_at) == ((), lease_taken_at(lease_id))
        await upgraded.nack_job("work", job_id, lease_id, retry_delay=0, error="old")
        await _lease_one(upgraded)
        [attempt] = (await upgraded.get_job("work", job_id)).attempt_history
        assert (attempt.number, attempt.outcome) == (2, None)
    finally:
        await upgraded.close()
