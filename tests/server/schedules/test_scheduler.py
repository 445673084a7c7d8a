"""The scheduler (server/schedules/_scheduler.py) on both stores: each due tick publishes its
destination once, as its publish operation would, however many schedulers race and whatever
crashes they go through; missed ticks catch up once or are skipped; paused schedules keep quiet.

Most tests step one clock, shared by the store and the scheduler, and call ``run_due`` for one
pass; the last ones run the scheduler's loop on the real clock to see it wake on time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from server.routes._context import AppContext
from server.schedules import LEASE_SECONDS, Scheduler, publish_destination, tick_claim
from server.stores import store_from_url
from server.stores.base import ScheduleSettings, Store
from tests.conftest import RunningApp
from tests.server.stores._support import FakeClock

# The top of an hour, so that cron ticks fall on round offsets from it.
START = (int(time.time()) // 3600 + 1) * 3600.0


@pytest.fixture
def clock(api: RunningApp, monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """One clock for the store and the schedulers, standing at the top of an hour."""
    fake = FakeClock(START)
    monkeypatch.setattr(api.store, "clock", fake)
    return fake


def _context(api: RunningApp) -> AppContext:
    context: AppContext = api.app.state.context
    return context


@pytest.fixture
def scheduler(api: RunningApp, clock: FakeClock) -> Scheduler:
    return Scheduler(_context(api), clock=clock)


async def _put(api: RunningApp, name: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await api.client.put(f"/v1/schedules/{name}", json=body)
    assert response.status_code in (200, 201), response.text
    document: dict[str, Any] = response.json()
    return document


async def _schedule(api: RunningApp, name: str) -> dict[str, Any]:
    document: dict[str, Any] = (await api.client.get(f"/v1/schedules/{name}")).json()
    return document


async def _at_first_tick(
    api: RunningApp, clock: FakeClock, name: str, late: float = 0.005
) -> float:
    """Move the clock just past the schedule's next tick; answer the tick."""
    tick = (await api.store.get_schedule(name)).next_run_at
    assert tick is not None
    clock.now = tick + late
    return float(tick)


async def _entries(api: RunningApp, stream: str) -> list[dict[str, Any]]:
    response = await api.client.get(f"/v1/streams/{stream}/entries")
    if response.status_code == 404:
        return []
    entries: list[dict[str, Any]] = response.json()["entries"]
    return entries


STREAM = {"kind": "stream", "stream": "ticks", "entry": {"body": {"tick": 1}}}


async def test_a_message_schedule_publishes_with_every_option(
    api: RunningApp, clock: FakeClock, scheduler: Scheduler
) -> None:
    """A tick publishes the message exactly as publishMessage would: url, body, content_type,
    method, headers, retries, retry_delay, callback, failure_callback, their headers, timeout
    and deduplication_id kept, its delay counted from the tick.
    """
    message = {
        "url": "https://example.com/hooks/tick",
        "body": {"hello": "world"},
        "content_type": "application/vnd.tick+json",
        "method": "PUT",
        "headers": {"X-Tenant": "acme"},
        "delay": 30,
        "retries": 2,
        "retry_delay": "1000 * retried",
        "callback": "https://example.com/hooks/ok",
        "failure_callback": "https://example.com/hooks/failed",
        "callback_headers": {"Authorization": "Bearer ok"},
        "failure_callback_headers": {"Authorization": "Bearer ko"},
        "timeout": 7,
        "deduplication_id": "nightly",
    }
    await _put(
        api, "m", {"cron": "* * * * *", "destination": {"kind": "message", "message": message}}
    )
    await _at_first_tick(api, clock, "m")
    assert await scheduler.run_due() == 1
    [run] = (await _schedule(api, "m"))["recent_runs"]
    [message_id] = run["ids"]
    published = (await api.client.get(f"/v1/messages/{message_id}")).json()
    for name in ("url", "method", "content_type", "headers", "retries", "timeout"):
        assert published[name] == message[name], name
    for name in ("retry_delay", "callback", "failure_callback", "deduplication_id"):
        assert published[name] == message[name], name
    for name in ("callback_headers", "failure_callback_headers"):
        assert published[name] == message[name], name
    stored = await api.store.get_message(message_id)
    assert stored.body == b'{"hello":"world"}'
    assert stored.not_before == pytest.approx(time.time() + 30, abs=5)


