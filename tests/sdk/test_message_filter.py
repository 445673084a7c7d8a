"""The filters `messages.list()` and `client.logs()` share (sdk/_message_filter.py), the event
listing itself (sdk/_message_listing.py) and labels on publish, on both clients.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import collect, resolve, sent_json

_EVENT = {
    "message_id": "msg_1",
    "at": "2026-11-29T12:00:01Z",
    "url": "https://example.com/hooks/signup",
    "labels": ["signup"],
}
SINCE = datetime(2026, 11, 29, tzinfo=UTC)


async def test_logs_send_every_filter_and_read_each_event(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Every filter goes with each page (ids repeated, times as RFC 3339); each event is a
    `LogEvent`, newest first, page after page.
    """
    route = api.get("/v1/logs").mock(
        side_effect=[
            httpx.Response(
                200,
                json={
                    "events": [
                        {
                            **_EVENT,
                            "state": "retry",
                            "attempt": 1,
                            "status_code": 503,
                            "flow_control_key": "acme",
                        }
                    ],
                    "next_cursor": "bDo0",
                },
            ),
            httpx.Response(
                200, json={"events": [{**_EVENT, "state": "created"}], "next_cursor": None}
            ),
        ]
    )
    events = await collect(
        client.logs(
            message_ids=["msg_1", "msg_2", "msg_1"],
            state="retry",
            url="https://example.com/hooks/signup",
            url_group="partners",
            label="signup",
            schedule="nightly",
            flow_control_key="acme",
            since=SINCE,
            until=1_796_000_000,
            limit=1,
        )
    )
    assert events == [
        sdk.LogEvent(
            message_id="msg_1",
            state="retry",
            at=datetime(2026, 11, 29, 12, 0, 1, tzinfo=UTC),
            url="https://example.com/hooks/signup",
            labels=("signup",),
            flow_control_key="acme",
            attempt=1,
            status_code=503,
        ),
        sdk.LogEvent(
            message_id="msg_1",
            state="created",
            at=datetime(2026, 11, 29, 12, 0, 1, tzinfo=UTC),
            url="https://example.com/hooks/signup",
            labels=("signup",),
        ),
    ]
    params = route.calls[1].request.url.params
    assert params.get_list("message_id") == ["msg_1", "msg_2"]
    assert {name: params[name] for name in params if name != "message_id"} == {
        "state": "retry",
        "url": "https://example.com/hooks/signup",
        "url_group": "partners",
        "label": "signup",
        "schedule": "nightly",
        "flow_control_key": "acme",
        "since": "2026-11-29T00:00:00+00:00",
        "until": "2026-11-30T00:53:20+00:00",
        "limit": "1",
        "cursor": "bDo0",
    }


async def test_messages_list_takes_the_same_filters(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """`messages.list()` sends the filters `logs()` does, and reads labels and the schedule."""
    message = {
        "message_id": "msg_1",
        "url": "https://example.com/hooks/signup",
        "method": "POST",
        "content_type": "application/json",
        "headers": {},
        "state": "failed",
        "retries": 0,
        "timeout": 30,
        "created_at": "2026-11-29T12:00:00Z",
        "not_before": "2026-11-29T12:00:00Z",
        "attempts": [],
        "labels": ["a", "b"],
        "schedule": "nightly",
    }
    route = api.get("/v1/messages").mock(
        return_value=httpx.Response(200, json={"messages": [message], "next_cursor": None})
    )
    [read] = await collect(
        client.messages.list(label="a", schedule="nightly", message_ids=["msg_1"], since=SINCE)
    )
    assert (read.labels, read.schedule) == (("a", "b"), "nightly")
    assert dict(route.calls.last.request.url.params) == {
        "message_id": "msg_1",
        "label": "a",
        "schedule": "nightly",
        "since": "2026-11-29T00:00:00+00:00",
        "limit": "100",
    }


@pytest.mark.parametrize(
    ("listing", "error"),
    [
        (lambda c: c.logs(state="delivering"), sdk.InvalidArgumentError),
        (lambda c: c.logs(message_ids="msg_1"), sdk.InvalidArgumentError),
        (lambda c: c.logs(message_ids=["job_1"]), sdk.InvalidArgumentError),
        (lambda c: c.logs(message_ids=[f"msg_{n}" for n in range(101)]), sdk.InvalidArgumentError),
        (lambda c: c.logs(label="no label"), sdk.InvalidArgumentError),
        (lambda c: c.logs(url=""), sdk.InvalidArgumentError),
        (lambda c: c.logs(schedule="no/pe"), sdk.InvalidNameError),
        (lambda c: c.logs(flow_control_key="-x"), sdk.InvalidNameError),
        (lambda c: c.logs(since=datetime(2026, 1, 1)), sdk.InvalidArgumentError),
        (lambda c: c.logs(limit=0), sdk.InvalidArgumentError),
        (lambda c: c.messages.list(state="retry"), sdk.InvalidArgumentError),
        (lambda c: c.messages.list(until="yesterday"), sdk.InvalidArgumentError),
    ],
)
async def test_bad_filters_raise_before_any_request(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    listing: Callable[[Any], object],
    error: type[Exception],
) -> None:
    """A listing checks its filters when it is made, and sends nothing."""
    with pytest.raises(error):
        listing(client)
    assert not api.calls


async def test_a_misspelt_filter_is_refused_with_a_suggestion(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A typo is a TypeError naming the keyword it resembles, not a wider listing."""
    with pytest.raises(TypeError, match="did you mean 'label'"):
        client.logs(lable="signup")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="did you mean 'flow_control_key'"):
        client.messages.list(flow_control_kye="acme")  # type: ignore[call-arg]
    assert not api.calls


async def test_labels_are_sent_with_a_publish_a_batch_and_a_schedule(
    client: sdk.Client | sdk.AsyncClient, publish: respx.Route, api: respx.MockRouter
) -> None:
    """`labels=` goes with the message, each once; a bad one is refused before any request."""
    await resolve(
        client.messages.publish(url="https://my-api.test/hook", body="x", labels=["a", "b", "a"])
    )
    assert sent_json(publish.calls.last)["labels"] == ["a", "b"]
    batch = api.post("/v1/messages/batch").mock(
        return_value=httpx.Response(202, json={"results": []})
    )
    await resolve(
        client.messages.batch(
            [sdk.MessageRequest("x", url="https://my-api.test/hook", labels=("c",))]
        )
    )
    assert sent_json(batch.calls.last)["messages"][0]["labels"] == ["c"]
    for labels in (["bad label"], [f"l{n}" for n in range(11)], "ab"):
        with pytest.raises(sdk.InvalidArgumentError):
            await resolve(
                client.messages.publish(url="https://my-api.test/hook", body="x", labels=labels)
            )
    assert len(publish.calls) == 1
