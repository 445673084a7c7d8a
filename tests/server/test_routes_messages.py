"""Message, URL group, dead letter and signing key operations over HTTP
(server/routes/messages.py), on both stores.
"""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from generated.pydantic_models import (
    DeadLetterList,
    Message,
    MessageBatchResult,
    MessageReceiptList,
    SigningKeys,
    UrlGroup,
    UrlGroupList,
)
from server.schedules import Scheduler
from server.stores.base import DeliveryAttemptRecord
from tests.conftest import RunningApp, assert_problem, schema_allows

HOOK = "https://example.com/hooks/signup"


async def _publish(api: RunningApp, **message: object) -> str:
    response = await api.client.post("/v1/messages", json={"url": HOOK, "body": "x", **message})
    assert response.status_code == 202, response.text
    message_id: str = response.json()["messages"][0]["message_id"]
    return message_id


async def _dead_letter(api: RunningApp) -> str:
    """Publish a message and fail its only delivery, as the delivery engine would."""
    message_id = await _publish(api, retries=0)
    claimed = await api.store.claim_due_messages(now=time.time() + 1, limit=10, lease_margin=60)
    [lease_id] = [message.lease_id for message in claimed if message.message_id == message_id]
    attempt = DeliveryAttemptRecord(
        attempt=1, started_at=time.time(), duration_ms=12, status_code=503, error="HTTP 503"
    )
    await api.store.record_attempt(message_id, attempt, lease_id=str(lease_id), outcome="failed")
    return message_id


async def test_publish_a_string_body_stores_its_utf8_bytes(api: RunningApp) -> None:
    """A string body is kept as its UTF-8 bytes with the text content type by default."""
    response = await api.client.post("/v1/messages", json={"url": HOOK, "body": "héllo"})
    assert response.status_code == 202
    receipts = MessageReceiptList.model_validate(response.json())
    assert [(receipt.url, receipt.deduplicated) for receipt in receipts.messages] == [(HOOK, False)]
    stored = await api.store.get_message(receipts.messages[0].message_id)
    assert stored.body == "héllo".encode()
    assert stored.content_type == "text/plain; charset=utf-8"


async def test_publish_a_json_body_stores_it_as_json(api: RunningApp) -> None:
    """Any other JSON value is kept JSON-encoded with application/json (unless given)."""
    message_id = await _publish(api, body={"hello": "world", "n": [1, 2]})
    stored = await api.store.get_message(message_id)
    assert stored.body == b'{"hello":"world","n":[1,2]}'
    assert stored.content_type == "application/json"
    custom = await _publish(api, body=[1], content_type="application/vnd.acme+json")
    assert (await api.store.get_message(custom)).content_type == "application/vnd.acme+json"


async def test_get_message_shows_every_option(api: RunningApp) -> None:
    """getMessage returns the schedule and options, omitting fields that are absent."""
    message_id = await _publish(
        api,
        method="PUT",
        headers={"X-Tenant": "acme"},
        delay=60,
        retries=5,
        retry_delay="1000 * pow(2, retried)",
        callback="https://example.com/done",
        timeout=10,
    )
    body = (await api.client.get(f"/v1/messages/{message_id}")).json()
    message = Message.model_validate(body)
    assert (message.method.root, message.state.root, message.retries) == ("PUT", "scheduled", 5)
    assert message.headers == {"X-Tenant": "acme"}
    assert message.not_before - message.created_at >= timedelta(seconds=59)
    assert (message.retry_delay, message.timeout) == ("1000 * pow(2, retried)", 10)
    assert body["callback"] == "https://example.com/done"
    assert body["created_at"].endswith("Z")
    for absent in ("url_group", "failure_callback", "deduplication_id"):
        assert absent not in body
    assert body["attempts"] == []


async def test_callback_headers_are_kept_and_shown_per_callback(api: RunningApp) -> None:
    """``callback_headers`` and ``failure_callback_headers`` are stored for the callbacks and
    shown by getMessage and listMessages; a message without them shows neither.
    """
    message_id = await _publish(
        api,
        callback="https://example.com/done",
        callback_headers={"Authorization": "Bearer ok"},
        failure_callback="https://example.com/failed",
        failure_callback_headers={"X-Failed": "yes", "Authorization": "Bearer ko"},
    )
    stored = await api.store.get_message(message_id)
    assert stored.callback_headers == {"Authorization": "Bearer ok"}
    assert stored.failure_callback_headers == {"X-Failed": "yes", "Authorization": "Bearer ko"}
    shown = (await api.client.get(f"/v1/messages/{message_id}")).json()
    Message.model_validate(shown)
    assert shown["callback_headers"] == {"Authorization": "Bearer ok"}
    assert shown["failure_callback_headers"] == {"X-Failed": "yes", "Authorization": "Bearer ko"}
    listed = (await api.client.get("/v1/messages")).json()["messages"]
    [item] = [item for item in listed if item["message_id"] == message_id]
    assert item["callback_headers"] == {"Authorization": "Bearer ok"}
    plain = (await api.client.get(f"/v1/messages/{await _publish(api)}")).json()
    assert "callback_headers" not in plain and "failure_callback_headers" not in plain


