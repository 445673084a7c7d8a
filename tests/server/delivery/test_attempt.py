"""One delivery attempt (server/delivery/attempt.py): the request a receiver gets, and how a
timeout, a refused connection, a redirect or a refused destination end the attempt; first through
the engine against receivers on loopback, then a Sender on its own.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from server.delivery import (
    MAX_CAPTURED_RESPONSE_BYTES,
    MESSAGE_ID_HEADER,
    RESPONSE_EXCERPT_CHARS,
    RETRIED_HEADER,
)
from server.delivery.attempt import INTERRUPTED, AttemptResult, Sender, attempt_record
from server.destinations import DestinationPolicy
from server.signing import standard_webhooks_secret
from server.stores.base import MessageRecord
from tests._eventually import eventually
from tests.server.delivery._support import (
    HANG,
    KEYS,
    LOOPBACK,
    RECEIVER,
    EndpointFactory,
    EngineFactory,
    MemoryStore,
    Reply,
    new_message,
    publish,
    settled,
)


async def test_delivers_method_body_headers_and_a_valid_signature(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """One delivery carries the message exactly, signed for its URL, and is recorded."""
    receiver = await endpoint(Reply(200, b"thanks"))
    body = b'{"order": 42, "note": "caf\xc3\xa9"}'
    message_id = await publish(
        store,
        new_message(
            receiver.url("/orders?x=1"),
            body=body,
            method="PUT",
            headers={"X-Tenant": "acme", "Spool-Signature": "forged", "Host": "evil.example"},
        ),
    )
    await engine().start()
    await eventually(settled(store, message_id))

    (request,) = receiver.requests
    assert (request.method, request.path, request.body) == ("PUT", "/orders?x=1", body)
    assert request.headers["content-type"] == "application/json"
    assert request.headers["x-tenant"] == "acme"
    assert request.headers["host"] == f"127.0.0.1:{receiver.port}"
    assert request.headers["spool-message-id"] == message_id
    assert request.headers["spool-retried"] == "0"
    RECEIVER.verify(
        request.headers["spool-signature"], request.body, url=receiver.url("/orders?x=1")
    )

    record = store.messages[message_id]
    assert record.state == "delivered"
    (attempt,) = record.attempts
    assert (attempt.attempt, attempt.status_code, attempt.error) == (1, 200, None)
    assert attempt.response_excerpt == "thanks"
    assert attempt.duration_ms >= 0
    assert store.dead_letters == []


async def test_standard_webhooks_signing_verifies_with_either_key(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A message signed the Standard Webhooks way carries their three headers instead of
    Spool-Signature, and the `standardwebhooks` package accepts it with the secret of either key.
    """
    receiver = await endpoint(Reply(200))
    body = '{"order": 42, "note": "café"}'.encode()
    message_id = await publish(
        store, new_message(receiver.url(), body=body, signature_scheme="standard_webhooks")
    )
    await engine().start()
    await eventually(settled(store, message_id))

    (request,) = receiver.requests
    headers = dict(request.headers)
    assert "spool-signature" not in headers
    assert headers["webhook-id"] == message_id
    assert abs(int(headers["webhook-timestamp"]) - time.time()) < 60
    for key in (KEYS.current, KEYS.next):
        verified = Webhook(standard_webhooks_secret(key)).verify(request.body, headers)
        assert verified == {"order": 42, "note": "café"}
    with pytest.raises(WebhookVerificationError):
        Webhook(standard_webhooks_secret("sig_other")).verify(request.body, headers)


