"""Message delivery end to end: what real receivers on loopback get from the running service.

test_messages.py covers publishing and a first delivery; these tests pin the delivery engine's
behaviour as a receiver sees it: dead letters, timeouts, backoff, content deduplication, cancelled
schedules, callbacks, forwarded headers and signatures, URL group fan-out and the SSRF refusal.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from itertools import pairwise
from typing import Any

import pytest
from standardwebhooks import Webhook

import sdk
from tests.conftest import ServerProcess
from tests.e2e._receivers import ARRIVAL_TIMEOUT, Answer, ScriptedReceiver
from tests.e2e._support import eventually
from tests.e2e.conftest import AnyClient
from tests.sdk._support import resolve

pytestmark = pytest.mark.slow

# Attempt times travel as RFC 3339 with milliseconds: comparing two of them loses up to 1 ms each.
CLOCK_ROUNDING_MS = 20.0
# The engine polls for due messages every 0.2 s; this is ample time for a due message to go out.
QUIET_MARGIN_SECONDS = 1.5
EVERYTHING = [{"resource": "*", "actions": ["publish", "consume", "admin"]}]


async def _receiver(client: AnyClient) -> sdk.Receiver:
    keys = await resolve(client.messages.signing_keys())
    return sdk.Receiver(current_signing_key=keys.current, next_signing_key=keys.next)


async def _settled(
    client: AnyClient, message_id: str, state: str, *, timeout: float = ARRIVAL_TIMEOUT
) -> Any:
    return await eventually(
        lambda: client.messages.get(message_id),
        lambda found: found.state == state,
        timeout=timeout,
    )


async def _dead_letter_ids(client: AnyClient) -> list[str]:
    letters = await resolve(client.dead_letters.list(limit=1000))
    return [letter.message_id for letter in letters]


async def test_exhausted_retries_become_a_dead_letter_that_can_be_retried(
    client: AnyClient,
) -> None:
    """Two failed attempts end in the dead letters; retrying one delivers it, history kept."""
    with ScriptedReceiver(Answer(500, b"database unavailable")) as receiver:
        url = receiver.url("/orders")
        receipt = await resolve(
            client.messages.publish_json(url=url, body={"order": 7}, retries=1, retry_delay="50")
        )
        receiver.wait_for(2)
        failed = await _settled(client, receipt.message_id, "failed")
        assert [attempt.attempt for attempt in failed.attempts] == [1, 2]
        assert [attempt.status_code for attempt in failed.attempts] == [500, 500]
        for attempt in failed.attempts:
            assert attempt.response_excerpt == "database unavailable"
            assert attempt.error and "500" in attempt.error
        assert failed.next_attempt_at is None
        letters = await eventually(
            lambda: client.dead_letters.list(limit=1000),
            lambda found: receipt.message_id in [letter.message_id for letter in found],
            timeout=ARRIVAL_TIMEOUT,
        )
        [letter] = [letter for letter in letters if letter.message_id == receipt.message_id]
        assert (letter.url, letter.attempts, letter.last_status_code) == (url, 2, 500)
        assert letter.last_error == failed.attempts[-1].error

        receiver.answer_with(Answer(200, b"recovered"))
        retried = await resolve(client.dead_letters.retry(receipt.message_id))
        assert (retried.message_id, retried.url, retried.deduplicated) == (
            receipt.message_id,
            url,
            False,
        )
        third = receiver.wait_for(3)[2]
        assert json.loads(third.body) == {"order": 7}
        assert third.headers["spool-retried"] == "0"
        delivered = await _settled(client, receipt.message_id, "delivered")
    assert [attempt.status_code for attempt in delivered.attempts] == [500, 500, 200]
    assert [attempt.attempt for attempt in delivered.attempts] == [1, 2, 3]
    assert delivered.attempts[-1].response_excerpt == "recovered"
    assert delivered.attempts[-1].error is None
    assert receipt.message_id not in await _dead_letter_ids(client)


async def test_a_deleted_dead_letter_leaves_the_message_readable(client: AnyClient) -> None:
    """dead_letters.delete forgets the letter; messages.get still reads the failed message."""
    with ScriptedReceiver(Answer(502, b"bad gateway")) as receiver:
        receipt = await resolve(
            client.messages.publish_json(url=receiver.url(), body={"n": 1}, retries=0)
        )
        await eventually(
            lambda: _dead_letter_ids(client),
            lambda ids: receipt.message_id in ids,
            timeout=ARRIVAL_TIMEOUT,
        )
        await resolve(client.dead_letters.delete(receipt.message_id))
        assert receipt.message_id not in await _dead_letter_ids(client)
        message = await resolve(client.messages.get(receipt.message_id))
        assert message.state == "failed"
        assert [attempt.status_code for attempt in message.attempts] == [502]
        with pytest.raises(sdk.NotFoundError):
            await resolve(client.dead_letters.delete(receipt.message_id))
        with pytest.raises(sdk.NotFoundError):
            await resolve(client.dead_letters.retry(receipt.message_id))
        receiver.stays_at(1, seconds=0.5)


async def test_an_attempt_past_its_timeout_fails_and_is_retried(client: AnyClient) -> None:
    """A receiver hanging past timeout=1 fails the attempt with a timeout error; the retry lands."""
    with ScriptedReceiver(Answer(hang=60.0), Answer(200)) as receiver:
        receipt = await resolve(
            client.messages.publish_json(
                url=receiver.url(), body={"slow": True}, timeout=1, retries=1, retry_delay="0"
            )
        )
        first, second = receiver.wait_for(2)
        delivered = await _settled(client, receipt.message_id, "delivered")
    assert first.body == second.body
    assert (first.headers["spool-retried"], second.headers["spool-retried"]) == ("0", "1")
    timed_out, succeeded = delivered.attempts
    assert timed_out.status_code is None and timed_out.response_excerpt is None
    assert timed_out.error and "timed out" in timed_out.error
    assert timed_out.duration >= timedelta(seconds=0.9)
    assert (succeeded.status_code, succeeded.error) == (200, None)
    assert delivered.timeout == timedelta(seconds=1)


async def test_retries_wait_as_the_retry_delay_expression_says(client: AnyClient) -> None:
    """retry_delay="200 * retried": each retry starts at least 200 ms * retried after the last."""
    statuses = (Answer(500), Answer(503), Answer(500), Answer(200))
    with ScriptedReceiver(*statuses) as receiver:
        receipt = await resolve(
            client.messages.publish_json(
                url=receiver.url(), body={"n": 1}, retries=3, retry_delay="200 * retried"
            )
        )
        requests = receiver.wait_for(4)
        delivered = await _settled(client, receipt.message_id, "delivered")
    assert [request.headers["spool-retried"] for request in requests] == ["0", "1", "2", "3"]
    assert [attempt.status_code for attempt in delivered.attempts] == [500, 503, 500, 200]
    assert delivered.retry_delay == "200 * retried"
    started = [attempt.started_at for attempt in delivered.attempts]
    assert started == sorted(started) and len(set(started)) == len(started)
    for retried, (earlier, later) in enumerate(pairwise(started), start=1):
        gap_ms = (later - earlier) / timedelta(milliseconds=1)
        assert gap_ms >= 200 * retried - CLOCK_ROUNDING_MS, (retried, gap_ms)


async def test_the_default_backoff_retries_too(client: AnyClient) -> None:
    """Without retry_delay, a failed attempt is still retried (exponential backoff with jitter)."""
    with ScriptedReceiver(Answer(503), Answer(200)) as receiver:
        receipt = await resolve(
            client.messages.publish_json(url=receiver.url(), body={"n": 1}, retries=1)
        )
        receiver.wait_for(2, timeout=2 * ARRIVAL_TIMEOUT)
        delivered = await _settled(
            client, receipt.message_id, "delivered", timeout=2 * ARRIVAL_TIMEOUT
        )
    assert delivered.retry_delay is None
    assert [attempt.status_code for attempt in delivered.attempts] == [503, 200]


async def test_content_based_deduplication_delivers_once(client: AnyClient) -> None:
    """The same URL, body and headers twice: one delivery; another body or header is new."""
    with ScriptedReceiver() as receiver:
        body = {"order": uuid.uuid4().hex}
        options: dict[str, Any] = {
            "url": receiver.url("/orders"),
            "headers": {"X-Tenant": "acme"},
            "content_based_deduplication": True,
        }
        first = await resolve(client.messages.publish_json(body=body, **options))
        repeated = await resolve(client.messages.publish_json(body=body, **options))
        assert not first.deduplicated
        assert repeated.deduplicated and repeated.message_id == first.message_id
        other_body = await resolve(
            client.messages.publish_json(body={**body, "version": 2}, **options)
        )
        other_header = await resolve(
            client.messages.publish_json(
                body=body, **{**options, "headers": {"X-Tenant": "globex"}}
            )
        )
        receiver.wait_for(3)
        requests = receiver.stays_at(3, seconds=QUIET_MARGIN_SECONDS)
    assert not other_body.deduplicated and not other_header.deduplicated
    ids = {first.message_id, other_body.message_id, other_header.message_id}
    assert len(ids) == 3
    assert Counter(request.headers["spool-message-id"] for request in requests) == dict.fromkeys(
        ids, 1
    )


async def test_a_cancelled_delayed_message_never_arrives(client: AnyClient) -> None:
    """delay=2 then cancel: past the delay the receiver got nothing and the message is cancelled."""
    with ScriptedReceiver() as receiver:
        published_at = time.monotonic()
        receipt = await resolve(
            client.messages.publish_json(url=receiver.url(), body={"n": 1}, delay=2)
        )
        cancelled = await resolve(client.messages.cancel(receipt.message_id))
        assert (cancelled.state, cancelled.next_attempt_at) == ("cancelled", None)
        remaining = published_at + 2 + QUIET_MARGIN_SECONDS - time.monotonic()
        receiver.stays_at(0, seconds=max(0.0, remaining))
    message = await resolve(client.messages.get(receipt.message_id))
    assert (message.state, message.attempts) == ("cancelled", [])


async def test_cancelling_a_delivered_message_is_a_conflict(client: AnyClient) -> None:
    """Once delivered, cancel raises ConflictError 409 invalid_state and the state stays."""
    with ScriptedReceiver() as receiver:
        receipt = await resolve(client.messages.publish_json(url=receiver.url(), body={"n": 1}))
        receiver.wait_for(1)
        await _settled(client, receipt.message_id, "delivered")
    with pytest.raises(sdk.ConflictError) as caught:
        await resolve(client.messages.cancel(receipt.message_id))
    assert (caught.value.status_code, caught.value.code) == (409, "invalid_state")
    assert (await resolve(client.messages.get(receipt.message_id))).state == "delivered"


async def test_a_failure_callback_is_signed_and_carries_the_last_error(
    client: AnyClient,
) -> None:
    """failure_callback gets a signed POST naming the message, state failed and its last error."""
    with ScriptedReceiver() as callbacks, ScriptedReceiver(Answer(503, b"maintenance")) as broken:
        callback_url = callbacks.url("/hooks/failed?tenant=acme")
        receipt = await resolve(
            client.messages.publish_json(
                url=broken.url(),
                body={"n": 1},
                retries=1,
                retry_delay="0",
                failure_callback=callback_url,
            )
        )
        [request] = callbacks.wait_for(1)
        failed = await _settled(client, receipt.message_id, "failed")
        callbacks.stays_at(1, seconds=0.5)
    assert (request.method, request.path) == ("POST", "/hooks/failed?tenant=acme")
    assert request.headers["content-type"].startswith("application/json")
    receiver = await _receiver(client)
    receiver.verify(request.headers["spool-signature"], request.body, url=callback_url)
    with pytest.raises(sdk.SignatureError) as caught:
        receiver.verify(request.headers["spool-signature"], request.body, url=broken.url())
    assert caught.value.reason == "url_mismatch"
    outcome = json.loads(request.body)
    assert (outcome["message_id"], outcome["state"], outcome["url"]) == (
        receipt.message_id,
        "failed",
        broken.url(),
    )
    assert (outcome["status"], outcome["attempts"]) == (503, 2)
    assert outcome["error"] == failed.attempts[-1].error and "503" in outcome["error"]
    assert base64.b64decode(outcome["body"]) == b"maintenance"


async def test_a_success_callback_carries_the_status_and_response_body(
    client: AnyClient,
) -> None:
    """callback gets a signed POST with status 200 and the receiver's answer, base64-encoded."""
    answer = b'{"accepted": true, "ticket": "T-1"}'
    with ScriptedReceiver() as callbacks, ScriptedReceiver(Answer(200, answer)) as working:
        callback_url = callbacks.url("/hooks/delivered")
        receipt = await resolve(
            client.messages.publish_json(url=working.url(), body={"n": 1}, callback=callback_url)
        )
        [request] = callbacks.wait_for(1)
    receiver = await _receiver(client)
    receiver.verify(request.headers["spool-signature"], request.body, url=callback_url)
    outcome = json.loads(request.body)
    assert (outcome["message_id"], outcome["state"], outcome["status"]) == (
        receipt.message_id,
        "delivered",
        200,
    )
    assert (outcome["attempts"], outcome["error"]) == (1, None)
    assert base64.b64decode(outcome["body"]) == answer


