"""Cron schedules (sdk/_schedules.py), on both clients against a mocked service."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import collect, problem, resolve, sent_json


def _schedule(name: str, destination: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "cron": "*/5 * * * *",
        "timezone": "UTC",
        "catch_up": "once",
        "destination": destination,
        "paused": False,
        "created_at": "2026-11-29T12:00:00Z",
        "updated_at": "2026-11-29T12:00:00Z",
        "last_run_at": "2026-11-29T12:05:00Z",
        "next_run_at": "2026-11-29T12:10:00Z",
        "recent_runs": [
            {
                "tick_at": "2026-11-29T12:05:00Z",
                "fired_at": "2026-11-29T12:05:00.004Z",
                "outcome": "published",
                "ids": ["job_1"],
            },
            {
                "tick_at": "2026-11-29T12:00:00Z",
                "fired_at": "2026-11-29T12:00:00.003Z",
                "outcome": "failed",
                "error": {"code": "queue_not_found", "detail": "queue 'jobs' does not exist"},
            },
        ],
        **fields,
    }


JOB = {
    "kind": "job",
    "queue": "jobs",
    "job": {"topic": "reports", "payload": {"n": 1}, "delay": 60},
}


async def test_set_sends_each_kind_of_destination(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """set() sends the cron, its options and the destination as the API nests it, and reads the
    schedule back with typed runs and destination.
    """
    put = api.put("/v1/schedules/nightly").mock(
        return_value=httpx.Response(201, json=_schedule("nightly", JOB))
    )
    schedule = await resolve(
        client.schedules.set(
            "nightly",
            cron="*/5 * * * *",
            timezone="Europe/Berlin",
            catch_up="skip",
            destination=sdk.JobDestination("jobs", "reports", {"n": 1}, delay="1m"),
        )
    )
    assert sent_json(put.calls.last) == {
        "cron": "*/5 * * * *",
        "timezone": "Europe/Berlin",
        "catch_up": "skip",
        "destination": JOB,
    }
    assert isinstance(schedule, sdk.Schedule)
    assert schedule.destination == sdk.JobDestination("jobs", "reports", {"n": 1}, delay=60)
    published, failed = schedule.recent_runs
    assert (published.outcome, published.ids, published.error) == ("published", ["job_1"], None)
    assert failed.error == sdk.ScheduleRunError("queue_not_found", "queue 'jobs' does not exist")
    assert schedule.next_run_at == datetime(2026, 11, 29, 12, 10, tzinfo=UTC)

    await resolve(
        client.schedules.set(
            "nightly",
            cron="0 * * * *",
            destination=sdk.MessageDestination(
                {"hello": "world"},
                url="https://example.com/hook",
                method="PUT",
                headers={"X-Tenant": "acme"},
                delay=timedelta(seconds=5),
                retries=2,
                retry_delay="2s",
                callback_headers={"Authorization": "Bearer ok"},
                failure_callback_headers={"Authorization": "Bearer ko"},
                timeout="10s",
                deduplication_id="tick",
                redact=sdk.Redact(body=True),
            ),
        )
    )
    assert sent_json(put.calls.last) == {
        "cron": "0 * * * *",
        "destination": {
            "kind": "message",
            "message": {
                "url": "https://example.com/hook",
                "body": {"hello": "world"},
                "method": "PUT",
                "headers": {"X-Tenant": "acme"},
                "delay": 5,
                "retries": 2,
                "retry_delay": "2000",
                "callback_headers": {"Authorization": "Bearer ok"},
                "failure_callback_headers": {"Authorization": "Bearer ko"},
                "timeout": 10,
                "deduplication_id": "tick",
                "redact": {"body": True, "headers": []},
            },
        },
    }
    await resolve(
        client.schedules.set(
            "nightly",
            cron="0 * * * *",
            destination=sdk.StreamDestination("ticks", [1, 2], maxlen=10, approximate=False),
        )
    )
    assert sent_json(put.calls.last)["destination"] == {
        "kind": "stream",
        "stream": "ticks",
        "entry": {"body": [1, 2], "maxlen": 10, "approximate": False},
    }


async def test_the_schedule_reads_back_every_destination(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A message and a stream destination come back as the helpers that would send them."""
    message = {
        "kind": "message",
        "message": {
            "url_group": "partners",
            "body": "tick",
            "content_based_deduplication": True,
            "callback_headers": {"X-A": "a"},
            "failure_callback_headers": {"X-B": "b"},
            "redact": {"headers": ["x-a"]},
        },
    }
    stream = {"kind": "stream", "stream": "ticks", "entry": {"body": None, "nomkstream": True}}
    api.get("/v1/schedules/m").mock(return_value=httpx.Response(200, json=_schedule("m", message)))
    api.get("/v1/schedules/s").mock(return_value=httpx.Response(200, json=_schedule("s", stream)))
    got = await resolve(client.schedules.get("m"))
    assert got.destination == sdk.MessageDestination(
        "tick",
        url_group="partners",
        content_based_deduplication=True,
        callback_headers={"X-A": "a"},
        failure_callback_headers={"X-B": "b"},
        redact=sdk.Redact(headers=("x-a",)),
    )
    got = await resolve(client.schedules.get("s"))
    assert got.destination == sdk.StreamDestination("ticks", None, nomkstream=True)