async def test_redacted_headers_are_never_shown_but_kept(api: RunningApp) -> None:
    """The headers ``redact`` names (in any letter case) read ``[redacted]`` in getMessage,
    listMessages and cancelMessage, across headers, callback_headers and
    failure_callback_headers, while the store keeps their values for delivery.
    """
    message_id = await _publish(
        api,
        delay=3600,
        headers={"Authorization": "Bearer secret", "X-Tenant": "acme"},
        callback="https://example.com/done",
        callback_headers={"AUTHORIZATION": "Bearer callback-secret"},
        failure_callback="https://example.com/failed",
        failure_callback_headers={"x-api-key": "key-secret"},
        redact={"headers": ["authorization", "X-Api-Key", "Authorization"]},
    )
    stored = await api.store.get_message(message_id)
    assert stored.headers["Authorization"] == "Bearer secret"
    assert stored.callback_headers == {"AUTHORIZATION": "Bearer callback-secret"}
    assert stored.failure_callback_headers == {"x-api-key": "key-secret"}
    listed = (await api.client.get("/v1/messages")).json()["messages"]
    [in_list] = [item for item in listed if item["message_id"] == message_id]
    shown = (await api.client.get(f"/v1/messages/{message_id}")).json()
    cancelled = (await api.client.post(f"/v1/messages/{message_id}/cancel")).json()
    for document in (shown, in_list, cancelled):
        Message.model_validate(document)
        assert "secret" not in str(document)
        assert document["headers"] == {"Authorization": "[redacted]", "X-Tenant": "acme"}
        assert document["callback_headers"] == {"AUTHORIZATION": "[redacted]"}
        assert document["failure_callback_headers"] == {"x-api-key": "[redacted]"}
        assert document["redact"] == {"body": False, "headers": ["authorization", "X-Api-Key"]}
    plain = (await api.client.get(f"/v1/messages/{await _publish(api)}")).json()
    assert "redact" not in plain


async def test_a_redacted_body_is_marked_on_the_message(api: RunningApp) -> None:
    """``redact.body`` is kept and shown as the message's ``redact``; the body is delivered."""
    message_id = await _publish(api, body={"card": "4111"}, redact={"body": True})
    assert (await api.store.get_message(message_id)).body == b'{"card":"4111"}'
    shown = (await api.client.get(f"/v1/messages/{message_id}")).json()
    assert shown["redact"] == {"body": True, "headers": []}
    assert "4111" not in str(shown)


async def test_not_before_schedules_the_message(api: RunningApp) -> None:
    """``not_before`` is kept as the first delivery time; a past time means now."""
    later = datetime.now(UTC) + timedelta(hours=1)
    message_id = await _publish(api, not_before=later.isoformat())
    shown = Message.model_validate((await api.client.get(f"/v1/messages/{message_id}")).json())
    assert abs((shown.not_before - later).total_seconds()) < 1
    past = await _publish(api, not_before="2001-01-01T00:00:00Z")
    shown = Message.model_validate((await api.client.get(f"/v1/messages/{past}")).json())
    assert shown.not_before > datetime(2020, 1, 1, tzinfo=UTC)