async def test_callback_headers_reach_the_callback_receiver(client: AnyClient) -> None:
    """`callback_headers=` reach the callback as given, beside its signature, and the message
    shows them; `failure_callback_headers=` go only with a failure callback.
    """
    with ScriptedReceiver() as callbacks, ScriptedReceiver(Answer(200, b"ok")) as working:
        receipt = await resolve(
            client.messages.publish_json(
                url=working.url(),
                body={"n": 1},
                callback=callbacks.url("/hooks/delivered"),
                callback_headers={"Authorization": "Bearer callback-secret"},
                failure_callback=callbacks.url("/hooks/failed"),
                failure_callback_headers={"Authorization": "Bearer failure-secret"},
            )
        )
        [request] = callbacks.wait_for(1)
        [delivery] = working.wait_for(1)
    assert request.path == "/hooks/delivered"
    assert request.headers["authorization"] == "Bearer callback-secret"
    assert request.headers["spool-callback"] == "success"
    assert "authorization" not in delivery.headers
    receiver = await _receiver(client)
    receiver.verify(
        request.headers["spool-signature"], request.body, url=callbacks.url("/hooks/delivered")
    )
    shown = await resolve(client.messages.get(receipt.message_id))
    assert shown.callback_headers == {"Authorization": "Bearer callback-secret"}
    assert shown.failure_callback_headers == {"Authorization": "Bearer failure-secret"}


