"""Cron schedules over HTTP (server/routes/schedules.py), on both stores."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from generated.pydantic_models import Schedule, ScheduleList
from server.config import Permission, Settings, TokenConfig
from server.schedules import Scheduler
from tests.conftest import TEST_DESTINATIONS, RunningApp, assert_problem

JOB: dict[str, Any] = {
    "kind": "job",
    "queue": "jobs",
    "job": {"topic": "reports", "payload": {"n": 1}},
}
STREAM: dict[str, Any] = {
    "kind": "stream",
    "stream": "ticks",
    "entry": {"body": {"tick": True}, "maxlen": 5},
}
MESSAGE: dict[str, Any] = {
    "kind": "message",
    "message": {"url": "https://example.com/hooks/tick", "body": "tick", "retries": 1},
}


async def _put(api: RunningApp, name: str, **body: Any) -> dict[str, Any]:
    response = await api.client.put(f"/v1/schedules/{name}", json=body)
    assert response.status_code in (200, 201), response.text
    document: dict[str, Any] = response.json()
    return document


def _time(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


async def test_put_schedule_creates_then_replaces(api: RunningApp) -> None:
    """putSchedule answers 201 with the schedule, its defaults and its first tick, then 200 when
    it replaces it; the settings read back as given.
    """
    before = time.time()
    created = await api.client.put(
        "/v1/schedules/ticks", json={"cron": "*/5 * * * *", "destination": STREAM}
    )
    assert created.status_code == 201, created.text
    schedule = Schedule.model_validate(created.json())
    document = created.json()
    assert (document["timezone"], document["catch_up"], document["paused"]) == (
        "UTC",
        "once",
        False,
    )
    assert document["destination"] == STREAM
    assert document["recent_runs"] == [] and document["last_run_at"] is None
    next_run = _time(document["next_run_at"])
    assert before < next_run <= before + 300 and int(next_run) % 300 == 0
    assert schedule.name == "ticks"
    replaced = await api.client.put(
        "/v1/schedules/ticks",
        json={
            "cron": "0 3 * * *",
            "timezone": "Europe/Berlin",
            "catch_up": "skip",
            "destination": STREAM,
        },
    )
    assert replaced.status_code == 200, replaced.text
    again = replaced.json()
    assert (again["cron"], again["timezone"], again["catch_up"]) == (
        "0 3 * * *",
        "Europe/Berlin",
        "skip",
    )
    assert again["created_at"] == document["created_at"]
    berlin = datetime.fromisoformat(again["next_run_at"]).astimezone(ZoneInfo("Europe/Berlin"))
    assert (berlin.hour, berlin.minute) == (3, 0)
    fetched = await api.client.get("/v1/schedules/ticks")
    assert fetched.json() == again


@pytest.mark.parametrize(
    ("body", "status", "code", "detail"),
    [
        (
            {"cron": "61 * * * *", "destination": STREAM},
            400,
            "invalid_cron",
            "body.cron: '61 * * * *' is not a cron expression: Bad minute",
        ),
        (
            {"cron": "* * * * * *", "destination": STREAM},
            400,
            "invalid_cron",
            "body.cron: '* * * * * *' is not a cron expression of five fields (minute, hour, day "
            "of month, month, day of week)",
        ),
        (
            {"cron": "0 0 30 2 *", "destination": STREAM},
            400,
            "invalid_cron",
            "body.cron: '0 0 30 2 *' is not a cron expression: Bad day-of-month",
        ),
        (
            {"cron": "* * * * *", "timezone": "Mars/Olympus", "destination": STREAM},
            400,
            "invalid_timezone",
            "body.timezone: 'Mars/Olympus' is not an IANA time zone this service knows",
        ),
        (
            {"cron": "* * * * *", "destination": {**JOB, "queue": "missing"}},
            422,
            "destination_not_found",
            "queue 'missing' does not exist: the schedule would publish there",
        ),
        (
            {
                "cron": "* * * * *",
                "destination": {"kind": "message", "message": {"url_group": "nobody", "body": 1}},
            },
            422,
            "destination_not_found",
            "URL group 'nobody' does not exist: the schedule would publish there",
        ),
        (
            {
                "cron": "* * * * *",
                "destination": {**STREAM, "entry": {"body": 1, "nomkstream": True}},
            },
            422,
            "destination_not_found",
            "stream 'ticks' does not exist: the schedule would publish there",
        ),
        (
            {
                "cron": "* * * * *",
                "destination": {
                    "kind": "message",
                    "message": {**MESSAGE["message"], "retry_delay": "1/0"},
                },
            },
            400,
            "invalid_retry_delay",
            None,
        ),
        (
            {
                "cron": "* * * * *",
                "destination": {
                    "kind": "job",
                    "queue": "jobs",
                    "job": {"topic": "spool.x", "payload": 1},
                },
            },
            400,
            "reserved_topic",
            None,
        ),
    ],
    ids=[
        "minute",
        "six-fields",
        "never",
        "zone",
        "queue",
        "url-group",
        "nomkstream",
        "retry-delay",
        "topic",
    ],
)
async def test_a_schedule_that_cannot_fire_is_refused(
    api: RunningApp, body: dict[str, Any], status: int, code: str, detail: str | None
) -> None:
    """What a tick could not publish, or a timetable that cannot be read, is refused when the
    schedule is put, with a typed code, and nothing is kept.
    """
    await api.client.put("/v1/queues/jobs", json={})
    response = await api.client.put("/v1/schedules/bad", json=body)
    problem = assert_problem(response, status, code)
    if detail is not None:
        assert problem["detail"] == detail
    assert_problem(await api.client.get("/v1/schedules/bad"), 404, "schedule_not_found")


@pytest.mark.parametrize(
    ("destination", "location"),
    [
        ({"kind": "job", "message": MESSAGE["message"]}, "body.destination"),
        ({**JOB, "kind": "stream"}, "body.destination.kind"),
        (
            {
                "kind": "message",
                "message": {**MESSAGE["message"], "not_before": "2030-01-01T00:00:00Z"},
            },
            "body.destination.message.not_before",
        ),
        ({**STREAM, "entry": {"body": 1, "maxlen": 1, "minid": "1-0"}}, "body.destination"),
    ],
    ids=["members-of-another-kind", "kind-mismatch", "not-before", "maxlen-and-minid"],
)
async def test_a_bad_destination_is_422_at_its_field(
    api: RunningApp, destination: dict[str, Any], location: str
) -> None:
    """A destination whose members are not its kind's, a message with a fixed time, or an entry
    with two trims is ``422 validation_failed`` naming where.
    """
    response = await api.client.put(
        "/v1/schedules/bad", json={"cron": "* * * * *", "destination": destination}
    )
    problem = assert_problem(response, 422, "validation_failed")
    assert any(error["location"].startswith(location) for error in problem["errors"]), problem


async def test_list_pages_by_name_and_delete(api: RunningApp) -> None:
    """listSchedules pages by name; a deleted schedule is 404 and gone from the listing."""
    for name in ("c", "a", "b"):
        await _put(api, name, cron="* * * * *", destination=STREAM)
    first = await api.client.get("/v1/schedules", params={"limit": 2})
    page = ScheduleList.model_validate(first.json())
    assert [s.name for s in page.schedules] == ["a", "b"]
    assert page.next_cursor is not None
    second = await api.client.get("/v1/schedules", params={"limit": 2, "cursor": page.next_cursor})
    assert [s["name"] for s in second.json()["schedules"]] == ["c"]
    assert second.json()["next_cursor"] is None
    assert (await api.client.delete("/v1/schedules/b")).status_code == 204
    assert_problem(await api.client.delete("/v1/schedules/b"), 404, "schedule_not_found")
    listed = await api.client.get("/v1/schedules")
    assert [s["name"] for s in listed.json()["schedules"]] == ["a", "c"]
    bad_cursor = await api.client.get("/v1/schedules", params={"cursor": "bTo0Mg"})
    assert_problem(bad_cursor, 422, "validation_failed")


async def test_pause_and_resume(api: RunningApp) -> None:
    """A paused schedule has no next tick; resuming computes it from now; both repeat harmlessly."""
    await _put(api, "s", cron="* * * * *", destination=STREAM)
    paused = await api.client.post("/v1/schedules/s/pause")
    assert paused.status_code == 200
    assert (paused.json()["paused"], paused.json()["next_run_at"]) == (True, None)
    assert (await api.client.post("/v1/schedules/s/pause")).json() == paused.json()
    before = time.time()
    resumed = await api.client.post("/v1/schedules/s/resume")
    assert resumed.json()["paused"] is False
    assert before < _time(resumed.json()["next_run_at"]) <= before + 60
    assert (await api.client.post("/v1/schedules/s/resume")).json() == resumed.json()
    assert_problem(await api.client.post("/v1/schedules/nope/resume"), 404, "schedule_not_found")


async def test_a_fired_schedule_shows_its_runs(api: RunningApp) -> None:
    """Once the scheduler fires a due tick, getSchedule shows the run with what it published."""
    await api.client.put("/v1/queues/jobs", json={})
    await _put(api, "every-minute", cron="* * * * *", destination=JOB)
    document = (await api.client.get("/v1/schedules/every-minute")).json()
    tick = _time(document["next_run_at"])
    scheduler = Scheduler(api.app.state.context, clock=lambda: tick + 0.002)
    api.store.clock = lambda: tick + 0.002
    assert await scheduler.run_due() == 1
    fired = (await api.client.get("/v1/schedules/every-minute")).json()
    [run] = fired["recent_runs"]
    assert run["outcome"] == "published" and _time(run["tick_at"]) == pytest.approx(tick)
    [job_id] = run["ids"]
    job = (await api.client.get(f"/v1/queues/jobs/jobs/{job_id}")).json()
    assert (job["topic"], job["payload"]) == ("reports", {"n": 1})
    assert _time(fired["next_run_at"]) == pytest.approx(tick + 60)


def _settings(store_url: str, *permissions: Permission) -> Settings:
    return Settings(
        tokens=(TokenConfig(id="ops", secret="ops-secret", permissions=permissions),),
        store_url=store_url,
        allowed_destinations=TEST_DESTINATIONS,
    )


async def test_putting_a_schedule_needs_publish_on_its_destination(
    app_factory: Any, store_url: str
) -> None:
    """``admin`` on the schedule is not enough: its author must be allowed to publish where each
    tick will, and a refusal says where.
    """
    admin = Permission(resource="schedule", name="*", actions=frozenset({"admin"}))
    publish = Permission(resource="stream", name="ticks", actions=frozenset({"publish"}))
    async with app_factory(_settings(store_url, admin), token="ops-secret") as api:
        refused = await api.client.put(
            "/v1/schedules/s", json={"cron": "* * * * *", "destination": STREAM}
        )
        problem = assert_problem(refused, 403, "permission_denied")
        assert problem["detail"] == (
            "token 'ops' may not publish on stream 'ticks', where the schedule would publish"
        )
    async with app_factory(_settings(store_url, admin, publish), token="ops-secret") as api:
        accepted = await api.client.put(
            "/v1/schedules/s", json={"cron": "* * * * *", "destination": STREAM}
        )
        assert accepted.status_code == 201, accepted.text
        elsewhere = await api.client.put(
            "/v1/schedules/s", json={"cron": "* * * * *", "destination": MESSAGE}
        )
        assert_problem(elsewhere, 403, "permission_denied")