async def test_not_before_reaches_as_far_as_delay_and_no_further(api: RunningApp) -> None:
    """``not_before`` may be up to 604800 seconds (7 days, the most ``delay`` allows) ahead, as
    openapi.yaml says; later is 422 at the field, and any time already past, year 1 at +01:00
    included, means now.
    """
    horizon = timedelta(seconds=604800)
    furthest = await _publish(api, not_before=(datetime.now(UTC) + horizon * 0.99).isoformat())
    shown = Message.model_validate((await api.client.get(f"/v1/messages/{furthest}")).json())
    assert shown.not_before - shown.created_at > horizon * 0.98
    for too_late in (datetime.now(UTC) + horizon * 1.01, "9999-12-31T23:59:59-23:59"):
        when = too_late if isinstance(too_late, str) else too_late.isoformat()
        for path, document, location in (
            ("", {"url": HOOK, "body": 1, "not_before": when}, "body.not_before"),
            (
                "/batch",
                {"messages": [{"url": HOOK, "body": 1, "not_before": when}]},
                "body.messages.0.not_before",
            ),
        ):
            response = await api.client.post(f"/v1/messages{path}", json=document)
            problem = assert_problem(response, 422, "validation_failed")
            assert problem["errors"] == [
                {
                    "location": location,
                    "message": "must be at most 604800 seconds from now, as far as delay goes",
                }
            ]
    earliest = await _publish(api, not_before="0001-01-01T00:00:00+01:00")
    shown = Message.model_validate((await api.client.get(f"/v1/messages/{earliest}")).json())
    assert abs((shown.not_before - shown.created_at).total_seconds()) < 1


@pytest.mark.parametrize(
    ("message", "location"),
    [
        ({"body": 1}, "body.url"),
        ({"url": HOOK, "url_group": "partners", "body": 1}, "body.url_group"),
        ({"url": HOOK, "body": 1, "delay": 1, "not_before": "2030-01-01T00:00:00Z"}, None),
        ({"url": "ftp://example.com/x", "body": 1}, "body.url"),
        ({"url": "https://", "body": 1}, "body.url"),
        ({"url": "https://example.com/a b", "body": 1}, "body.url"),
        ({"url": HOOK, "body": 1, "headers": {"Bad Name": "v"}}, "body.headers.Bad Name.[key]"),
        ({"url": HOOK, "body": 1, "headers": {"X-A": "line\nbreak"}}, "body.headers.X-A"),
        ({"url": HOOK, "body": 1, "headers": {"X-A": "caf\u00e9"}}, "body.headers.X-A"),
        ({"url": HOOK, "body": 1, "headers": {"X" * 257: "v"}}, None),
        ({"url": HOOK, "body": 1, "content_type": "text/plain\r\nX-Evil: 1"}, "body.content_type"),
        ({"url": HOOK, "body": 1, "content_type": "text/plain\n"}, "body.content_type"),
        ({"url": HOOK, "body": 1, "headers": {"Content-Length": "1"}}, None),
        ({"url": HOOK, "body": 1, "headers": {"Spool-Signature": "forged"}}, None),
        (
            {"url": HOOK, "body": 1, "callback_headers": {"Spool-Callback": "x"}},
            "body.callback_headers.Spool-Callback",
        ),
        (
            {"url": HOOK, "body": 1, "failure_callback_headers": {"Host": "x"}},
            "body.failure_callback_headers.Host",
        ),
        (
            {"url": HOOK, "body": 1, "callback_headers": {"X-A": "line\nbreak"}},
            "body.callback_headers.X-A",
        ),
        (
            {"url": HOOK, "body": 1, "failure_callback_headers": {"Bad Name": "v"}},
            "body.failure_callback_headers.Bad Name.[key]",
        ),
        (
            {"url": HOOK, "body": 1, "callback_headers": {f"X-{n}": "v" for n in range(51)}},
            "body.callback_headers",
        ),
        ({"url": HOOK, "body": 1, "retries": 21}, "body.retries"),
        ({"url": HOOK, "body": 1, "timeout": 0}, "body.timeout"),
        ({"url": HOOK, "body": 1, "method": "TRACE"}, "body.method"),
        ({"url": HOOK, "body": 1, "not_before": "tomorrow"}, "body.not_before"),
        ({"url": HOOK, "body": 1, "not_before": "2030-01-01T00:00:00"}, "body.not_before"),
    ],
)
async def test_invalid_messages_are_422(
    api: RunningApp, message: dict[str, object], location: str | None
) -> None:
    """Each malformed option is 422 with its location, and no message is written."""
    response = await api.client.post("/v1/messages", json=message)
    problem = assert_problem(response, 422, "validation_failed")
    if location is not None:
        assert problem["errors"][0]["location"] == location
    assert (
        await api.store.claim_due_messages(now=time.time() + 3600, limit=10, lease_margin=1) == []
    )


LATER = (datetime.now(UTC) + timedelta(days=1)).isoformat()