async def test_redacted_parts_are_delivered_but_never_shown(client: AnyClient) -> None:
    """`redact=` hides the body and the named headers from `messages.get`, while the receiver
    and the callback get them as published.
    """
    with ScriptedReceiver() as callbacks, ScriptedReceiver(Answer(200, b"ok")) as working:
        receipt = await resolve(
            client.messages.publish_json(
                url=working.url(),
                body={"card": "4111"},
                headers={"Authorization": "Bearer e2e-secret", "X-Tenant": "acme"},
                callback=callbacks.url("/hooks/delivered"),
                callback_headers={"authorization": "Bearer e2e-callback-secret"},
                redact=sdk.Redact(body=True, headers=("AUTHORIZATION",)),
            )
        )
        [delivery] = working.wait_for(1)
        [callback] = callbacks.wait_for(1)
    assert delivery.headers["authorization"] == "Bearer e2e-secret"
    assert json.loads(delivery.body) == {"card": "4111"}
    assert callback.headers["authorization"] == "Bearer e2e-callback-secret"
    shown = await resolve(client.messages.get(receipt.message_id))
    assert shown.headers == {"Authorization": "[redacted]", "X-Tenant": "acme"}
    assert shown.callback_headers == {"authorization": "[redacted]"}
    assert shown.redact == sdk.Redact(body=True, headers=("AUTHORIZATION",))
    assert "secret" not in repr(shown) and "4111" not in repr(shown)


