"""Flow control (sdk/_flow_control.py and `flow_control=` on publishes), on both clients against a
mocked service.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import BASE_URL, collect, problem, resolve, sent_json

URL = "https://example.com/hooks/orders"
RECEIPTS = {"messages": [{"message_id": "msg_1", "url": URL, "deduplicated": False}]}


def _state(key: str = "acme", **fields: Any) -> dict[str, Any]:
    return {
        "key": key,
        "rate": 10,
        "period": 60,
        "parallelism": 2,
        "paused": False,
        "waiting": 3,
        "in_flight": 2,
        "rate_used": 7,
        **fields,
    }


@pytest.mark.parametrize(
    ("flow_control", "sent"),
    [
        (
            sdk.FlowControl("acme", rate=10, period="1m", parallelism=2),
            {"key": "acme", "rate": 10, "period": 60, "parallelism": 2},
        ),
        (sdk.FlowControl("acme", parallelism=1), {"key": "acme", "parallelism": 1}),
        (
            {"key": "acme", "rate": 5, "period": timedelta(hours=1)},
            {"key": "acme", "rate": 5, "period": 3600},
        ),
    ],
)
async def test_publish_sends_flow_control(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    flow_control: Any,
    sent: dict[str, Any],
) -> None:
    """A FlowControl or a dict of its fields goes as the API's object, `period` in seconds."""
    publish = api.post("/v1/messages").mock(return_value=httpx.Response(202, json=RECEIPTS))
    await resolve(client.messages.publish_json(url=URL, body={"n": 1}, flow_control=flow_control))
    assert sent_json(publish.calls[0])["flow_control"] == sent