@pytest.mark.parametrize(
    ("path", "schema", "body", "location"),
    [
        ("", "PublishMessageRequest", {"url": HOOK, "body": 1}, None),
        ("", "PublishMessageRequest", {"url_group": "partners", "body": None}, None),
        ("", "PublishMessageRequest", {"url": HOOK, "body": 1, "delay": 1}, None),
        ("", "PublishMessageRequest", {"url": HOOK, "body": 1, "not_before": LATER}, None),
        ("", "PublishMessageRequest", {"body": None}, "body.url"),
        (
            "",
            "PublishMessageRequest",
            {"url": HOOK, "url_group": "partners", "body": 1},
            "body.url_group",
        ),
        (
            "",
            "PublishMessageRequest",
            {"url": HOOK, "body": 1, "delay": 1, "not_before": LATER},
            "body.not_before",
        ),
        (
            "/batch",
            "PublishMessagesRequest",
            {"messages": [{"url_group": "partners", "body": 1}]},
            None,
        ),
        (
            "/batch",
            "PublishMessagesRequest",
            {"messages": [{"url": HOOK, "body": 1}, {"body": None}]},
            "body.messages.1.url",
        ),
        (
            "/batch",
            "PublishMessagesRequest",
            {"messages": [{"url": HOOK, "url_group": "partners", "body": 1}]},
            "body.messages.0.url_group",
        ),
        (
            "/batch",
            "PublishMessagesRequest",
            {"messages": [{"url": HOOK, "body": 1, "delay": 0, "not_before": LATER}]},
            "body.messages.0.not_before",
        ),
    ],
)
async def test_the_schema_states_which_destination_and_schedule_fields_go_together(
    api: RunningApp, path: str, schema: str, body: dict[str, object], location: str | None
) -> None:
    """A message names exactly one of ``url`` and ``url_group`` and at most one of ``delay`` and
    ``not_before``: a body openapi.yaml allows is accepted, and one it refuses is 422 at
    ``location`` and publishes nothing.
    """
    await api.client.put("/v1/url-groups/partners", json={"endpoints": [{"url": HOOK}]})
    assert schema_allows(schema, body) is (location is None)
    response = await api.client.post(f"/v1/messages{path}", json=body)
    if location is None:
        assert response.status_code == 202, response.text
        return
    problem = assert_problem(response, 422, "validation_failed")
    assert [error["location"] for error in problem["errors"]] == [location]
    assert (
        await api.store.claim_due_messages(now=time.time() + 3600, limit=10, lease_margin=1) == []
    )


async def test_a_bad_retry_delay_is_refused_at_publish(api: RunningApp) -> None:
    """An invalid retry_delay expression is 400 invalid_retry_delay, never a delivery surprise."""
    for expression in ("import os", "retried +", "-1000", "1 / 0"):
        response = await api.client.post(
            "/v1/messages", json={"url": HOOK, "body": 1, "retry_delay": expression}
        )
        problem = assert_problem(response, 400, "invalid_retry_delay")
        assert "body.retry_delay" in problem["detail"]


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]:8080/",
        "http://10.1.2.3/",
    ],
)
async def test_internal_destinations_are_refused(api: RunningApp, url: str) -> None:
    """Destinations inside the deployment's network are 403 destination_not_allowed."""
    response = await api.client.post("/v1/messages", json={"url": url, "body": 1})
    assert_problem(response, 403, "destination_not_allowed")


async def test_callbacks_are_checked_like_destinations(api: RunningApp) -> None:
    """A callback into the deployment's network is refused too."""
    response = await api.client.post(
        "/v1/messages",
        json={"url": HOOK, "body": 1, "failure_callback": "http://127.0.0.1:9/failed"},
    )
    assert_problem(response, 403, "destination_not_allowed")


async def test_url_groups_fan_out_one_message_per_endpoint(api: RunningApp) -> None:
    """Publishing to a URL group answers one receipt per endpoint, each message in the group."""
    endpoints = [{"url": "https://one.example.com/hook", "name": "one"}, {"url": HOOK}]
    put = await api.client.put("/v1/url-groups/partners", json={"endpoints": endpoints})
    assert put.status_code == 200
    group = UrlGroup.model_validate(put.json())
    assert [endpoint.url for endpoint in group.endpoints] == [item["url"] for item in endpoints]
    assert put.json()["endpoints"] == endpoints

    response = await api.client.post("/v1/messages", json={"url_group": "partners", "body": 1})
    receipts = response.json()["messages"]
    assert [receipt["url"] for receipt in receipts] == [item["url"] for item in endpoints]
    assert len({receipt["message_id"] for receipt in receipts}) == 2
    stored = await api.client.get(f"/v1/messages/{receipts[0]['message_id']}")
    assert stored.json()["url_group"] == "partners"


