"""The schedule checks of ``Store``, before any hook is called."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable

import pytest

from server.stores.base import ScheduleRun, ScheduleSettings, Store
from tests.server.stores.contract._recording import RecordingStore, assert_refused

SETTINGS = ScheduleSettings("* * * * *", "UTC", "once", {"kind": "stream"})
RUN = ScheduleRun(1.0, 2.0, "published", ids=("1-0",))


def _put(
    settings: ScheduleSettings = SETTINGS, *, revision: str = "r", at: float = 1.0
) -> Callable[[Store], Awaitable[object]]:
    return lambda store: store.put_schedule("s", settings, revision=revision, next_run_at=at)


@pytest.mark.parametrize(
    ("call", "detail"),
    [
        (_put(ScheduleSettings("* * * * *", "UTC", "all", {})), "unknown catch_up 'all'"),  # type: ignore[arg-type]
        (
            _put(ScheduleSettings("", "UTC", "once", {})),
            "a schedule needs a cron expression and a time zone",
        ),
        (
            _put(ScheduleSettings("* * * * *", "UTC", "once", {"x": math.nan})),
            "a schedule's destination is not a JSON value: Out of range float values are not JSON compliant",
        ),
        (_put(at=math.inf), "next_run_at must be a finite time: inf"),
        (_put(revision=""), "a schedule needs a revision"),
        (lambda s: s.list_schedules(limit=0, cursor=None), "limit must be at least 1: 0"),
        (
            lambda s: s.list_schedules(limit=1, cursor="bTo0Mg"),
            "cursor 'bTo0Mg' is not this listing's",
        ),
        (
            lambda s: s.resume_schedule("s", revision="r", next_run_at=math.nan),
            "next_run_at must be a finite time: nan",
        ),
        (
            lambda s: s.claim_due_schedules(now=1.0, limit=0, lease_seconds=30),
            "limit must be at least 1: 0",
        ),
        (
            lambda s: s.claim_due_schedules(now=1.0, limit=1, lease_seconds=0.5),
            "lease_seconds must be a number >= 1: 0.5",
        ),
        (
            lambda s: s.claim_due_schedules(now=math.inf, limit=1, lease_seconds=30),
            "now must be a finite time: inf",
        ),
        (
            lambda s: s.complete_schedule_tick(
                "s",
                lease_id="l",
                run=ScheduleRun(1.0, 2.0, "won"),  # type: ignore[arg-type]
                next_run_at=3.0,
            ),
            "unknown schedule outcome 'won'",
        ),
        (
            lambda s: s.complete_schedule_tick("s", lease_id="l", run=RUN, next_run_at=math.nan),
            "next_run_at must be a finite time: nan",
        ),
    ],
)
async def test_a_refused_argument_reaches_no_hook(
    call: Callable[[Store], Awaitable[object]], detail: str
) -> None:
    """Every check runs before the hook, in the same words for every backend."""
    recording = RecordingStore()
    await assert_refused(recording, call(recording.store), detail)


async def test_accepted_calls_reach_their_hooks() -> None:
    """What passes goes to its hook, the destination as JSON text and the cursor read."""
    recording = RecordingStore(answer=[])
    store = recording.store
    await store.put_schedule("s", SETTINGS, revision="r", next_run_at=5.0)
    page = await store.list_schedules(limit=2, cursor="aDpz")
    assert (page.schedules, page.next_cursor) == ([], None)
    assert recording.calls == [
        (
            "_put_schedule",
            ("s", SETTINGS),
            {"destination": '{"kind":"stream"}', "revision": "r", "next_run_at": 5.0},
        ),
        ("_list_schedules", (), {"limit": 3, "cursor": "s"}),
    ]
