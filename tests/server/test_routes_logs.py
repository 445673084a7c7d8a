"""Message labels, the filters listMessages and listLogs share, and listLogs itself
(server/routes/messages.py, server/routes/_query.py).
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Callable
from typing import Any

import pytest

from generated.pydantic_models import LogList, MessageList
from server.schedules import Scheduler
from tests.conftest import RunningApp, assert_problem
from tests.server.test_routes_listing import SOME, _pages, _publish, _settings

AppFactory = Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]]
OTHER = "https://example.com/hooks/other"


def _ids(pages: list[dict[str, Any]], key: str = "messages") -> list[str]:
    return [item["message_id"] for page in pages for item in page[key]]


async def test_labels_are_kept_once_each_and_shown(api: RunningApp) -> None:
    """A message keeps its labels in the order first given, each once; one without has none."""
    labelled = await _publish(api, labels=["signup", "tenant:acme", "signup"])
    plain = await _publish(api)
    shown = (await api.client.get(f"/v1/messages/{labelled}")).json()
    assert shown["labels"] == ["signup", "tenant:acme"]
    assert (await api.client.get(f"/v1/messages/{plain}")).json()["labels"] == []
    listed = (await api.client.get("/v1/messages", params={"label": "signup"})).json()
    MessageList.model_validate(listed)
    assert [message["labels"] for message in listed["messages"]] == [["signup", "tenant:acme"]]


@pytest.mark.parametrize(
    ("labels", "location"),
    [
        (["bad label"], "body.labels.0"),
        (["x" * 65], "body.labels.0"),
        ([f"l{number}" for number in range(11)], "body.labels"),
    ],
)
async def test_labels_out_of_their_bounds_are_422(
    api: RunningApp, labels: list[str], location: str
) -> None:
    """A label must match its pattern and length, and a message takes at most ten."""
    response = await api.client.post(
        "/v1/messages", json={"url": OTHER, "body": 1, "labels": labels}
    )
    problem = assert_problem(response, 422, "validation_failed")
    assert problem["errors"][0]["location"] == location


async def test_a_batch_item_takes_labels(api: RunningApp) -> None:
    """publishMessages keeps each item's labels on its messages."""
    response = await api.client.post(
        "/v1/messages/batch",
        json={"messages": [{"url": OTHER, "body": 1, "labels": ["batch"]}]},
    )
    [[message_id]] = [[m["message_id"] for m in r["messages"]] for r in response.json()["results"]]
    assert (await api.client.get(f"/v1/messages/{message_id}")).json()["labels"] == ["batch"]


async def test_list_messages_takes_every_filter(api: RunningApp) -> None:
    """Ids (repeated), URL, label, flow control key and the time range each narrow the list."""
    first = await _publish(api, labels=["a"])
    second = await _publish(
        api, url=OTHER, labels=["b"], flow_control={"key": "acme", "parallelism": 1}
    )
    created = (await api.client.get(f"/v1/messages/{second}")).json()["created_at"]
    later = (datetime.datetime.fromisoformat(created) + datetime.timedelta(seconds=1)).isoformat()

    async def ids(**params: Any) -> list[str]:
        return _ids(await _pages(api, "/v1/messages", **params))

    assert await ids(message_id=[first, second]) == [second, first]
    assert await ids(url=OTHER) == [second]
    assert await ids(label="a") == [first]
    assert await ids(flow_control_key="acme") == [second]
    assert await ids(schedule="nightly") == []
    assert second in await ids(since=created)
    assert second not in await ids(until=created)
    assert await ids(since=later) == []


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/logs"])
@pytest.mark.parametrize(
    ("params", "location"),
    [
        ({"message_id": "job_1"}, "query.message_id"),
        ({"url": "x" * 2049}, "query.url"),
        ({"label": "bad label"}, "query.label"),
        ({"schedule": "bad name"}, "query.schedule"),
        ({"flow_control_key": "-x"}, "query.flow_control_key"),
        ({"since": "yesterday"}, "query.since"),
        ({"until": "2026-11-29T12:00:00"}, "query.until"),
        ({"state": "lost"}, "query.state"),
    ],
)
async def test_bad_filters_are_422_at_their_parameter(
    api: RunningApp, path: str, params: dict[str, str], location: str
) -> None:
    """A filter value outside its schema is refused, naming the parameter."""
    problem = assert_problem(await api.client.get(path, params=params), 422, "validation_failed")
    assert problem["errors"][0]["location"] == location


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/logs"])
async def test_an_unknown_query_parameter_is_400_with_a_suggestion(
    api: RunningApp, path: str
) -> None:
    """A misspelt filter is refused rather than ignored, naming the parameter it resembles."""
    response = await api.client.get(path, params={"lable": "signup"})
    problem = assert_problem(response, 400, "malformed_request")
    assert "unknown query parameter 'lable'; did you mean 'label'?" in problem["detail"]