async def test_batch_items_and_schedules_send_flow_control(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    batch = api.post("/v1/messages/batch").mock(
        return_value=httpx.Response(202, json={"results": [RECEIPTS]})
    )
    limits = sdk.FlowControl("acme", rate=1, period=30)
    await resolve(client.messages.batch([sdk.MessageRequest("x", url=URL, flow_control=limits)]))
    [item] = sent_json(batch.calls[0])["messages"]
    assert item["flow_control"] == {"key": "acme", "rate": 1, "period": 30}
    destination = {
        "kind": "message",
        "message": {"url": URL, "body": "x", "flow_control": {"key": "acme", "parallelism": 1}},
    }
    schedule = {
        "name": "s",
        "cron": "* * * * *",
        "timezone": "UTC",
        "catch_up": "once",
        "destination": destination,
        "paused": False,
        "created_at": "2026-11-29T12:00:00Z",
        "updated_at": "2026-11-29T12:00:00Z",
        "last_run_at": None,
        "next_run_at": "2026-11-29T12:01:00Z",
        "recent_runs": [],
    }
    put = api.put("/v1/schedules/s").mock(return_value=httpx.Response(201, json=schedule))
    got = await resolve(
        client.schedules.set(
            "s",
            cron="* * * * *",
            destination=sdk.MessageDestination(
                "x", url=URL, flow_control=sdk.FlowControl("acme", parallelism=1)
            ),
        )
    )
    assert sent_json(put.calls[0])["destination"] == destination
    assert isinstance(got.destination, sdk.MessageDestination)
    assert got.destination.flow_control == sdk.FlowControl("acme", parallelism=1)


async def test_a_message_reads_back_its_flow_control(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    message = {
        "message_id": "msg_1",
        "url": URL,
        "method": "POST",
        "content_type": "application/json",
        "headers": {},
        "state": "scheduled",
        "retries": 3,
        "timeout": 30,
        "created_at": "2026-11-29T12:00:00Z",
        "not_before": "2026-11-29T12:00:00Z",
        "attempts": [],
        "flow_control": {"key": "acme", "rate": 10, "period": 60},
    }
    api.get("/v1/messages/msg_1").mock(return_value=httpx.Response(200, json=message))
    got = await resolve(client.messages.get("msg_1"))
    assert got.flow_control == sdk.FlowControl("acme", rate=10, period=timedelta(seconds=60))


async def test_keys_get_list_pause_resume_reset(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    api.get("/v1/flow-control/acme").mock(return_value=httpx.Response(200, json=_state()))
    state = await resolve(client.flow_control.get("acme"))
    assert state == sdk.FlowControlState(
        key="acme",
        rate=10,
        period=timedelta(seconds=60),
        parallelism=2,
        paused=False,
        waiting=3,
        in_flight=2,
        rate_used=7,
    )
    idle = {"key": "idle", "paused": False, "waiting": 0, "in_flight": 0, "rate_used": 0}
    listing = api.get("/v1/flow-control").mock(
        side_effect=[
            httpx.Response(200, json={"keys": [_state()], "next_cursor": "ZjphY21l"}),
            httpx.Response(200, json={"keys": [idle], "next_cursor": None}),
        ]
    )
    states = await collect(client.flow_control.list(page_size=1))
    assert [s.key for s in states] == ["acme", "idle"]
    assert (states[1].rate, states[1].period, states[1].parallelism) == (None, None, None)
    assert [dict(call.request.url.params) for call in listing.calls] == [
        {"limit": "1"},
        {"limit": "1", "cursor": "ZjphY21l"},
    ]
    actions: list[tuple[str, dict[str, Any]]] = [
        ("pause", {"paused": True}),
        ("resume", {}),
        ("reset", {"rate_used": 0}),
    ]
    for action, fields in actions:
        route = api.post(f"/v1/flow-control/acme/{action}").mock(
            return_value=httpx.Response(200, json=_state(**fields))
        )
        changed = await resolve(getattr(client.flow_control, action)("acme"))
        assert route.call_count == 1
        assert changed.paused is fields.get("paused", False)
    api.get("/v1/flow-control/gone").mock(return_value=problem(403, "permission_denied"))
    with pytest.raises(sdk.PermissionDeniedError):
        await resolve(client.flow_control.get("gone"))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda c: c.messages.publish(url=URL, body="x", flow_controll={"key": "a", "rate": 1}),
            TypeError,
            "did you mean 'flow_control'?",
        ),
        (
            lambda c: c.messages.publish(url=URL, body="x", flow_control={"key": "a", "rat": 1}),
            sdk.InvalidArgumentError,
            "got 'rat'; did you mean 'rate'?",
        ),
        (
            lambda c: c.messages.publish(url=URL, body="x", flow_control=sdk.FlowControl("a")),
            sdk.InvalidArgumentError,
            "at least one of rate and parallelism",
        ),
        (
            lambda c: c.messages.publish(url=URL, body="x", flow_control={"rate": 1}),
            sdk.InvalidArgumentError,
            "needs a key",
        ),
        (
            lambda c: c.messages.publish(
                url=URL, body="x", flow_control=sdk.FlowControl("a b", rate=1)
            ),
            sdk.InvalidNameError,
            "flow control key",
        ),
        (
            lambda c: c.messages.publish(
                url=URL, body="x", flow_control=sdk.FlowControl("a", rate=10001)
            ),
            sdk.InvalidArgumentError,
            "rate must be an int between 1 and 10000",
        ),
        (
            lambda c: c.messages.publish(
                url=URL, body="x", flow_control=sdk.FlowControl("a", rate=1, period="25h")
            ),
            sdk.InvalidDurationError,
            "period",
        ),
        (
            lambda c: c.messages.publish(url=URL, body="x", flow_control=["a", 1]),
            sdk.InvalidArgumentError,
            "flow_control must be a FlowControl or a dict",
        ),
        (lambda c: c.flow_control.get("-a"), sdk.InvalidNameError, "flow control key"),
        (lambda c: c.flow_control.pause(""), sdk.InvalidNameError, "flow control key"),
        (lambda c: c.flow_control.list(page_size=0), sdk.InvalidArgumentError, "page_size"),
        (
            lambda c: c.flow_control.list(page_sise=5),
            TypeError,
            "did you mean 'page_size'?",
        ),
    ],
    ids=[
        "misspelled-option",
        "misspelled-field",
        "no-limit",
        "no-key",
        "bad-key",
        "rate",
        "period",
        "not-flow-control",
        "get-key",
        "pause-key",
        "page",
        "misspelled-page-size",
    ],
)
async def test_bad_arguments_are_refused_before_sending(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    call: Any,
    error: type[Exception],
    message: str,
) -> None:
    with pytest.raises(error) as raised:
        await resolve(call(client))
    assert message in str(raised.value)
    assert not api.calls


def test_flow_control_refuses_a_misspelled_field() -> None:
    with pytest.raises(TypeError, match="did you mean 'parallelism'"):
        sdk.FlowControl("a", paralelism=1)  # type: ignore[call-arg]


def test_the_callers_mapping_is_not_changed(api: respx.MockRouter) -> None:
    api.post("/v1/messages").mock(return_value=httpx.Response(202, json=RECEIPTS))
    given = {"key": "acme", "rate": 2, "period": "1m"}
    with sdk.Client(BASE_URL) as client:
        client.messages.publish(url=URL, body="x", flow_control=given)
    assert given == {"key": "acme", "rate": 2, "period": "1m"}
