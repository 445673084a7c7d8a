"""What message calls send (sdk/_message_calls.py): bodies, batches, the target a refusal names."""

from __future__ import annotations

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import RECEIPT, problem, resolve, sent_json


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
                sdk.MessageRequest(
                    {"event": "signup"},
                    url_group="partners",
                    delay="1m",
                    callback_headers={"X-A": "a"},
                    failure_callback_headers={"X-B": "b"},
                    redact={"headers": ["X-A"]},
                ),
            ]
        )
    )
    assert [[r.message_id for r in item] for item in results] == [["msg_1"], ["msg_2", "msg_3"]]
    assert sent_json(route.calls.last) == {
        "messages": [
            {"url": "https://a.test/x", "body": "first", "content_type": "text/plain"},
            {
                "url_group": "partners",
                "body": {"event": "signup"},
                "delay": 60,
                "callback_headers": {"X-A": "a"},
                "failure_callback_headers": {"X-B": "b"},
                "redact": {"body": False, "headers": ["X-A"]},
            },
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