async def test_publishing_to_a_missing_url_group_is_404(api: RunningApp) -> None:
    """A URL group that does not exist is 404 url_group_not_found."""
    response = await api.client.post("/v1/messages", json={"url_group": "nobody", "body": 1})
    assert_problem(response, 404, "url_group_not_found")


async def test_url_group_life_cycle(api: RunningApp) -> None:
    """putUrlGroup replaces endpoints, list and get show them, delete removes the group."""
    await api.client.put("/v1/url-groups/b", json={"endpoints": [{"url": HOOK}]})
    first = (await api.client.get("/v1/url-groups/b")).json()
    replaced = await api.client.put(
        "/v1/url-groups/b", json={"endpoints": [{"url": "https://two.example.com/"}]}
    )
    assert replaced.json()["endpoints"] == [{"url": "https://two.example.com/"}]
    assert replaced.json()["created_at"] == first["created_at"]
    await api.client.put("/v1/url-groups/a", json={"endpoints": [{"url": HOOK}]})
    listed = UrlGroupList.model_validate((await api.client.get("/v1/url-groups")).json())
    assert [group.name for group in listed.url_groups] == ["a", "b"]
    assert (await api.client.delete("/v1/url-groups/b")).status_code == 204
    assert_problem(await api.client.get("/v1/url-groups/b"), 404, "url_group_not_found")
    assert_problem(await api.client.delete("/v1/url-groups/b"), 404, "url_group_not_found")


# URLs the service takes and URLs it refuses with 422 at the field, the same for every URL field.
TAKEN_URLS = [
    "https://example.com",
    "http://example.com:8080/hooks?a=1&b=%20#top",
    "https://sub.example.com:/~user/a|b{c}",
    "https://[2606:4700:4700::1111]:443/hook",
]
REFUSED_URLS = [
    "http://",
    "https://:443/hook",
    "https://example.com:65536/",
    "https://[::1/",
    "https://[::zz]/",
    "https://example.com/a b",
    "https://example.com/caf\u00e9",
    "https://b\u00fccher.example.com/",
    "ftp://example.com/",
    "https://user:pw@example.com/",
]


@pytest.mark.parametrize("field", ["url", "callback", "failure_callback", "endpoints.0.url"])
async def test_the_url_pattern_is_the_services_url_rule(api: RunningApp, field: str) -> None:
    """Every URL field takes what openapi.yaml's pattern allows, and refuses the rest with 422 at
    the field.
    """

    async def send(url: str) -> httpx.Response:
        if field == "endpoints.0.url":
            document: dict[str, object] = {"endpoints": [{"url": url}]}
            assert schema_allows("UrlGroupSettings", document) is (url not in REFUSED_URLS)
            return await api.client.put("/v1/url-groups/partners", json=document)
        document = {"url": HOOK, "body": 1, field: url}
        assert schema_allows("PublishMessageRequest", document) is (url not in REFUSED_URLS)
        return await api.client.post("/v1/messages", json=document)

    for url in TAKEN_URLS:
        response = await send(url)
        assert response.status_code in (200, 202), (url, response.text)
    for url in REFUSED_URLS:
        problem = assert_problem(await send(url), 422, "validation_failed")
        assert [error["location"] for error in problem["errors"]] == [f"body.{field}"], url


async def test_url_group_endpoints_are_checked(api: RunningApp) -> None:
    """Endpoints must be valid public URLs; an empty group is 422."""
    internal = await api.client.put(
        "/v1/url-groups/g", json={"endpoints": [{"url": "http://127.0.0.1/"}]}
    )
    assert_problem(internal, 403, "destination_not_allowed")
    empty = await api.client.put("/v1/url-groups/g", json={"endpoints": []})
    assert_problem(empty, 422, "validation_failed")
    assert_problem(await api.client.get("/v1/url-groups/g"), 404, "url_group_not_found")