async def test_a_redacted_schedule_never_shows_its_secrets_but_publishes_them(
    api: RunningApp, clock: FakeClock, scheduler: Scheduler
) -> None:
    """A schedule's message with ``redact`` shows its body and the named headers as
    ``[redacted]`` in putSchedule, getSchedule and listSchedules; each tick publishes the real
    ones, and the message it makes is redacted too.
    """
    message = {
        "url": "https://example.com/hooks/tick",
        "body": {"card": "4111"},
        "headers": {"Authorization": "Bearer secret", "X-Tenant": "acme"},
        "callback": "https://example.com/hooks/ok",
        "callback_headers": {"authorization": "Bearer callback-secret"},
        "redact": {"body": True, "headers": ["AUTHORIZATION"]},
    }
    put = await _put(
        api, "r", {"cron": "* * * * *", "destination": {"kind": "message", "message": message}}
    )
    listed = (await api.client.get("/v1/schedules")).json()["schedules"]
    [in_list] = [schedule for schedule in listed if schedule["name"] == "r"]
    for document in (put, await _schedule(api, "r"), in_list):
        shown = document["destination"]["message"]
        assert "secret" not in str(shown) and "4111" not in str(shown)
        assert shown["body"] == "[redacted]"
        assert shown["headers"] == {"Authorization": "[redacted]", "X-Tenant": "acme"}
        assert shown["callback_headers"] == {"authorization": "[redacted]"}
        assert shown["redact"] == message["redact"]
    await _at_first_tick(api, clock, "r")
    assert await scheduler.run_due() == 1
    [run] = (await _schedule(api, "r"))["recent_runs"]
    [message_id] = run["ids"]
    stored = await api.store.get_message(message_id)
    assert stored.body == b'{"card":"4111"}'
    assert stored.headers["Authorization"] == "Bearer secret"
    assert stored.callback_headers == {"authorization": "Bearer callback-secret"}
    published = (await api.client.get(f"/v1/messages/{message_id}")).json()
    assert published["headers"]["Authorization"] == "[redacted]"


async def test_a_url_group_schedule_fans_out_and_deduplicates_by_content(
    api: RunningApp, clock: FakeClock, scheduler: Scheduler
) -> None:
    """A message to a URL group makes one message per endpoint at each tick; with
    content_based_deduplication the next tick's identical messages are the first ones.
    """
    endpoints = [{"url": "https://a.example.com/h"}, {"url": "https://b.example.com/h"}]
    await api.client.put("/v1/url-groups/partners", json={"endpoints": endpoints})
    message = {"url_group": "partners", "body": "tick", "content_based_deduplication": True}
    await _put(
        api, "g", {"cron": "* * * * *", "destination": {"kind": "message", "message": message}}
    )
    await _at_first_tick(api, clock, "g")
    await scheduler.run_due()
    await _at_first_tick(api, clock, "g")
    await scheduler.run_due()
    second, first = (await _schedule(api, "g"))["recent_runs"]
    assert len(first["ids"]) == 2
    assert second["ids"] == first["ids"]
    urls = {(await api.store.get_message(message_id)).url for message_id in first["ids"]}
    assert urls == {"https://a.example.com/h", "https://b.example.com/h"}


