"""Flow control over HTTP: ``flow_control`` on publishes and schedules, and the key operations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from generated.pydantic_models import FlowControlList, FlowControlState, Message
from server.config import Permission, Settings, TokenConfig
from server.schedules import Scheduler
from tests.conftest import TEST_DESTINATIONS, RunningApp, assert_problem

URL = "https://example.com/hooks/flow"


async def _publish(api: RunningApp, **flow_control: Any) -> str:
    response = await api.client.post(
        "/v1/messages", json={"url": URL, "body": "x", "flow_control": flow_control}
    )
    assert response.status_code == 202, response.text
    message_id: str = response.json()["messages"][0]["message_id"]
    return message_id


async def _state(api: RunningApp, key: str) -> dict[str, Any]:
    response = await api.client.get(f"/v1/flow-control/{key}")
    assert response.status_code == 200, response.text
    FlowControlState.model_validate(response.json())
    document: dict[str, Any] = response.json()
    return document


async def _claimed(api: RunningApp) -> int:
    claimed = await api.store.claim_due_messages(now=api.store.clock(), limit=100, lease_margin=0)
    return len(claimed)


async def test_a_published_key_holds_its_rate_and_shows_its_state(api: RunningApp) -> None:
    """publishMessage with ``flow_control`` keeps the limits (``period`` read in seconds): the
    message shows them, getFlowControl shows the key, and claims keep its rate.
    """
    message_id = await _publish(api, key="acme", rate=2, period="1m", parallelism=5)
    for _ in range(2):
        await _publish(api, key="acme", rate=2, period="1m", parallelism=5)
    message = (await api.client.get(f"/v1/messages/{message_id}")).json()
    Message.model_validate(message)
    assert message["flow_control"] == {"key": "acme", "rate": 2, "period": 60, "parallelism": 5}
    assert await _claimed(api) == 2
    assert await _state(api, "acme") == {
        "key": "acme",
        "rate": 2,
        "period": 60,
        "parallelism": 5,
        "paused": False,
        "waiting": 1,
        "in_flight": 2,
        "rate_used": 2,
    }


@pytest.mark.parametrize(
    ("period", "seconds"), [(None, 1), (30, 30), ("45s", 45), ("2m", 120), ("24h", 86400)]
)
async def test_period_is_seconds_or_a_number_with_a_unit(
    api: RunningApp, period: Any, seconds: int
) -> None:
    fields: dict[str, Any] = {"key": "k", "rate": 3}
    if period is not None:
        fields["period"] = period
    message_id = await _publish(api, **fields)
    message = (await api.client.get(f"/v1/messages/{message_id}")).json()
    assert message["flow_control"] == {"key": "k", "rate": 3, "period": seconds}
    assert (await _state(api, "k"))["period"] == seconds


@pytest.mark.parametrize(
    ("flow_control", "location"),
    [
        ({"key": "acme"}, "body.flow_control"),
        ({"key": "acme", "period": 5}, "body.flow_control"),
        ({"key": "a b", "rate": 1}, "body.flow_control.key"),
        ({"key": "acme", "rate": 0}, "body.flow_control.rate"),
        ({"key": "acme", "rate": 10001}, "body.flow_control.rate"),
        ({"key": "acme", "parallelism": 1001}, "body.flow_control.parallelism"),
        ({"key": "acme", "rate": 1, "period": 86401}, "body.flow_control.period"),
        ({"key": "acme", "rate": 1, "period": "25h"}, "body.flow_control.period"),
        ({"key": "acme", "rate": 1, "burst": 3}, "body.flow_control.burst"),
    ],
)
async def test_a_bad_flow_control_is_refused_and_publishes_nothing(
    api: RunningApp, flow_control: dict[str, Any], location: str
) -> None:
    response = await api.client.post(
        "/v1/messages", json={"url": URL, "body": "x", "flow_control": flow_control}
    )
    problem = assert_problem(response, 422, "validation_failed")
    assert any(error["location"].startswith(location) for error in problem["errors"]), problem
    listed = (await api.client.get("/v1/messages")).json()
    assert listed["messages"] == []


async def test_batch_items_each_take_their_own_flow_control(api: RunningApp) -> None:
    response = await api.client.post(
        "/v1/messages/batch",
        json={
            "messages": [
                {"url": URL, "body": "1", "flow_control": {"key": "a", "parallelism": 1}},
                {"url": URL, "body": "2", "flow_control": {"key": "b", "rate": 7, "period": 9}},
                {"url": URL, "body": "3"},
            ]
        },
    )
    assert response.status_code == 202, response.text
    first, second, third = [
        (await api.client.get(f"/v1/messages/{item['messages'][0]['message_id']}")).json()
        for item in response.json()["results"]
    ]
    assert first["flow_control"] == {"key": "a", "period": 1, "parallelism": 1}
    assert second["flow_control"] == {"key": "b", "rate": 7, "period": 9}
    assert "flow_control" not in third
    refused = await api.client.post(
        "/v1/messages/batch",
        json={"messages": [{"url": URL, "body": "1", "flow_control": {"key": "a"}}]},
    )
    problem = assert_problem(refused, 422, "validation_failed")
    assert problem["errors"][0]["location"] == "body.messages.0.flow_control"


async def test_a_schedule_publishes_its_message_under_its_flow_control(api: RunningApp) -> None:
    destination = {
        "kind": "message",
        "message": {
            "url": URL,
            "body": "tick",
            "flow_control": {"key": "ticks", "rate": 1, "period": "1h", "parallelism": 1},
        },
    }
    put = await api.client.put(
        "/v1/schedules/ticker", json={"cron": "* * * * *", "destination": destination}
    )
    assert put.status_code == 201, put.text
    assert put.json()["destination"] == destination
    refused = await api.client.put(
        "/v1/schedules/other",
        json={
            "cron": "* * * * *",
            "destination": {
                "kind": "message",
                "message": {"url": URL, "body": "x", "flow_control": {"key": "x"}},
            },
        },
    )
    assert_problem(refused, 422, "validation_failed")
    tick = datetime.fromisoformat(put.json()["next_run_at"]).timestamp()
    api.store.clock = lambda: tick + 0.002
    assert await Scheduler(api.app.state.context, clock=lambda: tick + 0.002).run_due() == 1
    [run] = (await api.client.get("/v1/schedules/ticker")).json()["recent_runs"]
    [message_id] = run["ids"]
    message = (await api.client.get(f"/v1/messages/{message_id}")).json()
    assert message["flow_control"] == {
        "key": "ticks",
        "rate": 1,
        "period": 3600,
        "parallelism": 1,
    }
    assert (await _state(api, "ticks"))["waiting"] == 1


async def test_pause_resume_and_reset(api: RunningApp) -> None:
    """A paused key's messages wait while publishes go on; resume lets them through within the
    limits; reset forgets the rate's count. Each answers the key's state.
    """
    paused = await api.client.post("/v1/flow-control/acme/pause")
    assert paused.status_code == 200, paused.text
    assert paused.json() == {
        "key": "acme",
        "paused": True,
        "waiting": 0,
        "in_flight": 0,
        "rate_used": 0,
    }
    for _ in range(3):
        await _publish(api, key="acme", rate=1, period=3600)
    assert await _claimed(api) == 0
    resumed = (await api.client.post("/v1/flow-control/acme/resume")).json()
    assert (resumed["paused"], resumed["waiting"]) == (False, 3)
    assert await _claimed(api) == 1
    assert await _claimed(api) == 0
    reset = (await api.client.post("/v1/flow-control/acme/reset")).json()
    assert (reset["rate_used"], reset["in_flight"], reset["waiting"]) == (0, 1, 2)
    assert await _claimed(api) == 1


async def test_keys_list_a_page_at_a_time(api: RunningApp) -> None:
    for key in ("c", "a", "b"):
        await _publish(api, key=key, parallelism=2)
    first = await api.client.get("/v1/flow-control", params={"limit": 2})
    assert first.status_code == 200, first.text
    FlowControlList.model_validate(first.json())
    assert [state["key"] for state in first.json()["keys"]] == ["a", "b"]
    cursor = first.json()["next_cursor"]
    rest = (await api.client.get("/v1/flow-control", params={"limit": 2, "cursor": cursor})).json()
    assert [state["key"] for state in rest["keys"]] == ["c"]
    assert rest["next_cursor"] is None
    bad = await api.client.get("/v1/flow-control", params={"cursor": "bTox"})
    assert_problem(bad, 422, "validation_failed")
    assert_problem(
        await api.client.get("/v1/flow-control", params={"limit": 0}), 422, "validation_failed"
    )


async def test_an_unknown_key_is_idle_and_a_bad_key_is_invalid_name(api: RunningApp) -> None:
    assert await _state(api, "never.used") == {
        "key": "never.used",
        "paused": False,
        "waiting": 0,
        "in_flight": 0,
        "rate_used": 0,
    }
    for method, path in [
        ("GET", "/v1/flow-control/-x"),
        ("POST", "/v1/flow-control/-x/pause"),
        ("POST", "/v1/flow-control/-x/resume"),
        ("POST", "/v1/flow-control/-x/reset"),
    ]:
        problem = assert_problem(await api.client.request(method, path), 400, "invalid_name")
        assert "flow control key" in problem["detail"]


async def test_the_key_operations_need_their_permission_on_every_message(
    app_factory: Any, store_url: str
) -> None:
    """consume (to read) and admin (to change) on every message, named exactly ``*``: a
    permission on some URLs covers no key.
    """

    def settings(*permissions: Permission) -> Settings:
        return Settings(
            tokens=(TokenConfig(id="ops", secret="ops-secret", permissions=permissions),),
            store_url=store_url,
            allowed_destinations=TEST_DESTINATIONS,
        )

    some = Permission(
        resource="message", name="https://example.com/*", actions=frozenset({"consume", "admin"})
    )
    reader = Permission(resource="message", name="*", actions=frozenset({"consume"}))
    async with app_factory(settings(some), token="ops-secret") as api:
        assert_problem(await api.client.get("/v1/flow-control"), 403, "permission_denied")
        assert_problem(await api.client.get("/v1/flow-control/a"), 403, "permission_denied")
    async with app_factory(settings(reader), token="ops-secret") as api:
        assert (await api.client.get("/v1/flow-control")).status_code == 200
        assert (await api.client.get("/v1/flow-control/a")).status_code == 200
        assert_problem(await api.client.post("/v1/flow-control/a/pause"), 403, "permission_denied")