async def test_deduplication_by_id_and_by_content(api: RunningApp) -> None:
    """A repeated deduplication_id, or the same content with content-based dedup, is deduplicated."""
    by_id = [
        (
            await api.client.post(
                "/v1/messages", json={"url": HOOK, "body": body, "deduplication_id": "d-1"}
            )
        ).json()["messages"][0]
        for body in ("first", "second")
    ]
    assert by_id[1]["message_id"] == by_id[0]["message_id"]
    assert [receipt["deduplicated"] for receipt in by_id] == [False, True]

    message = {"url": HOOK, "body": {"a": 1}, "content_based_deduplication": True}
    first = (await api.client.post("/v1/messages", json=message)).json()["messages"][0]
    same = (await api.client.post("/v1/messages", json=message)).json()["messages"][0]
    other = (await api.client.post("/v1/messages", json={**message, "body": {"a": 2}})).json()
    assert (same["message_id"], same["deduplicated"]) == (first["message_id"], True)
    assert other["messages"][0]["deduplicated"] is False


async def test_deduplication_ids_are_per_destination(api: RunningApp) -> None:
    """The same deduplication_id to two URLs makes two messages."""
    one = await _publish(api, deduplication_id="same")
    two = (
        await api.client.post(
            "/v1/messages",
            json={"url": "https://two.example.com/", "body": "x", "deduplication_id": "same"},
        )
    ).json()["messages"][0]
    assert two["message_id"] != one
    assert two["deduplicated"] is False


async def test_publish_messages_answers_per_item_and_is_all_or_nothing(api: RunningApp) -> None:
    """publishMessages answers one result per item; one bad item writes no message at all."""
    await api.client.put(
        "/v1/url-groups/partners",
        json={"endpoints": [{"url": "https://one.example.com/"}, {"url": HOOK}]},
    )
    good = await api.client.post(
        "/v1/messages/batch",
        json={"messages": [{"url": HOOK, "body": "a"}, {"url_group": "partners", "body": {}}]},
    )
    assert good.status_code == 202
    results = MessageBatchResult.model_validate(good.json()).results
    assert [len(result.messages) for result in results] == [1, 2]

    bad = await api.client.post(
        "/v1/messages/batch",
        json={"messages": [{"url": HOOK, "body": "a"}, {"url": HOOK, "body": 1, "retries": -1}]},
    )
    problem = assert_problem(bad, 422, "validation_failed")
    assert problem["errors"][0]["location"] == "body.messages.1.retries"
    missing_group = await api.client.post(
        "/v1/messages/batch",
        json={"messages": [{"url": HOOK, "body": "a"}, {"url_group": "nobody", "body": 1}]},
    )
    assert_problem(missing_group, 404, "url_group_not_found")
    due = await api.store.claim_due_messages(now=time.time() + 1, limit=100, lease_margin=1)
    assert len(due) == 3


async def test_a_batch_item_takes_every_option_a_single_message_does(api: RunningApp) -> None:
    """Each item of publishMessages is published, scheduled and deduplicated by its own options."""
    await api.client.put(
        "/v1/url-groups/partners", json={"endpoints": [{"url": "https://one.example.com/"}]}
    )
    later = datetime.now(UTC) + timedelta(hours=1)
    to_url = {
        "url": HOOK,
        "body": "héllo",
        "content_type": "text/x-greeting",
        "method": "PUT",
        "headers": {"X-Tenant": "acme"},
        "not_before": later.isoformat(),
        "retries": 5,
        "retry_delay": "1000 * retried",
        "callback": "https://example.com/done",
        "failure_callback": "https://example.com/failed",
        "callback_headers": {"Authorization": "Bearer ok"},
        "failure_callback_headers": {"Authorization": "Bearer ko"},
        "timeout": 10,
        "deduplication_id": "d-1",
        "redact": {"body": True, "headers": ["x-tenant"]},
    }
    to_group = {
        "url_group": "partners",
        "body": {"n": 1},
        "delay": 60,
        "content_based_deduplication": True,
    }
    batch = {"messages": [to_url, to_group]}
    first = await api.client.post("/v1/messages/batch", json=batch)
    [[by_url], [by_group]] = [result["messages"] for result in first.json()["results"]]

    shown = Message.model_validate(
        (await api.client.get(f"/v1/messages/{by_url['message_id']}")).json()
    )
    assert (shown.url, shown.method.root, shown.headers) == (
        HOOK,
        "PUT",
        {"X-Tenant": "[redacted]"},
    )
    assert abs((shown.not_before - later).total_seconds()) < 1
    assert (shown.retries, shown.retry_delay, shown.timeout) == (5, "1000 * retried", 10)
    assert (shown.callback, shown.failure_callback, shown.deduplication_id) == (
        "https://example.com/done",
        "https://example.com/failed",
        "d-1",
    )
    stored = await api.store.get_message(by_url["message_id"])
    assert (stored.headers, stored.redact_body) == ({"X-Tenant": "acme"}, True)
    assert stored.callback_headers == {"Authorization": "Bearer ok"}
    assert stored.failure_callback_headers == {"Authorization": "Bearer ko"}
    stored = await api.store.get_message(by_url["message_id"])
    assert (stored.body, stored.content_type) == ("héllo".encode(), "text/x-greeting")

    grouped = Message.model_validate(
        (await api.client.get(f"/v1/messages/{by_group['message_id']}")).json()
    )
    assert (grouped.url, grouped.url_group) == ("https://one.example.com/", "partners")
    assert grouped.not_before - grouped.created_at >= timedelta(seconds=59)
    assert (await api.store.get_message(by_group["message_id"])).body == b'{"n":1}'

    again = await api.client.post("/v1/messages/batch", json=batch)
    assert [
        (result["messages"][0]["message_id"], result["messages"][0]["deduplicated"])
        for result in again.json()["results"]
    ] == [(by_url["message_id"], True), (by_group["message_id"], True)]