async def test_a_job_schedule_publishes_its_job(
    api: RunningApp, clock: FakeClock, scheduler: Scheduler
) -> None:
    """A tick publishes the job with its topic, payload, delay and deduplication_id."""
    await api.client.put("/v1/queues/jobs", json={})
    job = {"topic": "reports.nightly", "payload": {"n": 1}, "delay": 60, "deduplication_id": "d1"}
    await _put(
        api, "j", {"cron": "* * * * *", "destination": {"kind": "job", "queue": "jobs", "job": job}}
    )
    await _at_first_tick(api, clock, "j")
    await scheduler.run_due()
    [run] = (await _schedule(api, "j"))["recent_runs"]
    [job_id] = run["ids"]
    published = await api.store.get_job("jobs", job_id)
    assert (published.topic, published.payload, published.deduplication_id) == (
        "reports.nightly",
        {"n": 1},
        "d1",
    )
    assert published.state == "delayed"
    assert published.available_at == pytest.approx(published.published_at + 60)


async def test_a_stream_schedule_appends_and_trims(
    api: RunningApp, clock: FakeClock, scheduler: Scheduler
) -> None:
    """Each tick appends the entry's body, trimming exactly to ``maxlen`` with
    ``approximate: false``; with ``nomkstream`` a stream deleted since is a failed run.
    """
    entry = {"body": {"tick": 1}, "maxlen": 2, "approximate": False, "nomkstream": True}
    await api.client.post("/v1/streams/ticks/entries", json={"body": "first"})
    await _put(api, "s", {"cron": "* * * * *", "destination": {**STREAM, "entry": entry}})
    for _ in range(3):
        await _at_first_tick(api, clock, "s")
        await scheduler.run_due()
    entries = await _entries(api, "ticks")
    assert [e["body"] for e in entries] == [{"tick": 1}, {"tick": 1}]
    await api.client.delete("/v1/streams/ticks")
    await _at_first_tick(api, clock, "s")
    await scheduler.run_due()
    latest = (await _schedule(api, "s"))["recent_runs"][0]
    assert (latest["outcome"], latest["error"]["code"]) == ("failed", "stream_not_found")


async def test_a_stream_schedule_trims_by_minid(
    api: RunningApp, clock: FakeClock, scheduler: Scheduler
) -> None:
    """``minid`` drops the entries older than it at each tick."""
    entry = {"body": "new", "minid": "1-0", "approximate": False}
    await _put(api, "s", {"cron": "* * * * *", "destination": {**STREAM, "entry": entry}})
    await _at_first_tick(api, clock, "s")
    old = (await api.client.post("/v1/streams/ticks/entries", json={"body": "old"})).json()["id"]
    entry["minid"] = f"{int(old.split('-')[0]) + 1}-0"
    await _put(api, "s", {"cron": "* * * * *", "destination": {**STREAM, "entry": entry}})
    # The next entry's id is a later millisecond than the old one's, past the minid, by the
    # store's clock on SQLite and by Redis's own on Redis.
    await asyncio.sleep(0.01)
    clock.advance(0.01)
    await scheduler.run_due()
    assert [e["body"] for e in await _entries(api, "ticks")] == ["new"]


async def test_a_failed_publish_is_recorded_and_the_schedule_goes_on(
    api: RunningApp, clock: FakeClock, scheduler: Scheduler
) -> None:
    """A queue deleted since the schedule was put makes a failed run with the publish's code,
    and the schedule moves on to its next tick.
    """
    await api.client.put("/v1/queues/jobs", json={})
    job = {"kind": "job", "queue": "jobs", "job": {"topic": "t", "payload": 1}}
    await _put(api, "j", {"cron": "* * * * *", "destination": job})
    await api.client.delete("/v1/queues/jobs")
    tick = await _at_first_tick(api, clock, "j")
    await scheduler.run_due()
    schedule = await api.store.get_schedule("j")
    [run] = schedule.recent_runs
    assert (run.outcome, run.error_code) == ("failed", "queue_not_found")
    assert run.error_detail == "queue 'jobs' does not exist"
    assert schedule.next_run_at == tick + 60


async def test_missed_ticks_catch_up_once(
    api: RunningApp, clock: FakeClock, scheduler: Scheduler
) -> None:
    """After ten minutes down, an every-minute schedule with the default ``catch_up: once``
    publishes once, for the first tick it missed, then goes on from the next tick after now.
    """
    await _put(api, "s", {"cron": "* * * * *", "destination": STREAM})
    tick = await _at_first_tick(api, clock, "s", late=600.5)
    assert await scheduler.run_due() == 1
    assert await scheduler.run_due() == 0
    schedule = await api.store.get_schedule("s")
    [run] = schedule.recent_runs
    assert (run.outcome, run.tick_at) == ("published", tick)
    assert schedule.next_run_at == tick + 660
    assert len(await _entries(api, "ticks")) == 1


