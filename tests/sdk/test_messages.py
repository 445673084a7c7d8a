"""HTTP messages (sdk/_messages.py): publish, inspect, cancel, signing keys."""

from __future__ import annotations

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import MESSAGE, RECEIPT, resolve, sent_json


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


async def test_callback_headers_are_sent_and_read_back(
    client: sdk.Client | sdk.AsyncClient, publish: respx.Route, api: respx.MockRouter
) -> None:
    """`callback_headers=` and `failure_callback_headers=` go in the request as given and come
    back on the Message; a value that is not a str is refused before any request.
    """
    await resolve(
        client.messages.publish(
            url="https://my-api.test/hook",
            body="hi",
            callback="https://my-api.test/ok",
            callback_headers={"Authorization": "Bearer ok"},
            failure_callback="https://my-api.test/failed",
            failure_callback_headers={"Authorization": "Bearer ko"},
        )
    )
    sent = sent_json(publish.calls.last)
    assert sent["callback_headers"] == {"Authorization": "Bearer ok"}
    assert sent["failure_callback_headers"] == {"Authorization": "Bearer ko"}
    shown = {
        **MESSAGE,
        "callback_headers": {"Authorization": "Bearer ok"},
        "failure_callback_headers": {"Authorization": "Bearer ko"},
    }
    api.get("/v1/messages/msg_1").mock(return_value=httpx.Response(200, json=shown))
    message = await resolve(client.messages.get("msg_1"))
    assert message.callback_headers == {"Authorization": "Bearer ok"}
    assert message.failure_callback_headers == {"Authorization": "Bearer ko"}
    calls = len(publish.calls)
    with pytest.raises(sdk.InvalidArgumentError, match="failure_callback_headers"):
        await resolve(
            client.messages.publish(
                url="https://my-api.test/hook",
                body="hi",
                failure_callback_headers={"X-N": 1},  # type: ignore[dict-item]
            )
        )
    assert len(publish.calls) == calls


async def test_redact_is_sent_as_a_redact_or_a_dict_and_read_back(
    client: sdk.Client | sdk.AsyncClient, publish: respx.Route, api: respx.MockRouter
) -> None:
    """`redact=` takes a `sdk.Redact` or a plain dict of its fields; the Message reads it back
    as a Redact. A misspelled field or a lone header name is refused before any request.
    """
    for redact in (
        sdk.Redact(body=True, headers=("Authorization",)),
        {"body": True, "headers": ["Authorization"]},
    ):
        await resolve(
            client.messages.publish(url="https://my-api.test/hook", body="hi", redact=redact)
        )
        assert sent_json(publish.calls.last)["redact"] == {
            "body": True,
            "headers": ["Authorization"],
        }
    shown = {
        **MESSAGE,
        "headers": {"Authorization": "[redacted]"},
        "redact": {"body": False, "headers": ["authorization"]},
    }
    api.get("/v1/messages/msg_1").mock(return_value=httpx.Response(200, json=shown))
    message = await resolve(client.messages.get("msg_1"))
    assert message.redact == sdk.Redact(headers=("authorization",))
    assert message.headers == {"Authorization": "[redacted]"}
    calls = len(publish.calls)
    for bad, complaint in (
        ({"header": ["Authorization"]}, "'header'"),
        ({"headers": "Authorization"}, "list of names"),
        (sdk.Redact(body="yes"), "bool"),  # type: ignore[arg-type]
        (["Authorization"], "Redact or a dict"),
    ):
        with pytest.raises(sdk.InvalidArgumentError, match=complaint):
            await resolve(
                client.messages.publish(
                    url="https://my-api.test/hook",
                    body="hi",
                    redact=bad,  # type: ignore[arg-type]
                )
            )
    assert len(publish.calls) == calls


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
    secrets = {"current": "whsec_c2lnX2N1cl8xMjM=", "next": "whsec_c2lnX25leHRfNDU2"}
    api.get("/v1/signing-keys").mock(
        return_value=httpx.Response(
            200,
            json={"current": "sig_cur_123", "next": "sig_next_456", "standard_webhooks": secrets},
        )
    )
    keys = await resolve(client.messages.signing_keys())
    assert (keys.current, keys.next) == ("sig_cur_123", "sig_next_456")
    assert (keys.standard_webhooks.current, keys.standard_webhooks.next) == (
        secrets["current"],
        secrets["next"],
    )
    assert "sig_" not in repr(keys) and "whsec_" not in repr(keys)