async def test_cancel_a_scheduled_message(api: RunningApp) -> None:
    """cancelMessage cancels a scheduled message, which stays readable as cancelled; cancelling
    it again is 409 invalid_state.
    """
    message_id = await _publish(api, delay=3600)
    cancelled = await api.client.post(f"/v1/messages/{message_id}/cancel")
    assert cancelled.status_code == 200
    assert cancelled.json()["state"] == "cancelled"
    shown = await api.client.get(f"/v1/messages/{message_id}")
    assert shown.status_code == 200
    assert shown.json()["state"] == "cancelled"
    again = await api.client.post(f"/v1/messages/{message_id}/cancel")
    assert_problem(again, 409, "invalid_state")


async def test_delete_on_a_message_is_405_and_cancels_nothing(api: RunningApp) -> None:
    """Cancelling is POST .../cancel; DELETE on a message is a method its path does not serve."""
    message_id = await _publish(api, delay=3600)
    response = await api.client.delete(f"/v1/messages/{message_id}")
    problem = assert_problem(response, 405, "method_not_allowed")
    assert "DELETE" in problem["detail"]
    assert {method.strip() for method in response.headers["allow"].split(",")} == {"GET", "HEAD"}
    assert (await api.client.get(f"/v1/messages/{message_id}")).json()["state"] == "scheduled"


async def test_unknown_and_malformed_message_ids(api: RunningApp) -> None:
    """A well-formed unknown id is 404 message_not_found; a malformed one is 400 invalid_name."""
    missing = "msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"
    assert_problem(await api.client.get(f"/v1/messages/{missing}"), 404, "message_not_found")
    cancel_missing = await api.client.post(f"/v1/messages/{missing}/cancel")
    assert_problem(cancel_missing, 404, "message_not_found")
    assert_problem(await api.client.get("/v1/messages/job_123"), 400, "invalid_name")


async def test_dead_letters_list_delete_and_retry(api: RunningApp) -> None:
    """A failed message is a dead letter until retried (202) or deleted (204)."""
    first = await _dead_letter(api)
    listed = DeadLetterList.model_validate((await api.client.get("/v1/dead-letters")).json())
    assert [(dead.message_id, dead.last_status_code) for dead in listed.dead_letters] == [
        (first, 503)
    ]
    retried = await api.client.post(f"/v1/dead-letters/{first}/retry")
    assert retried.status_code == 202
    assert retried.json() == {"message_id": first, "url": HOOK, "deduplicated": False}
    assert (await api.client.get(f"/v1/messages/{first}")).json()["state"] == "scheduled"

    second = await _dead_letter(api)
    assert (await api.client.delete(f"/v1/dead-letters/{second}")).status_code == 204
    assert (await api.client.get("/v1/dead-letters")).json() == {"dead_letters": []}
    assert (await api.client.get(f"/v1/messages/{second}")).json()["state"] == "failed"


async def test_list_dead_letters_stops_at_limit(api: RunningApp) -> None:
    """listDeadLetters answers at most ``limit`` dead letters."""
    for _ in range(2):
        await _dead_letter(api)
    assert len((await api.client.get("/v1/dead-letters")).json()["dead_letters"]) == 2
    limited = await api.client.get("/v1/dead-letters", params={"limit": 1})
    assert len(limited.json()["dead_letters"]) == 1


