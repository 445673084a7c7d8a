"""HTTP messages (sdk/_messages.py): publish, inspect, cancel, signing keys."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import problem, resolve, sent_json

RECEIPT = {"message_id": "msg_1", "url": "https://my-api.test/hook", "deduplicated": False}
MESSAGE = {
    "message_id": "msg_1",
    "url": "https://my-api.test/hook",
    "method": "POST",
    "content_type": "application/json",
    "headers": {"X-Tenant": "acme"},
    "state": "delivered",
    "retries": 3,
    "timeout": 30,
    "created_at": "2026-11-29T12:00:00Z",
    "not_before": "2026-11-29T12:00:03Z",
    "attempts": [
        {
            "attempt": 1,
            "started_at": "2026-11-29T12:00:03Z",
            "duration_ms": 41,
            "status_code": 200,
            "response_excerpt": "ok",
        }
    ],
}


@pytest.fixture
def publish(api: respx.MockRouter) -> respx.Route:
    """publishMessage answering with one receipt."""
    return api.post("/v1/messages").mock(
        return_value=httpx.Response(202, json={"messages": [RECEIPT]})
    )


async def test_publish_json_to_a_url_with_every_option(
    client: sdk.Client | sdk.AsyncClient, publish: respx.Route
) -> None:
    """The QStash-style call: durations become seconds, the result is one receipt."""
    res = await resolve(
        client.messages.publish_json(
            url="https://my-api.test/hook",
            body={"hello": "world"},
            headers={"test-header": "test-value"},
            delay="3s",
            retries=3,
            retry_delay="1000 * pow(2, retried)",
            callback="https://my-api.test/ok",
            failure_callback="https://my-api.test/failed",
            method="PUT",
            timeout="30s",
            deduplication_id=None,
            content_based_deduplication=True,
        )
    )
    assert res == sdk.MessageReceipt(
        message_id="msg_1", url="https://my-api.test/hook", deduplicated=False
    )
    assert sent_json(publish.calls.last) == {
        "url": "https://my-api.test/hook",
        "body": {"hello": "world"},
        "headers": {"test-header": "test-value"},
        "delay": 3,
        "retries": 3,
        "retry_delay": "1000 * pow(2, retried)",
        "callback": "https://my-api.test/ok",
        "failure_callback": "https://my-api.test/failed",
        "method": "PUT",
        "timeout": 30,
        "content_based_deduplication": True,
    }
    assert publish.calls.last.request.headers["Idempotency-Key"]


async def test_publish_json_sends_only_what_is_given(
    client: sdk.Client | sdk.AsyncClient, publish: respx.Route
) -> None:
    """No option means the service's defaults apply."""
    await resolve(client.messages.publish_json(url="https://my-api.test/hook", body=[1, 2]))
    assert sent_json(publish.calls.last) == {"url": "https://my-api.test/hook", "body": [1, 2]}


async def test_a_json_string_body_is_sent_encoded(
    client: sdk.Client | sdk.AsyncClient, publish: respx.Route
) -> None:
    """The API delivers strings raw, so publish_json sends a JSON string pre-encoded."""
    await resolve(client.messages.publish_json(url="https://my-api.test/hook", body="hi"))
    assert sent_json(publish.calls.last) == {
        "url": "https://my-api.test/hook",
        "body": '"hi"',
        "content_type": "application/json",
    }