async def test_missed_ticks_are_skipped_with_catch_up_skip(
    api: RunningApp, clock: FakeClock, scheduler: Scheduler
) -> None:
    """With ``catch_up: skip`` a missed tick publishes nothing and records a skipped run; a tick
    come to in time still publishes.
    """
    await _put(api, "s", {"cron": "* * * * *", "catch_up": "skip", "destination": STREAM})
    tick = await _at_first_tick(api, clock, "s", late=MISSED_LATE)
    await scheduler.run_due()
    schedule = await api.store.get_schedule("s")
    assert [run.outcome for run in schedule.recent_runs] == ["skipped"]
    assert await _entries(api, "ticks") == []
    assert schedule.next_run_at == tick + 180
    await _at_first_tick(api, clock, "s")
    await scheduler.run_due()
    assert len(await _entries(api, "ticks")) == 1


MISSED_LATE = 120.5


async def test_paused_schedules_do_not_fire_and_resume_from_now(
    api: RunningApp, clock: FakeClock, scheduler: Scheduler
) -> None:
    """A paused schedule makes no runs however long it waits; resumed, its next tick is the
    first after now, and the ticks it slept through are not made up.
    """
    await _put(api, "s", {"cron": "* * * * *", "destination": STREAM})
    await api.client.post("/v1/schedules/s/pause")
    clock.advance(3600)
    assert await scheduler.run_due() == 0
    resumed = await api.client.post("/v1/schedules/s/resume")
    tick = (await api.store.get_schedule("s")).next_run_at
    assert resumed.status_code == 200
    assert tick is not None and tick > time.time()
    clock.now = tick + 0.01
    assert await scheduler.run_due() == 1
    assert len((await api.store.get_schedule("s")).recent_runs) == 1


async def test_a_tick_claimed_again_after_a_crash_publishes_nothing_new(
    api: RunningApp, clock: FakeClock, scheduler: Scheduler
) -> None:
    """A scheduler that published and died before recording the run leaves its lease to end;
    the tick is claimed again, and its publish replays the first instead of appending again.
    """
    await _put(api, "s", {"cron": "* * * * *", "destination": STREAM})
    tick = await _at_first_tick(api, clock, "s")
    [claimed] = await api.store.claim_due_schedules(
        now=clock(), limit=1, lease_seconds=LEASE_SECONDS
    )
    first_ids = await publish_destination(
        _context(api),
        claimed.schedule.settings.destination,
        claim=tick_claim(claimed.schedule, tick),
        schedule=claimed.schedule.name,
    )
    assert await scheduler.run_due() == 0
    clock.advance(LEASE_SECONDS)
    assert await scheduler.run_due() == 1
    [run] = (await api.store.get_schedule("s")).recent_runs
    assert (run.tick_at, list(run.ids)) == (tick, first_ids)
    assert len(await _entries(api, "ticks")) == 1


async def test_a_replaced_schedule_does_not_replay_the_old_revision(
    api: RunningApp, clock: FakeClock, scheduler: Scheduler
) -> None:
    """A schedule replaced with the same settings is a new revision: its ticks publish anew."""
    await _put(api, "s", {"cron": "* * * * *", "destination": STREAM})
    await _at_first_tick(api, clock, "s")
    await scheduler.run_due()
    await _put(api, "s", {"cron": "* * * * *", "destination": STREAM})
    await _at_first_tick(api, clock, "s")
    await scheduler.run_due()
    assert len(await _entries(api, "ticks")) == 2


@pytest.fixture
async def other_process(api: RunningApp, store_url: str) -> AsyncIterator[Store]:
    """A second store on the same URL, as another service process would open it."""
    other = store_from_url(store_url)
    await other.open()
    yield other
    await other.close()