async def test_method_headers_and_signature_arrive_as_published(client: AnyClient) -> None:
    """A PUT with custom headers arrives with them, its exact bytes signed for its URL and id."""
    trace = uuid.uuid4().hex
    body = "<order id='42'>café crème</order>"
    with ScriptedReceiver() as receiver:
        url = receiver.url("/orders/42?source=spool")
        receipt = await resolve(
            client.messages.publish(
                url=url,
                body=body,
                content_type="application/xml",
                method="PUT",
                headers={"X-Tenant": "acme", "X-Trace-Id": trace},
            )
        )
        [request] = receiver.wait_for(1)
    assert (request.method, request.path) == ("PUT", "/orders/42?source=spool")
    assert request.body == body.encode("utf-8")
    assert request.headers["content-type"].startswith("application/xml")
    assert (request.headers["x-tenant"], request.headers["x-trace-id"]) == ("acme", trace)
    assert request.headers["spool-message-id"] == receipt.message_id
    assert request.headers["spool-retried"] == "0"
    receiver_check = await _receiver(client)
    signature = request.headers["spool-signature"]
    receiver_check.verify(signature, request.body, url=url)
    receiver_check.verify(signature, body, url=url)
    with pytest.raises(sdk.SignatureError) as wrong_url:
        receiver_check.verify(signature, request.body, url=receiver.url("/orders/43"))
    assert wrong_url.value.reason == "url_mismatch"
    with pytest.raises(sdk.SignatureError) as wrong_body:
        receiver_check.verify(signature, body.replace("42", "43"), url=url)
    assert wrong_body.value.reason == "body_mismatch"