async def test_list_pause_resume_delete(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """list() follows the cursors page by page; pause, resume and delete name the schedule."""
    first = {"schedules": [_schedule("a", JOB)], "next_cursor": "aDph"}
    second = {"schedules": [_schedule("b", JOB)], "next_cursor": None}
    listing = api.get("/v1/schedules").mock(
        side_effect=[httpx.Response(200, json=first), httpx.Response(200, json=second)]
    )
    names = [s.name for s in await collect(client.schedules.list(page_size=1))]
    assert names == ["a", "b"]
    assert [dict(call.request.url.params) for call in listing.calls] == [
        {"limit": "1"},
        {"limit": "1", "cursor": "aDph"},
    ]
    paused = _schedule("a", JOB, paused=True, next_run_at=None)
    api.post("/v1/schedules/a/pause").mock(return_value=httpx.Response(200, json=paused))
    api.post("/v1/schedules/a/resume").mock(
        return_value=httpx.Response(200, json=_schedule("a", JOB))
    )
    delete = api.delete("/v1/schedules/a").mock(return_value=httpx.Response(204))
    assert (await resolve(client.schedules.pause("a"))).next_run_at is None
    assert (await resolve(client.schedules.resume("a"))).paused is False
    assert await resolve(client.schedules.delete("a")) is None
    assert delete.call_count == 1


async def test_refusals_are_typed(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """The service's refusals raise their classes, keeping the code."""
    api.put("/v1/schedules/bad").mock(return_value=problem(400, "invalid_cron"))
    api.get("/v1/schedules/gone").mock(return_value=problem(404, "schedule_not_found"))
    destination = sdk.StreamDestination("ticks", 1)
    with pytest.raises(sdk.BadRequestError) as bad:
        await resolve(client.schedules.set("bad", cron="61 * * * *", destination=destination))
    assert bad.value.code == "invalid_cron"
    with pytest.raises(sdk.NotFoundError):
        await resolve(client.schedules.get("gone"))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda c: c.schedules.set(
                "s", cron="* * * * *", destination=sdk.StreamDestination("t", 1), timzone="UTC"
            ),
            TypeError,
            "schedules.set() got an unexpected keyword argument 'timzone'; did you mean 'timezone'?",
        ),
        (
            lambda c: c.schedules.set("s", cron="* * * * *", destination={"kind": "job"}),
            sdk.InvalidArgumentError,
            "destination must be a MessageDestination, JobDestination or StreamDestination",
        ),
        (
            lambda c: c.schedules.set(
                "s", cron="* * * * *", destination=sdk.StreamDestination("t", 1), catch_up="all"
            ),
            sdk.InvalidArgumentError,
            "catch_up must be 'once' or 'skip', got 'all'",
        ),
        (
            lambda c: c.schedules.set(
                "bad name", cron="* * * * *", destination=sdk.StreamDestination("t", 1)
            ),
            sdk.InvalidNameError,
            "schedule",
        ),
        (
            lambda c: c.schedules.set("s", cron="* * * * *", destination=sdk.MessageDestination(1)),
            sdk.InvalidArgumentError,
            "give exactly one of url and url_group",
        ),
        (
            lambda c: c.schedules.set(
                "s", cron="* * * * *", destination=sdk.JobDestination("jobs", "spool.tick", 1)
            ),
            sdk.InvalidArgumentError,
            "reserved",
        ),
        (
            lambda c: c.schedules.set(
                "s",
                cron="* * * * *",
                destination=sdk.StreamDestination("t", 1, maxlen=1, minid="1-0"),
            ),
            sdk.InvalidArgumentError,
            "give at most one of maxlen and minid",
        ),
        (lambda c: c.schedules.list(page_size=0), sdk.InvalidArgumentError, "limit"),
    ],
    ids=["misspelled", "not-a-destination", "catch-up", "name", "no-url", "topic", "trims", "page"],
)
async def test_bad_arguments_are_refused_before_sending(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    call: Any,
    error: type[Exception],
    message: str,
) -> None:
    """A misspelled option names the right one; a bad destination or name sends nothing."""
    with pytest.raises(error) as raised:
        await resolve(call(client))
    assert message in str(raised.value)
    assert not api.calls


async def test_set_takes_its_options_and_the_request_options_apart(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """`timezone` goes into the schedule, `timeout` and `extra_headers` onto the request only;
    a misspelled one of either kind is refused naming it.
    """
    put = api.put("/v1/schedules/nightly").mock(
        return_value=httpx.Response(201, json=_schedule("nightly", JOB))
    )
    await resolve(
        client.schedules.set(
            "nightly",
            cron="*/5 * * * *",
            destination=sdk.JobDestination("jobs", "reports", {"n": 1}, delay="1m"),
            timezone="Europe/Berlin",
            timeout=2,
            extra_headers={"X-Tenant": "acme"},
        )
    )
    request = put.calls.last.request
    assert sent_json(put.calls.last).keys() == {"cron", "timezone", "destination"}
    assert request.headers["x-tenant"] == "acme"
    assert request.extensions["timeout"] == httpx.Timeout(2).as_dict()
    set_schedule: Any = client.schedules.set
    for typo, meant in [("timzone", "timezone"), ("extra_header", "extra_headers")]:
        with pytest.raises(TypeError, match=f"did you mean {meant!r}"):
            await resolve(set_schedule("nightly", cron="* * * * *", destination=JOB, **{typo: 1}))
