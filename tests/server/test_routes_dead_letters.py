"""retryDeadLetters and deleteDeadLetters over HTTP, and the headers of a single retry: ids, a
filter or all, a bounded page per request, within the token's permission.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from generated.pydantic_models import DeadLetterBulkResult
from server.config import ALL_ACTIONS, Permission, Settings, TokenConfig
from server.schedules import Scheduler
from server.stores.base import DeliveryAttemptRecord
from tests.conftest import TEST_DESTINATIONS, RunningApp, assert_problem

AppFactory = Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]]
HOOK = "https://example.com/hooks/signup"
OTHER = "https://example.com/hooks/other"


async def _dead_letter(api: RunningApp, **message: object) -> str:
    """Publish a message and fail its only delivery, as the delivery engine would."""
    fields = {"url": HOOK, "body": "x", "retries": 0, **message}
    response = await api.client.post(
        "/v1/messages", json={name: value for name, value in fields.items() if value is not None}
    )
    assert response.status_code == 202, response.text
    message_id: str = response.json()["messages"][0]["message_id"]
    claimed = await api.store.claim_due_messages(now=time.time() + 1, limit=10, lease_margin=60)
    [lease_id] = [m.lease_id for m in claimed if m.message_id == message_id]
    attempt = DeliveryAttemptRecord(
        attempt=1, started_at=time.time(), duration_ms=12, status_code=503, error="HTTP 503"
    )
    await api.store.record_attempt(message_id, attempt, lease_id=str(lease_id), outcome="failed")
    return message_id


async def _dead_ids(api: RunningApp) -> list[str]:
    response = await api.client.get("/v1/dead-letters", params={"limit": 1000})
    return [letter["message_id"] for letter in response.json()["dead_letters"]]


async def _bulk(api: RunningApp, action: str, **body: Any) -> DeadLetterBulkResult:
    response = await api.client.post(f"/v1/dead-letters/{action}", json=body)
    assert response.status_code == 200, response.text
    return DeadLetterBulkResult.model_validate(response.json())


async def _until_done(api: RunningApp, action: str, **body: Any) -> tuple[list[str], int]:
    """Every request of a bulk action, following ``next_cursor``: the ids acted on, and the
    number of requests it took.
    """
    acted: list[str] = []
    requests = 0
    cursor = None
    while True:
        result = await _bulk(api, action, **body, **({} if cursor is None else {"cursor": cursor}))
        requests += 1
        assert result.acted == len(result.message_ids)
        acted += result.message_ids
        if (cursor := result.next_cursor) is None:
            return acted, requests


async def test_retry_by_ids_reports_each_and_sets_the_headers(api: RunningApp) -> None:
    """Each named id is reported; the retried messages are scheduled with the headers set over
    their own (a name in another letter case replaced), and a second retry finds them gone.
    """
    first = await _dead_letter(api, headers={"authorization": "old", "X-Keep": "1"})
    second = await _dead_letter(api)
    unknown = "msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"
    result = await _bulk(
        api, "retry", ids=[first, unknown, second, first], headers={"Authorization": "new"}
    )
    assert (result.acted, result.message_ids, result.next_cursor) == (2, [first, second], None)
    assert [(r.message_id, r.outcome.root) for r in result.results or []] == [
        (first, "retried"),
        (unknown, "not_found"),
        (second, "retried"),
    ]
    message = (await api.client.get(f"/v1/messages/{first}")).json()
    assert (message["state"], message["headers"]) == (
        "scheduled",
        {"Authorization": "new", "X-Keep": "1"},
    )
    assert await _dead_ids(api) == []
    again = await _bulk(api, "retry", ids=[first])
    assert (again.acted, [r.outcome.root for r in again.results or []]) == (0, ["not_found"])


async def test_retry_by_filter_goes_in_bounded_requests(api: RunningApp) -> None:
    """A filter by URL, URL group and filing time retries only what matches, ``limit`` letters
    looked at per request, until ``next_cursor`` is null; the others stay.
    """
    group = await api.client.put("/v1/url-groups/partners", json={"endpoints": [{"url": OTHER}]})
    assert group.status_code == 200, group.text
    early = [await _dead_letter(api) for _ in range(3)]
    await asyncio.sleep(0.02)
    middle = datetime.fromtimestamp(time.time(), UTC).isoformat()
    late = await _dead_letter(api)
    grouped = await _dead_letter(api, url=None, url_group="partners")
    other = await _dead_letter(api, url=OTHER)
    acted, requests = await _until_done(api, "retry", filter={"url": HOOK, "to": middle}, limit=1)
    assert acted == early
    assert requests >= 3
    assert await _dead_ids(api) == [late, grouped, other]
    by_group, _ = await _until_done(api, "retry", filter={"url_group": "partners"})
    assert by_group == [grouped]
    since, _ = await _until_done(api, "retry", filter={"from": middle, "url": HOOK})
    assert since == [late]
    assert await _dead_ids(api) == [other]


async def _scheduled_dead_letter(api: RunningApp) -> str:
    """Run the schedule ``nightly`` once and fail the message it publishes for good."""
    destination = {"kind": "message", "message": {"url": OTHER, "body": "t", "retries": 0}}
    put = await api.client.put(
        "/v1/schedules/nightly", json={"cron": "* * * * *", "destination": destination}
    )
    assert put.status_code == 201, put.text
    tick = datetime.fromisoformat(put.json()["next_run_at"]).timestamp()
    api.store.clock = lambda: tick + 0.002
    assert await Scheduler(api.app.state.context, clock=lambda: tick + 0.002).run_due() == 1
    [run] = (await api.client.get("/v1/schedules/nightly")).json()["recent_runs"]
    [message_id] = run["ids"]
    claimed = await api.store.claim_due_messages(now=tick + 1, limit=10, lease_margin=60)
    [lease_id] = [m.lease_id for m in claimed if m.message_id == message_id]
    attempt = DeliveryAttemptRecord(attempt=1, started_at=tick, duration_ms=12, error="timeout")
    await api.store.record_attempt(message_id, attempt, lease_id=str(lease_id), outcome="failed")
    return str(message_id)


async def test_a_filter_takes_the_message_listings_label_schedule_and_key(
    api: RunningApp,
) -> None:
    """``label``, ``schedule`` and ``flow_control_key`` pick out the letters whose messages
    listMessages picks out by them; every member given must match.
    """
    labelled = await _dead_letter(api, labels=["signup"], flow_control={"key": "acme", "rate": 100})
    keyed = await _dead_letter(api, flow_control={"key": "acme", "rate": 100})
    plain = await _dead_letter(api, labels=["other"])
    scheduled = await _scheduled_dead_letter(api)
    none, _ = await _until_done(api, "delete", filter={"label": "signup", "schedule": "nightly"})
    assert none == []
    both, _ = await _until_done(
        api, "retry", filter={"label": "signup", "flow_control_key": "acme"}, limit=1
    )
    assert both == [labelled]
    by_key, _ = await _until_done(api, "delete", filter={"flow_control_key": "acme"})
    assert by_key == [keyed]
    by_schedule, _ = await _until_done(api, "retry", filter={"schedule": "nightly"})
    assert by_schedule == [scheduled]
    assert await _dead_ids(api) == [plain]
    listed = await api.client.get("/v1/messages", params={"flow_control_key": "acme"})
    assert {m["message_id"] for m in listed.json()["messages"]} == {labelled, keyed}


async def test_all_deletes_every_letter_a_page_at_a_time(api: RunningApp) -> None:
    """``all`` with a small ``limit`` takes several requests and deletes every letter; the
    messages stay readable.
    """
    letters = [await _dead_letter(api) for _ in range(5)]
    acted, requests = await _until_done(api, "delete", all=True, limit=2)
    assert acted == letters
    assert requests == 3
    assert await _dead_ids(api) == []
    assert (await api.client.get(f"/v1/messages/{letters[0]}")).json()["state"] == "failed"


async def test_delete_by_ids_and_by_filter(api: RunningApp) -> None:
    """Named ids are deleted and reported; a filter deletes only what it matches."""
    first = await _dead_letter(api)
    other = await _dead_letter(api, url=OTHER)
    kept = await _dead_letter(api)
    result = await _bulk(api, "delete", ids=[first])
    assert [(r.message_id, r.outcome.root) for r in result.results or []] == [(first, "deleted")]
    filtered, _ = await _until_done(api, "delete", filter={"url": OTHER})
    assert filtered == [other]
    assert await _dead_ids(api) == [kept]


def _settings(store_url: str) -> Settings:
    """An admin token (``secret-admin``) and one (``secret-some``) with every action on the
    messages to ``HOOK`` alone.
    """
    admin = TokenConfig(
        id="admin",
        secret="secret-admin",
        permissions=tuple(
            Permission(resource=kind, name="*", actions=ALL_ACTIONS)
            for kind in ("message", "url_group")
        ),
    )
    some = TokenConfig(
        id="some",
        secret="secret-some",
        permissions=(Permission(resource="message", name=HOOK, actions=ALL_ACTIONS),),
    )
    return Settings(
        tokens=(admin, some), store_url=store_url, allowed_destinations=TEST_DESTINATIONS
    )


async def test_letters_outside_the_tokens_permission_are_left_alone(
    app_factory: AppFactory, store_url: str
) -> None:
    """A named letter the token may not act on is ``permission_denied``; ``all`` passes over
    such letters, which stay.
    """
    async with app_factory(_settings(store_url), token="secret-admin") as running:
        mine = await _dead_letter(running)
        theirs = await _dead_letter(running, url=OTHER)
        running.client.headers["Authorization"] = "Bearer secret-some"
        result = await _bulk(running, "retry", ids=[theirs, mine])
        assert [(r.message_id, r.outcome.root) for r in result.results or []] == [
            (theirs, "permission_denied"),
            (mine, "retried"),
        ]
        mine_again = await _dead_letter(running)
        acted, _ = await _until_done(running, "delete", all=True)
        assert acted == [mine_again]
        running.client.headers["Authorization"] = "Bearer secret-admin"
        assert await _dead_ids(running) == [theirs]


@pytest.mark.parametrize(
    ("action", "body", "location"),
    [
        ("retry", {}, "body.ids"),
        ("delete", {"ids": ["msg_a"], "all": True}, "body.all"),
        ("retry", {"all": False}, "body.all"),
        ("delete", {"ids": ["msg_a"], "cursor": "ZDoxLjA6MQ"}, "body.cursor"),
        ("retry", {"ids": ["msg_a"], "limit": 5}, "body.limit"),
        ("retry", {"all": True, "cursor": "bTo0Mg"}, "body.cursor"),
        ("delete", {"filter": {"state": "failed"}}, "body.filter.state"),
        ("retry", {"all": True, "headers": {"Host": "evil.test"}}, "body.headers.Host"),
        (
            "retry",
            {"all": True, "headers": {"Spool-Signature": "x"}},
            "body.headers.Spool-Signature",
        ),
        ("delete", {"all": True, "limit": 1001}, "body.limit"),
        ("delete", {"ids": []}, "body.ids"),
    ],
)
async def test_a_bad_bulk_request_is_refused_and_acts_on_nothing(
    api: RunningApp, action: str, body: dict[str, Any], location: str
) -> None:
    """Exactly one of ids, filter and all; cursor and limit only beside filter or all; a filter
    member this version does not know, or a header the service sets, is refused.
    """
    letter = await _dead_letter(api)
    response = await api.client.post(f"/v1/dead-letters/{action}", json=body)
    problem = assert_problem(response, 422, "validation_failed")
    assert location in [error["location"] for error in problem["errors"]], problem
    assert await _dead_ids(api) == [letter]


async def test_a_single_retry_sets_the_headers_of_its_body(api: RunningApp) -> None:
    """retryDeadLetter with a body sets its headers; a service header is refused first."""
    message_id = await _dead_letter(api, headers={"X-Keep": "1"})
    refused = await api.client.post(
        f"/v1/dead-letters/{message_id}/retry", json={"headers": {"Connection": "close"}}
    )
    assert_problem(refused, 422, "validation_failed")
    retried = await api.client.post(
        f"/v1/dead-letters/{message_id}/retry", json={"headers": {"X-Token": "t"}}
    )
    assert retried.status_code == 202, retried.text
    message = (await api.client.get(f"/v1/messages/{message_id}")).json()
    assert message["headers"] == {"X-Keep": "1", "X-Token": "t"}


async def test_the_bulk_paths_are_no_dead_letter_ids(api: RunningApp) -> None:
    """DELETE /v1/dead-letters/retry is 405, not a deleteDeadLetter of the id ``retry``."""
    for path in ("/v1/dead-letters/retry", "/v1/dead-letters/delete"):
        assert (await api.client.delete(path)).status_code == 405