async def test_racing_schedulers_publish_each_tick_once(
    api: RunningApp, clock: FakeClock, other_process: Store
) -> None:
    """Four schedulers in two processes, each pass racing the others, publish each tick of each
    schedule exactly once.
    """
    for name in ("a", "b", "c"):
        await _put(api, name, {"cron": "* * * * *", "destination": {**STREAM, "stream": name}})
    other_process.clock = clock  # type: ignore[attr-defined]
    contexts = [_context(api), dataclasses.replace(_context(api), store=other_process)]
    schedulers = [Scheduler(context, clock=clock) for context in contexts for _ in range(2)]
    ticks = 5
    for _ in range(ticks):
        await _at_first_tick(api, clock, "a")
        fired = await asyncio.gather(*(s.run_due() for s in schedulers))
        assert sum(fired) == 3
    for name in ("a", "b", "c"):
        assert len(await _entries(api, name)) == ticks
        runs = (await api.store.get_schedule(name)).recent_runs
        assert len({run.tick_at for run in runs}) == len(runs) == ticks


async def _wait_until(done: Callable[[], Awaitable[bool]], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not await done():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_the_loop_fires_each_tick_on_time(api: RunningApp) -> None:
    """Running on the real clock, the scheduler wakes for each due tick itself: every run fires
    well within 100 ms of its tick, and a schedule put in this process wakes it at once.
    """
    context = _context(api)
    scheduler = Scheduler(context, recheck_seconds=30.0)
    context.schedule_changed.append(scheduler.wake)
    await scheduler.start()
    try:
        settings = ScheduleSettings("0 0 1 1 *", "UTC", "once", STREAM)
        now = time.time()
        names = [f"s{index}" for index in range(8)]
        for index, name in enumerate(names):
            await api.store.put_schedule(
                name, settings, revision="r", next_run_at=now + 0.3 + 0.05 * index
            )
        context.notify_schedule_changed()

        async def all_ran() -> bool:
            schedules = [await api.store.get_schedule(name) for name in names]
            return all(schedule.recent_runs for schedule in schedules)

        await _wait_until(all_ran)
        runs = [(await api.store.get_schedule(name)).recent_runs[0] for name in names]
        lags = [run.fired_at - run.tick_at for run in runs]
        assert all(lag >= 0 for lag in lags), lags
        assert statistics.quantiles(lags, n=20)[-1] < 0.1, lags
    finally:
        await scheduler.stop()


async def test_the_loop_sees_schedules_put_elsewhere(api: RunningApp, other_process: Store) -> None:
    """A schedule another process puts is seen within the re-check interval, unwoken."""
    context = _context(api)
    scheduler = Scheduler(context, recheck_seconds=0.2)
    await scheduler.start()
    try:
        await asyncio.sleep(0.05)
        settings = ScheduleSettings("0 0 1 1 *", "UTC", "once", STREAM)
        await other_process.put_schedule("s", settings, revision="r", next_run_at=time.time())

        async def ran() -> bool:
            return bool((await api.store.get_schedule("s")).recent_runs)

        await _wait_until(ran, timeout=5.0)
    finally:
        await scheduler.stop()


async def test_stop_ends_the_loop_when_a_store_call_swallows_the_cancellation(
    api: RunningApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """redis-py may swallow a cancellation that lands in one of its calls; stop() still returns."""
    entered = asyncio.Event()

    async def swallowing() -> float | None:
        entered.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            pass
        return None

    monkeypatch.setattr(api.store, "next_schedule_due_at", swallowing)
    scheduler = Scheduler(_context(api), recheck_seconds=3600.0)
    await scheduler.start()
    await asyncio.wait_for(entered.wait(), timeout=5.0)
    # Not wait_for: it would cancel a stuck stop(), whose loop then ends, and hide the hang.
    stopping = asyncio.ensure_future(scheduler.stop())
    done, _ = await asyncio.wait([stopping], timeout=5.0)
    assert done, "stop() did not return"