async def test_publish_to_a_url_group_returns_one_receipt_per_url(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A URL group fans out: a list of receipts."""
    route = api.post("/v1/messages").mock(
        return_value=httpx.Response(
            202,
            json={
                "messages": [
                    {**RECEIPT, "url": "https://one.test/hook"},
                    {**RECEIPT, "message_id": "msg_2", "url": "https://two.test/h"},
                ]
            },
        )
    )
    results = await resolve(client.messages.publish_json(url_group="partners", body={"x": 1}))
    assert [r.message_id for r in results] == ["msg_1", "msg_2"]
    assert sent_json(route.calls.last) == {"url_group": "partners", "body": {"x": 1}}


async def test_publish_text_as_is(
    client: sdk.Client | sdk.AsyncClient, publish: respx.Route
) -> None:
    """publish sends a str (or UTF-8 bytes) body raw with its content type."""
    await resolve(
        client.messages.publish(
            url="https://my-api.test/hook",
            body="<html><body><h1>Hello World</h1></body></html>",
            content_type="text/html",
        )
    )
    assert sent_json(publish.calls.last) == {
        "url": "https://my-api.test/hook",
        "body": "<html><body><h1>Hello World</h1></body></html>",
        "content_type": "text/html",
    }
    await resolve(client.messages.publish(url="https://my-api.test/hook", body="héllo".encode()))
    assert sent_json(publish.calls.last)["body"] == "héllo"


async def test_publish_refuses_non_text_and_non_utf8(
    client: sdk.Client | sdk.AsyncClient, publish: respx.Route
) -> None:
    """A dict belongs to publish_json; bytes that are not UTF-8 cannot be sent."""
    with pytest.raises(sdk.InvalidArgumentError, match="publish_json"):
        # The types already refuse a dict body; this is the refusal at run time.
        await resolve(
            client.messages.publish(url="https://my-api.test/hook", body={"a": 1})  # type: ignore[call-overload]
        )
    with pytest.raises(sdk.PublishError) as raised:
        await resolve(client.messages.publish(url="https://my-api.test/hook", body=b"\xff"))
    assert isinstance(raised.value.__cause__, UnicodeDecodeError)
    assert publish.call_count == 0


async def test_not_before_and_a_timedelta_retry_delay(
    client: sdk.Client | sdk.AsyncClient, publish: respx.Route
) -> None:
    """not_before is sent as an RFC 3339 time; a duration retry_delay is fixed milliseconds."""
    await resolve(
        client.messages.publish_json(
            url="https://my-api.test/hook",
            body={},
            not_before=datetime(2026, 11, 29, 13, tzinfo=UTC),
            retry_delay=timedelta(seconds=2),
        )
    )
    sent = sent_json(publish.calls.last)
    assert datetime.fromisoformat(sent["not_before"]) == datetime(2026, 11, 29, 13, tzinfo=UTC)
    assert sent["retry_delay"] == "2000"
    await resolve(
        client.messages.publish_json(url="https://my-api.test/hook", body={}, retry_delay="5s")
    )
    assert sent_json(publish.calls.last)["retry_delay"] == "5000"


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"url": "https://a.test", "url_group": "partners"},
        {"url": "ftp://a.test"},
        {"url": "https://"},
        {"url": "https://a.test/\n"},
        {"url_group": "bad name"},
        {"url": "https://a.test", "delay": 1, "not_before": 0},
        {"url": "https://a.test", "delay": "8d"},
        {"url": "https://a.test", "timeout": 0},
        {"url": "https://a.test", "timeout": "16m"},
        {"url": "https://a.test", "retries": 21},
        {"url": "https://a.test", "method": "TRACE"},
        {"url": "https://a.test", "headers": {"X": 1}},
        {"url": "https://a.test", "callback": "not-a-url"},
        {"url": "https://a.test", "not_before": datetime(2026, 11, 29)},
        {"url": "https://a.test", "idempotency_key": "has space"},
    ],
)
async def test_bad_options_raise_before_any_request(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, options: dict[str, Any]
) -> None:
    """Destinations, durations, retries, methods and headers are checked client-side."""
    with pytest.raises(sdk.InvalidArgumentError):
        await resolve(client.messages.publish_json(body={}, **options))
    assert api.calls.call_count == 0


async def test_a_refused_message_is_a_publish_error_naming_the_destination(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """The target is the URL without its query; the cause is typed. A URL with user info, which
    the API refuses, is refused before sending, its password left out of the message.
    """
    api.post("/v1/messages").mock(return_value=problem(403, "destination_not_allowed"))
    with pytest.raises(sdk.PublishError) as raised:
        await resolve(
            client.messages.publish_json(url="https://my-api.test/hook?sig=s3cret", body={})
        )
    assert str(raised.value).startswith("could not publish to https://my-api.test/hook: 403")
    assert "s3cret" not in str(raised.value)
    with pytest.raises(sdk.InvalidArgumentError, match="no user info") as refused:
        await resolve(client.messages.publish_json(url="https://user:pw@my-api.test/", body={}))
    assert "pw" not in str(refused.value)
    assert api.calls.call_count == 1
    assert isinstance(raised.value.__cause__, sdk.PermissionDeniedError)
    api.post("/v1/messages").mock(return_value=problem(404, "url_group_not_found"))
    with pytest.raises(sdk.PublishError, match="could not publish to URL group partners"):
        await resolve(client.messages.publish_json(url_group="partners", body={}))


async def test_batch_returns_receipts_per_item(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """One request for every message; str bodies raw, others JSON; results in order."""
    route = api.post("/v1/messages/batch").mock(
        return_value=httpx.Response(
            202,
            json={
                "results": [
                    {"messages": [RECEIPT]},
                    {
                        "messages": [
                            {**RECEIPT, "message_id": "msg_2"},
                            {**RECEIPT, "message_id": "msg_3"},
                        ]
                    },
                ]
            },
        )
    )
    results = await resolve(
        client.messages.batch(
            [
                sdk.MessageRequest("first", url="https://a.test/x", content_type="text/plain"),
                sdk.MessageRequest({"event": "signup"}, url_group="partners", delay="1m"),
            ]
        )
    )
    assert [[r.message_id for r in item] for item in results] == [["msg_1"], ["msg_2", "msg_3"]]
    assert sent_json(route.calls.last) == {
        "messages": [
            {"url": "https://a.test/x", "body": "first", "content_type": "text/plain"},
            {"url_group": "partners", "body": {"event": "signup"}, "delay": 60},
        ]
    }
    assert route.calls.last.request.headers["Idempotency-Key"]


async def test_batch_checks_every_item_first(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """One bad item stops the batch before any request; an empty batch sends nothing."""
    with pytest.raises(sdk.InvalidArgumentError):
        await resolve(
            client.messages.batch(
                [sdk.MessageRequest({}, url="https://a.test"), sdk.MessageRequest({})]
            )
        )
    with pytest.raises(sdk.InvalidArgumentError):
        await resolve(client.messages.batch([{"url": "https://a.test"}]))  # type: ignore[list-item]
    assert await resolve(client.messages.batch([])) == []
    assert api.calls.call_count == 0


async def test_get_and_cancel(client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter) -> None:
    """A message comes back with its attempts; cancelling a delivered one is a ConflictError."""
    api.get("/v1/messages/msg_1").mock(return_value=httpx.Response(200, json=MESSAGE))
    api.post("/v1/messages/msg_1/cancel").mock(return_value=problem(409, "invalid_state"))
    message = await resolve(client.messages.get("msg_1"))
    assert message.state == "delivered"
    assert message.headers == {"X-Tenant": "acme"}
    assert message.timeout == timedelta(seconds=30)
    assert message.callback is None
    assert message.attempts == [
        sdk.DeliveryAttempt(
            attempt=1,
            started_at=datetime(2026, 11, 29, 12, 0, 3, tzinfo=UTC),
            duration=timedelta(milliseconds=41),
            status_code=200,
            response_excerpt="ok",
            error=None,
        )
    ]
    with pytest.raises(sdk.ConflictError):
        await resolve(client.messages.cancel("msg_1"))


async def test_cancel_posts_to_the_cancel_action(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """cancel is POST /v1/messages/{id}/cancel without a body; it returns the cancelled message."""
    cancelled = {**MESSAGE, "state": "cancelled", "attempts": []}
    cancel = api.post("/v1/messages/msg_1/cancel").mock(
        return_value=httpx.Response(200, json=cancelled)
    )
    message = await resolve(client.messages.cancel("msg_1"))
    assert message.state == "cancelled"
    assert cancel.call_count == 1
    assert cancel.calls.last.request.content == b""


async def test_signing_keys_stay_out_of_repr(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """The keys are readable as attributes but never printed."""
    api.get("/v1/signing-keys").mock(
        return_value=httpx.Response(200, json={"current": "sig_cur_123", "next": "sig_next_456"})
    )
    keys = await resolve(client.messages.signing_keys())
    assert (keys.current, keys.next) == ("sig_cur_123", "sig_next_456")
    assert "sig_" not in repr(keys)


async def test_a_url_publish_without_exactly_one_receipt_is_unreadable(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """One URL means one receipt; anything else is a response the SDK cannot trust."""
    api.post("/v1/messages").mock(return_value=httpx.Response(202, json={"messages": []}))
    with pytest.raises(sdk.PublishError) as raised:
        await resolve(client.messages.publish_json(url="https://my-api.test/hook", body={}))
    assert isinstance(raised.value.__cause__, sdk.APIResponseValidationError)


@pytest.mark.parametrize("method", ["publish", "publish_json"])
async def test_a_misspelled_option_is_a_type_error(client: Any, method: str) -> None:
    """An unknown keyword is refused before anything is sent, naming the likely intent."""
    with pytest.raises(
        TypeError, match=r"unexpected keyword argument 'dealy'; did you mean 'delay'"
    ):
        await resolve(
            getattr(client.messages, method)(url="https://example.com/hook", body="x", dealy="1h")
        )


@pytest.mark.parametrize("resource", [sdk.Messages, sdk.AsyncMessages])
def test_help_shows_the_message_options(
    resource: type[sdk.Messages] | type[sdk.AsyncMessages],
) -> None:
    """help() lists every option, which `**options` alone would hide."""
    for method in (resource.publish, resource.publish_json):
        for option in ("delay", "retries", "headers", "content_based_deduplication"):
            assert f"`{option}`" in (method.__doc__ or "")