async def test_standard_webhooks_signing_is_verified_by_the_standardwebhooks_package(
    client: AnyClient,
) -> None:
    """With `signature_scheme="standard_webhooks"` the receiver gets the Standard Webhooks
    headers, which `standardwebhooks.Webhook` accepts with either secret of `signing_keys()`;
    the message says how it is signed, and forging one of those headers is refused.
    """
    with ScriptedReceiver() as receiver:
        receipt = await resolve(
            client.messages.publish_json(
                url=receiver.url(), body={"order": 42}, signature_scheme="standard_webhooks"
            )
        )
        [request] = receiver.wait_for(1)
    assert "spool-signature" not in request.headers
    assert request.headers["webhook-id"] == receipt.message_id
    keys = await resolve(client.messages.signing_keys())
    for secret in (keys.standard_webhooks.current, keys.standard_webhooks.next):
        assert Webhook(secret).verify(request.body, request.headers) == {"order": 42}
    message = await resolve(client.messages.get(receipt.message_id))
    assert message.signature_scheme == "standard_webhooks"
    with pytest.raises(sdk.PublishError) as forged:
        await resolve(
            client.messages.publish_json(
                url=receiver.url(), body={}, headers={"webhook-signature": "v1,forged"}
            )
        )
    assert isinstance(forged.value.__cause__, sdk.UnprocessableEntityError)
    with pytest.raises(sdk.InvalidArgumentError, match="did you mean 'standard_webhooks'"):
        await resolve(
            client.messages.publish_json(  # type: ignore[call-overload]
                url=receiver.url(), body={}, signature_scheme="standard-webhooks"
            )
        )