async def test_missing_dead_letters_are_404(api: RunningApp) -> None:
    """Deleting or retrying a message that is not a dead letter is 404 dead_letter_not_found."""
    scheduled = await _publish(api)
    missing = "msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"
    for message_id in (scheduled, missing):
        assert_problem(
            await api.client.delete(f"/v1/dead-letters/{message_id}"), 404, "dead_letter_not_found"
        )
        assert_problem(
            await api.client.post(f"/v1/dead-letters/{message_id}/retry"),
            404,
            "dead_letter_not_found",
        )


async def test_dead_letter_limit_is_validated(api: RunningApp) -> None:
    """listDeadLetters' limit must be 1..1000."""
    response = await api.client.get("/v1/dead-letters", params={"limit": "1001"})
    assert_problem(response, 422, "validation_failed")


async def test_signing_keys(api: RunningApp) -> None:
    """getSigningKeys answers the current and next keys of the settings, and each as the
    Standard Webhooks secret that signs with the same bytes.
    """
    keys = SigningKeys.model_validate((await api.client.get("/v1/signing-keys")).json())
    settings_keys = api.app.state.settings.signing_keys
    assert (keys.current, keys.next) == (settings_keys.current, settings_keys.next)
    for secret, key in (
        (keys.standard_webhooks.current, keys.current),
        (keys.standard_webhooks.next, keys.next),
    ):
        assert secret.startswith("whsec_")
        assert base64.b64decode(secret.removeprefix("whsec_")) == key.encode()


async def test_signature_scheme_reaches_the_delivery_of_each_message(api: RunningApp) -> None:
    """signature_scheme on a publish, on each batch item and on a schedule's message is kept
    with the message the delivery engine claims, and shown by getMessage (spool when not given).
    """
    single = await _publish(api, signature_scheme="standard_webhooks")
    batch = await api.client.post(
        "/v1/messages/batch",
        json={
            "messages": [
                {"url": HOOK, "body": "1", "signature_scheme": "standard_webhooks"},
                {"url": HOOK, "body": "2", "signature_scheme": "spool"},
                {"url": HOOK, "body": "3"},
            ]
        },
    )
    assert batch.status_code == 202, batch.text
    ids = [item["messages"][0]["message_id"] for item in batch.json()["results"]]
    destination = {
        "kind": "message",
        "message": {"url": HOOK, "body": "tick", "signature_scheme": "standard_webhooks"},
    }
    put = await api.client.put(
        "/v1/schedules/signed", json={"cron": "* * * * *", "destination": destination}
    )
    assert put.status_code == 201, put.text
    tick = datetime.fromisoformat(put.json()["next_run_at"]).timestamp()
    api.store.clock = lambda: tick + 0.002
    assert await Scheduler(api.app.state.context, clock=lambda: tick + 0.002).run_due() == 1
    [run] = (await api.client.get("/v1/schedules/signed")).json()["recent_runs"]
    expected = {
        single: "standard_webhooks",
        ids[0]: "standard_webhooks",
        ids[1]: "spool",
        ids[2]: "spool",
        run["ids"][0]: "standard_webhooks",
    }
    for message_id, scheme in expected.items():
        shown = (await api.client.get(f"/v1/messages/{message_id}")).json()
        assert shown["signature_scheme"] == scheme, message_id
    claimed = await api.store.claim_due_messages(now=tick + 1, limit=100, lease_margin=60)
    schemes = {message.message_id: message.signature_scheme for message in claimed}
    assert {message_id: schemes[message_id] for message_id in expected} == expected
    refused = await api.client.post(
        "/v1/messages", json={"url": HOOK, "body": "x", "signature_scheme": "jwt"}
    )
    assert_problem(refused, 422, "validation_failed")


async def test_accepted_messages_wake_this_process_delivery_at_once(api: RunningApp) -> None:
    """Each accepted publish (single or batch) tells the process's listeners; a refused one does not."""
    woken: list[str] = []
    api.app.state.context.message_scheduled.append(lambda: woken.append("scheduled"))
    single = await api.client.post(
        "/v1/messages", json={"url": "https://example.com/hook", "body": "hi"}
    )
    assert single.status_code == 202, single.text
    batch = await api.client.post(
        "/v1/messages/batch",
        json={
            "messages": [
                {"url": "https://example.com/a", "body": 1},
                {"url": "https://example.com/b", "body": 2},
            ]
        },
    )
    assert batch.status_code == 202, batch.text
    refused = await api.client.post("/v1/messages", json={"body": "no destination"})
    assert refused.status_code == 422
    assert woken == ["scheduled", "scheduled"]
