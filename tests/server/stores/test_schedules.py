"""Cron schedules on every backend: keeping them, and handing each due tick to one scheduler."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from server.stores.base import (
    ConflictError,
    NotFoundError,
    ScheduleRun,
    ScheduleSettings,
    Store,
)
from server.stores.contract._schedules import RECENT_RUNS
from tests.server.stores._support import FakeClock

SETTINGS = ScheduleSettings(
    cron="* * * * *",
    timezone="UTC",
    catch_up="once",
    destination={"kind": "stream", "stream": "ticks", "entry": {"body": {"n": 1}}},
)


def _run(
    tick_at: float, *, outcome: str = "published", ids: tuple[str, ...] = ("1-0",)
) -> ScheduleRun:
    if outcome == "failed":
        return ScheduleRun(
            tick_at, tick_at + 0.01, "failed", error_code="queue_not_found", error_detail="gone"
        )
    return ScheduleRun(tick_at, tick_at + 0.01, "published", ids=ids)


async def test_a_schedule_reads_back_as_it_was_put(store: Store, clock: FakeClock) -> None:
    """A new schedule is answered as created, unpaused, with its next tick and no runs; get and
    the listing answer the same.
    """
    due = clock() + 60
    schedule, created = await store.put_schedule(
        "every-minute", SETTINGS, revision="r1", next_run_at=due
    )
    assert created is True
    assert schedule.name == "every-minute"
    assert schedule.settings == SETTINGS
    assert (schedule.revision, schedule.paused) == ("r1", False)
    assert schedule.created_at == schedule.updated_at == clock()
    assert (schedule.next_run_at, schedule.last_run_at, schedule.recent_runs) == (due, None, [])
    assert await store.get_schedule("every-minute") == schedule
    page = await store.list_schedules(limit=10, cursor=None)
    assert (page.schedules, page.next_cursor) == ([schedule], None)


async def test_replacing_keeps_creation_pause_and_runs(store: Store, clock: FakeClock) -> None:
    """A put over an existing schedule answers not created, keeps its creation time, its pause
    and its runs, and takes the new settings and revision.
    """
    start = clock()
    await store.put_schedule("s", SETTINGS, revision="r1", next_run_at=start)
    [tick] = await store.claim_due_schedules(now=start, limit=5, lease_seconds=30)
    await store.complete_schedule_tick(
        "s", lease_id=tick.lease_id, run=_run(start), next_run_at=start + 60
    )
    await store.pause_schedule("s")
    clock.advance(5)
    changed = ScheduleSettings(
        cron="*/5 * * * *", timezone="Europe/Berlin", catch_up="skip", destination={"x": [1]}
    )
    schedule, created = await store.put_schedule(
        "s", changed, revision="r2", next_run_at=start + 300
    )
    assert created is False
    assert (schedule.settings, schedule.revision) == (changed, "r2")
    assert (schedule.created_at, schedule.updated_at) == (start, start + 5)
    assert schedule.paused is True and schedule.next_run_at is None
    assert schedule.last_run_at == start + 0.01
    assert schedule.recent_runs == [_run(start)]


async def test_missing_schedules_are_not_found(store: Store) -> None:
    """Every call on a schedule that does not exist is ``schedule_not_found``."""
    calls: list[Callable[[], Awaitable[object]]] = [
        lambda: store.get_schedule("nope"),
        lambda: store.delete_schedule("nope"),
        lambda: store.pause_schedule("nope"),
        lambda: store.resume_schedule("nope", revision="r", next_run_at=1.0),
        lambda: store.complete_schedule_tick("nope", lease_id="l", run=_run(1.0), next_run_at=2.0),
    ]
    for call in calls:
        with pytest.raises(NotFoundError) as raised:
            await call()
        assert raised.value.code == "schedule_not_found"
        assert raised.value.detail == "schedule 'nope' does not exist"


async def test_listing_pages_by_name(store: Store, clock: FakeClock) -> None:
    """Schedules come by name a page at a time; the last page has no cursor, and a deleted
    schedule is not listed.
    """
    for name in ("c", "a", "e", "b", "d"):
        await store.put_schedule(name, SETTINGS, revision="r", next_run_at=clock() + 60)
    await store.delete_schedule("e")
    first = await store.list_schedules(limit=2, cursor=None)
    assert [s.name for s in first.schedules] == ["a", "b"]
    assert first.next_cursor is not None
    second = await store.list_schedules(limit=2, cursor=first.next_cursor)
    assert [s.name for s in second.schedules] == ["c", "d"]
    assert second.next_cursor is None
    with pytest.raises(NotFoundError):
        await store.get_schedule("e")


async def test_a_due_tick_is_claimed_once_and_completed_once(
    store: Store, clock: FakeClock
) -> None:
    """A due tick goes to one claim; its completion records the run, moves the schedule on and
    ends the lease, so a second completion under the same lease is ``lease_expired``.
    """
    start = clock()
    await store.put_schedule("s", SETTINGS, revision="r1", next_run_at=start + 10)
    assert await store.claim_due_schedules(now=start, limit=5, lease_seconds=30) == []
    assert await store.next_schedule_due_at() == start + 10
    clock.advance(10)
    [tick] = await store.claim_due_schedules(now=start + 10, limit=5, lease_seconds=30)
    assert (tick.schedule.name, tick.schedule.revision, tick.tick_at) == ("s", "r1", start + 10)
    assert await store.claim_due_schedules(now=start + 11, limit=5, lease_seconds=30) == []
    assert await store.next_schedule_due_at() == start + 40
    done = await store.complete_schedule_tick(
        "s", lease_id=tick.lease_id, run=_run(start + 10), next_run_at=start + 70
    )
    assert (done.next_run_at, done.last_run_at) == (start + 70, start + 10.01)
    assert done.recent_runs == [_run(start + 10)]
    assert await store.next_schedule_due_at() == start + 70
    with pytest.raises(ConflictError) as raised:
        await store.complete_schedule_tick(
            "s", lease_id=tick.lease_id, run=_run(start + 10), next_run_at=start + 70
        )
    assert raised.value.code == "lease_expired"


async def test_a_tick_whose_lease_ended_is_claimed_again(store: Store, clock: FakeClock) -> None:
    """A scheduler that dies leaves its lease to end; the tick is then handed out again, for
    the same time, and only the new lease may complete it.
    """
    start = clock()
    await store.put_schedule("s", SETTINGS, revision="r1", next_run_at=start)
    [first] = await store.claim_due_schedules(now=start, limit=5, lease_seconds=30)
    [again] = await store.claim_due_schedules(now=start + 30, limit=5, lease_seconds=30)
    assert again.tick_at == first.tick_at == start
    assert again.lease_id != first.lease_id
    with pytest.raises(ConflictError):
        await store.complete_schedule_tick(
            "s", lease_id=first.lease_id, run=_run(start), next_run_at=start + 60
        )
    await store.complete_schedule_tick(
        "s", lease_id=again.lease_id, run=_run(start), next_run_at=start + 60
    )


async def test_racing_claims_hand_each_tick_to_one(
    store: Store, clock: FakeClock, open_store: Callable[[], Awaitable[Store]]
) -> None:
    """Claims from several store instances at once (as from several processes) never share a
    tick, and together they claim every due one.
    """
    others = [await open_store() for _ in range(3)]
    start = clock()
    names = [f"s{index}" for index in range(12)]
    for name in names:
        await store.put_schedule(name, SETTINGS, revision="r", next_run_at=start - 1)
    batches = await asyncio.gather(
        *(
            instance.claim_due_schedules(now=start, limit=4, lease_seconds=30)
            for instance in [store, *others]
            for _ in range(2)
        )
    )
    claimed = [tick.schedule.name for batch in batches for tick in batch]
    assert sorted(claimed) == sorted(names)


async def test_paused_schedules_are_not_claimed(store: Store, clock: FakeClock) -> None:
    """A paused schedule has no next tick and is never due; resuming it at a new tick makes it
    due then; pausing or resuming twice changes nothing.
    """
    start = clock()
    await store.put_schedule("s", SETTINGS, revision="r1", next_run_at=start)
    paused = await store.pause_schedule("s")
    assert (paused.paused, paused.next_run_at) == (True, None)
    assert await store.pause_schedule("s") == paused
    assert await store.claim_due_schedules(now=start + 100, limit=5, lease_seconds=30) == []
    assert await store.next_schedule_due_at() is None
    resumed = await store.resume_schedule("s", revision="r1", next_run_at=start + 120)
    assert (resumed.paused, resumed.next_run_at) == (False, start + 120)
    again = await store.resume_schedule("s", revision="r1", next_run_at=start + 999)
    assert again.next_run_at == start + 120
    [tick] = await store.claim_due_schedules(now=start + 120, limit=5, lease_seconds=30)
    assert tick.tick_at == start + 120


async def test_resuming_a_replaced_revision_is_a_conflict(store: Store, clock: FakeClock) -> None:
    """A resume computed from settings that a put has since replaced changes nothing."""
    await store.put_schedule("s", SETTINGS, revision="r1", next_run_at=clock())
    await store.pause_schedule("s")
    await store.put_schedule("s", SETTINGS, revision="r2", next_run_at=clock())
    with pytest.raises(ConflictError) as raised:
        await store.resume_schedule("s", revision="r1", next_run_at=clock())
    assert raised.value.code == "conflict"
    assert (await store.get_schedule("s")).paused is True


async def test_a_tick_in_progress_when_paused_still_records(store: Store, clock: FakeClock) -> None:
    """Pausing does not take a claimed tick away: its run is recorded, and the schedule stays
    paused with no next tick.
    """
    start = clock()
    await store.put_schedule("s", SETTINGS, revision="r1", next_run_at=start)
    [tick] = await store.claim_due_schedules(now=start, limit=5, lease_seconds=30)
    await store.pause_schedule("s")
    done = await store.complete_schedule_tick(
        "s", lease_id=tick.lease_id, run=_run(start, outcome="failed"), next_run_at=start + 60
    )
    assert (done.paused, done.next_run_at, done.last_run_at) == (True, None, start + 0.01)
    assert done.recent_runs[0].error_code == "queue_not_found"


async def test_replacing_forgets_the_tick_in_progress(store: Store, clock: FakeClock) -> None:
    """A put while a tick is claimed makes that tick's completion ``lease_expired`` and the new
    settings' tick due at once.
    """
    start = clock()
    await store.put_schedule("s", SETTINGS, revision="r1", next_run_at=start)
    [tick] = await store.claim_due_schedules(now=start, limit=5, lease_seconds=30)
    await store.put_schedule("s", SETTINGS, revision="r2", next_run_at=start)
    with pytest.raises(ConflictError):
        await store.complete_schedule_tick(
            "s", lease_id=tick.lease_id, run=_run(start), next_run_at=start + 60
        )
    [fresh] = await store.claim_due_schedules(now=start, limit=5, lease_seconds=30)
    assert fresh.schedule.revision == "r2"


async def test_runs_are_kept_newest_first_and_bounded(store: Store, clock: FakeClock) -> None:
    """Each completion adds its run first; only the newest ``RECENT_RUNS`` are kept."""
    tick_at = clock()
    await store.put_schedule("s", SETTINGS, revision="r", next_run_at=tick_at)
    for _ in range(RECENT_RUNS + 3):
        [tick] = await store.claim_due_schedules(now=tick_at, limit=1, lease_seconds=30)
        await store.complete_schedule_tick(
            "s",
            lease_id=tick.lease_id,
            run=_run(tick_at, ids=(str(tick_at),)),
            next_run_at=tick_at + 60,
        )
        tick_at += 60
    runs = (await store.get_schedule("s")).recent_runs
    assert len(runs) == RECENT_RUNS
    assert [run.tick_at for run in runs] == [tick_at - 60 * (n + 1) for n in range(RECENT_RUNS)]


async def test_deleting_forgets_runs_and_ticks(store: Store, clock: FakeClock) -> None:
    """A deleted schedule is not due, and a schedule made again under its name starts with no
    runs.
    """
    start = clock()
    await store.put_schedule("s", SETTINGS, revision="r", next_run_at=start)
    [tick] = await store.claim_due_schedules(now=start, limit=1, lease_seconds=30)
    await store.complete_schedule_tick(
        "s", lease_id=tick.lease_id, run=_run(start), next_run_at=start
    )
    await store.delete_schedule("s")
    assert await store.claim_due_schedules(now=start + 60, limit=5, lease_seconds=30) == []
    assert await store.next_schedule_due_at() is None
    again, created = await store.put_schedule("s", SETTINGS, revision="r2", next_run_at=start)
    assert created is True and again.recent_runs == [] and again.last_run_at is None