async def test_a_url_group_delivers_a_message_of_its_own_to_every_endpoint(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """Each endpoint of a group receives one request carrying its own message id and signature."""
    with ScriptedReceiver() as first, ScriptedReceiver() as second:
        group_name = name("fanout")
        urls = [first.url("/a"), first.url("/b"), second.url("/c")]
        await resolve(client.url_groups.upsert(group_name, urls))
        try:
            receipts = await resolve(
                client.messages.publish_json(url_group=group_name, body={"fan": "out"})
            )
            arrived = [*first.wait_for(2), *second.wait_for(1)]
            messages = [
                await _settled(client, receipt.message_id, "delivered") for receipt in receipts
            ]
            first.stays_at(2, seconds=0.5)
            second.stays_at(1, seconds=0)
        finally:
            await resolve(client.url_groups.delete(group_name))
    assert [receipt.url for receipt in receipts] == urls
    assert len({receipt.message_id for receipt in receipts}) == 3
    by_path = {request.path: request for request in arrived}
    receiver = await _receiver(client)
    for receipt, url, path in zip(receipts, urls, ["/a", "/b", "/c"], strict=True):
        request = by_path[path]
        assert request.headers["spool-message-id"] == receipt.message_id
        assert json.loads(request.body) == {"fan": "out"}
        receiver.verify(request.headers["spool-signature"], request.body, url=url)
    assert [(message.url, message.url_group) for message in messages] == [
        (url, group_name) for url in urls
    ]


@pytest.fixture
def guarded_service(spool_server: Callable[..., ServerProcess], store_url: str) -> ServerProcess:
    """A service with the default destination policy (no loopback) and a quota of one message.

    example.com is allowed so something can be published; the quota proves refusals cost nothing.
    """
    return spool_server(
        store_url,
        config={
            "tokens": [
                {"id": "guarded", "token": "guarded-token", "quota": 1, "permissions": EVERYTHING}
            ],
            "destinations": {"allow": ["example.com"]},
        },
    )


def _assert_refused(caught: pytest.ExceptionInfo[sdk.PublishError]) -> None:
    cause = caught.value.__cause__
    assert isinstance(cause, sdk.PermissionDeniedError), cause
    assert (cause.status_code, cause.code) == (403, "destination_not_allowed")


async def test_the_default_policy_refuses_loopback_and_metadata_destinations(
    guarded_service: ServerProcess,
) -> None:
    """Without an allow-list entry, loopback and metadata URLs are a 400 and nothing is written."""
    with ScriptedReceiver() as receiver:
        loopback = receiver.url("/x")
        with sdk.Client(guarded_service.base_url, guarded_service.token) as client:
            for url in (loopback, "http://169.254.169.254/latest"):
                with pytest.raises(sdk.PublishError) as caught:
                    client.messages.publish_json(url=url, body={"steal": "credentials"})
                _assert_refused(caught)
            with pytest.raises(sdk.PublishError) as caught:
                client.messages.publish_json(
                    url="https://example.com/hooks", body={}, failure_callback=loopback
                )
            _assert_refused(caught)
        allowed = sdk.MessageRequest(
            {"n": 1},
            url="https://example.com/hooks",
            delay="1h",
            deduplication_id=f"ssrf-{uuid.uuid4().hex}",
        )
        async with sdk.AsyncClient(guarded_service.base_url, guarded_service.token) as aclient:
            with pytest.raises(sdk.PublishError) as caught_batch:
                await aclient.messages.batch([allowed, sdk.MessageRequest({}, url=loopback)])
            _assert_refused(caught_batch)
            # The quota of one and the deduplication id both show the refused batch left nothing.
            [[probe]] = await aclient.messages.batch([allowed])
            assert not probe.deduplicated
            with pytest.raises(sdk.PublishError) as over_quota:
                await aclient.messages.publish_json(
                    url="https://example.com/other", body={"n": 2}, delay="1h"
                )
            assert isinstance(over_quota.value.__cause__, sdk.QuotaExceededError)
            await aclient.messages.cancel(probe.message_id)
            assert await aclient.dead_letters.list() == []
        receiver.stays_at(0, seconds=QUIET_MARGIN_SECONDS)