async def test_too_many_message_ids_are_422(api: RunningApp) -> None:
    """A filter names at most 100 messages."""
    ids = [f"msg_{number}" for number in range(101)]
    response = await api.client.get("/v1/logs", params={"message_id": ids})
    problem = assert_problem(response, 422, "validation_failed")
    assert problem["errors"][0]["location"] == "query.message_id"


async def test_list_logs_answers_each_change_newest_first(api: RunningApp) -> None:
    """A publish and a cancel are two events, newest first, paged by cursor; the events hold
    what the message is found by and never its body or headers, redacted or not.
    """
    message_id = await _publish(
        api,
        delay=60,
        labels=["signup"],
        headers={"Authorization": "Bearer secret"},
        redact={"headers": ["Authorization"]},
    )
    await api.client.post(f"/v1/messages/{message_id}/cancel")
    pages = await _pages(api, "/v1/logs", message_id=message_id, limit=1)
    for page in pages:
        LogList.model_validate(page)
    events = [event for page in pages for event in page["events"]]
    assert [event["state"] for event in events] == ["cancelled", "created"]
    assert events[1] == {
        "message_id": message_id,
        "state": "created",
        "at": events[1]["at"],
        "url": "https://example.com/hooks/signup",
        "labels": ["signup"],
    }
    assert "secret" not in str(pages)
    only = await _pages(api, "/v1/logs", state="cancelled", label="signup", url=events[0]["url"])
    assert _ids(only, "events")[:1] == [message_id]
    since = await _pages(api, "/v1/logs", message_id=message_id, since=events[0]["at"])
    assert [event["state"] for page in since for event in page["events"]] == ["cancelled"]
    until = await _pages(api, "/v1/logs", message_id=message_id, until=events[0]["at"])
    assert [event["state"] for page in until for event in page["events"]] in (
        [],
        ["created"],
    )


async def test_a_cursor_of_another_listing_is_422_on_logs(api: RunningApp) -> None:
    """The logs' cursor is their own: a message listing's is refused."""
    await _publish(api)
    await _publish(api)
    cursor = (await api.client.get("/v1/messages", params={"limit": 1})).json()["next_cursor"]
    response = await api.client.get("/v1/logs", params={"cursor": cursor})
    problem = assert_problem(response, 422, "validation_failed")
    assert problem["errors"][0]["location"] == "query.cursor"


async def test_list_logs_shows_only_the_events_the_token_may_see(
    app_factory: AppFactory, store_url: str
) -> None:
    """An event is listed when the token may consume its message's URL or URL group."""
    settings = _settings(store_url, ("message", "https://example.com/mine/*"))
    async with app_factory(settings, token="secret-admin") as running:
        mine = await _publish(running, url="https://example.com/mine/1")
        await _publish(running, url="https://example.com/theirs/1")
        running.client.headers.update(SOME)
        seen = await _pages(running, "/v1/logs")
        assert _ids(seen, "events") == [mine]


async def test_a_schedules_messages_carry_its_labels_and_its_name(api: RunningApp) -> None:
    """A schedule's message destination takes labels; what it publishes names the schedule,
    which both listings filter on.
    """
    destination = {"kind": "message", "message": {"url": OTHER, "body": "t", "labels": ["tick"]}}
    put = await api.client.put(
        "/v1/schedules/nightly", json={"cron": "* * * * *", "destination": destination}
    )
    assert put.status_code == 201, put.text
    tick = datetime.datetime.fromisoformat(put.json()["next_run_at"]).timestamp()
    api.store.clock = lambda: tick + 0.002
    assert await Scheduler(api.app.state.context, clock=lambda: tick + 0.002).run_due() == 1
    [run] = (await api.client.get("/v1/schedules/nightly")).json()["recent_runs"]
    [message_id] = run["ids"]
    message = (await api.client.get(f"/v1/messages/{message_id}")).json()
    assert (message["labels"], message["schedule"]) == (["tick"], "nightly")
    listed = await _pages(api, "/v1/messages", schedule="nightly")
    assert _ids(listed) == [message_id]
    [event] = [
        event
        for page in await _pages(api, "/v1/logs", schedule="nightly")
        for event in page["events"]
    ]
    assert (event["message_id"], event["schedule"], event["labels"]) == (
        message_id,
        "nightly",
        ["tick"],
    )


async def test_list_logs_filters_by_url_group(api: RunningApp) -> None:
    """``url_group`` and ``flow_control_key`` pick out the events of the messages published to
    that group or under that key.
    """
    await api.client.put("/v1/url-groups/partners", json={"endpoints": [{"url": OTHER}]})
    grouped = await api.client.post(
        "/v1/messages",
        json={"url_group": "partners", "body": 1, "flow_control": {"key": "k", "rate": 5}},
    )
    [receipt] = grouped.json()["messages"]
    await _publish(api)
    for params in ({"url_group": "partners"}, {"flow_control_key": "k"}):
        pages = await _pages(api, "/v1/logs", **params)
        assert _ids(pages, "events") == [receipt["message_id"]]
        [event] = [event for page in pages for event in page["events"]]
        assert (event["url_group"], event["flow_control_key"]) == ("partners", "k")