async def test_redirect_is_not_followed(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A 3xx is a failed attempt: following it could reach an address the policy refused."""
    target = await endpoint(Reply(200))
    redirecting = await endpoint(Reply(302, b"", headers=(("Location", target.url()),)))
    message_id = await publish(store, new_message(redirecting.url(), retries=0))
    await engine().start()
    await eventually(settled(store, message_id))

    assert store.messages[message_id].state == "failed"
    assert store.messages[message_id].attempts[0].status_code == 302
    assert target.requests == []


async def test_attempt_hanging_past_the_timeout_fails(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A receiver that never answers fails the attempt at the message's timeout."""
    receiver = await endpoint(HANG, Reply(200))
    message_id = await publish(store, new_message(receiver.url(), timeout=1, retries=1))
    await engine().start()
    await eventually(settled(store, message_id))

    first, second = store.messages[message_id].attempts
    assert first.status_code is None
    assert first.error == "timed out after 1 s"
    assert first.response_excerpt is None
    assert second.status_code == 200
    assert store.messages[message_id].state == "delivered"


async def test_slow_trickle_past_the_timeout_fails(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """The timeout bounds the whole attempt, not just each network read."""
    receiver = await endpoint(Reply(200, delay=3.0))
    message_id = await publish(store, new_message(receiver.url(), timeout=1, retries=0))
    await engine().start()
    await eventually(settled(store, message_id))
    assert store.messages[message_id].attempts[0].error == "timed out after 1 s"


async def test_connection_refused_is_a_failed_attempt(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A network error is recorded with its cause and retried like any failure."""
    receiver = await endpoint(Reply(200))
    url = receiver.url()
    await receiver.close()
    message_id = await publish(store, new_message(url, retries=1))
    await engine().start()
    await eventually(settled(store, message_id))

    attempts = store.messages[message_id].attempts
    assert len(attempts) == 2
    assert all(a.error is not None and "ConnectError" in a.error for a in attempts)
    assert store.messages[message_id].state == "failed"


async def test_response_excerpt_is_capped(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A large response body is recorded as an excerpt of at most 2048 characters."""
    receiver = await endpoint(Reply(200, b"x" * 10_000))
    message_id = await publish(store, new_message(receiver.url()))
    await engine().start()
    await eventually(settled(store, message_id))
    excerpt = store.messages[message_id].attempts[0].response_excerpt
    assert excerpt == "x" * RESPONSE_EXCERPT_CHARS


async def test_destination_refused_at_delivery_time_is_a_failed_attempt(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """The policy is checked again before each attempt; a refusal sends nothing."""
    receiver = await endpoint(Reply(200))
    message_id = await publish(store, new_message(receiver.url(), retries=0))
    await engine(policy=DestinationPolicy()).start()
    await eventually(settled(store, message_id))

    (attempt,) = store.messages[message_id].attempts
    assert attempt.error is not None
    assert attempt.error.startswith("destination not allowed:")
    assert "loopback" in attempt.error
    assert receiver.requests == []
    assert store.dead_letters == [message_id]


async def test_a_receivers_cookie_is_not_sent_on_later_deliveries(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """Each delivery stands alone: a ``Set-Cookie`` answer rides along on no later message, and
    a message's own headers are sent with the engine's defaults beneath them.
    """
    receiver = await endpoint(Reply(200, headers=(("Set-Cookie", "session=abc; Path=/"),)))
    first = await publish(store, new_message(receiver.url("/a")))
    await engine().start()
    await eventually(settled(store, first))
    second = await publish(store, new_message(receiver.url("/b"), headers={"Accept": "text/*"}))
    await eventually(settled(store, second))
    assert [request.headers.get("cookie") for request in receiver.requests] == [None, None]
    assert [request.headers["accept"] for request in receiver.requests] == ["*/*", "text/*"]
    assert {request.headers["user-agent"] for request in receiver.requests} == {
        "Spool-Delivery/0.1"
    }


# One attempt alone: a Sender on a mock transport, with no loop and no network -------------------


def sender(policy: DestinationPolicy = LOOPBACK) -> Sender:
    """A Sender signing with the test keys, checking destinations fully (its transport is mock)."""
    return Sender(signing_keys=KEYS, signature_ttl=60.0, policy=policy, vetting_transport=False)


def claimed_message(**options: Any) -> MessageRecord:
    """A message as a claim hands it to the engine."""
    fields: dict[str, Any] = {
        "message_id": "msg_1",
        "url": "http://127.0.0.1:9/hook",
        "body": b'{"n":1}',
        "content_type": "application/json",
        "method": "POST",
        "headers": {},
        "state": "delivering",
        "retries": 3,
        "timeout": 5,
        "created_at": time.time(),
        "not_before": time.time(),
        "attempts": [],
        "retries_used": 0,
        "lease_id": "lease_1",
    }
    fields.update(options)
    return MessageRecord(**fields)


def answering(response: httpx.Response, seen: list[httpx.Request]) -> httpx.AsyncBaseTransport:
    """A transport that notes each request and answers ``response``."""

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return response

    return httpx.MockTransport(handle)


async def test_a_sent_request_is_signed_and_carries_only_forwardable_headers() -> None:
    """The message's own headers go out unless they frame the connection or forge Spool's."""
    seen: list[httpx.Request] = []
    message = claimed_message(
        headers={"X-Tenant": "acme", "Connection": "close", "Spool-Retried": "9", "Accept": "a/b"}
    )
    result = await sender().send(message, retried=2, transport=answering(httpx.Response(204), seen))

    assert (result.status_code, result.error, result.succeeded) == (204, None, True)
    (request,) = seen
    assert request.headers["x-tenant"] == "acme"
    assert request.headers["accept"] == "a/b"
    assert request.headers["user-agent"] == "Spool-Delivery/0.1"
    assert "connection" not in request.headers
    assert request.headers[RETRIED_HEADER] == "2"
    assert request.headers[MESSAGE_ID_HEADER] == "msg_1"
    RECEIVER.verify(request.headers["spool-signature"], request.content, url=message.url)


async def test_a_large_answer_is_read_up_to_the_cap() -> None:
    """Only the start of the answer is kept, and the result says more was left unread."""
    big = b"x" * (MAX_CAPTURED_RESPONSE_BYTES + 10)
    result = await sender().send(
        claimed_message(), retried=0, transport=answering(httpx.Response(500, content=big), [])
    )
    assert result.body == big[:MAX_CAPTURED_RESPONSE_BYTES]
    assert result.body_truncated
    assert (result.error, result.succeeded) == ("HTTP 500 Internal Server Error", False)


async def test_a_refused_destination_sends_nothing() -> None:
    """The policy refuses before any request is made; the result says why."""
    seen: list[httpx.Request] = []
    result = await sender(DestinationPolicy()).send(
        claimed_message(), retried=0, transport=answering(httpx.Response(200), seen)
    )
    assert seen == []
    assert result.status_code is None
    assert result.error is not None and result.error.startswith("destination not allowed:")


def test_the_attempt_record_numbers_the_attempt_and_keeps_an_excerpt() -> None:
    """The record is the next in the history; only an answer has an excerpt, capped in length."""
    earlier = attempt_record(claimed_message(), INTERRUPTED, started_at=1.0, duration_ms=3)
    assert (earlier.attempt, earlier.status_code, earlier.response_excerpt) == (1, None, None)
    assert earlier.error == "interrupted: the service stopped during this attempt"

    answered = AttemptResult(status_code=200, body=b"y" * (RESPONSE_EXCERPT_CHARS + 1))
    record = attempt_record(
        claimed_message(attempts=[earlier]), answered, started_at=2.0, duration_ms=4
    )
    assert (record.attempt, record.started_at, record.duration_ms) == (2, 2.0, 4)
    assert record.response_excerpt == "y" * RESPONSE_EXCERPT_CHARS
