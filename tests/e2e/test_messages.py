"""HTTP messages against the real service, delivered to a local endpoint and verified."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import TypedDict

import pytest

import sdk
from tests.e2e._receivers import Answer, ScriptedReceiver
from tests.e2e._support import eventually
from tests.e2e.conftest import AnyClient
from tests.sdk._support import resolve

pytestmark = pytest.mark.slow


@pytest.fixture
def endpoint() -> Iterator[ScriptedReceiver]:
    """A local endpoint that answers 200 to everything."""
    with ScriptedReceiver() as running:
        yield running


async def _receiver(client: AnyClient) -> sdk.Receiver:
    keys = await resolve(client.messages.signing_keys())
    return sdk.Receiver(current_signing_key=keys.current, next_signing_key=keys.next)


async def test_a_json_message_is_delivered_signed(
    client: AnyClient, endpoint: ScriptedReceiver
) -> None:
    """publish_json: the endpoint gets the exact JSON, the headers and a signature that verifies."""
    url = endpoint.url("/hooks/signup")
    receipt = await resolve(
        client.messages.publish_json(
            url=url,
            body={"hello": "world"},
            headers={"X-Tenant": "acme"},
            retries=3,
            timeout="30s",
        )
    )
    assert receipt.message_id and receipt.url == url and not receipt.deduplicated
    [request] = endpoint.wait_for(1)
    assert (request.method, request.path) == ("POST", "/hooks/signup")
    assert json.loads(request.body) == {"hello": "world"}
    assert request.headers["content-type"].startswith("application/json")
    assert request.headers["x-tenant"] == "acme"
    assert request.headers["spool-message-id"] == receipt.message_id
    receiver = await _receiver(client)
    receiver.verify(request.headers["spool-signature"], request.body, url=url)
    with pytest.raises(sdk.SignatureError) as caught:
        receiver.verify(request.headers["spool-signature"], request.body + b" ", url=url)
    assert caught.value.reason == "body_mismatch"
    message = await eventually(
        lambda: client.messages.get(receipt.message_id), lambda found: found.state == "delivered"
    )
    assert [attempt.status_code for attempt in message.attempts] == [200]


async def test_a_text_message_keeps_its_body_method_and_type(
    client: AnyClient, endpoint: ScriptedReceiver
) -> None:
    """messages.publish sends a text body as is, with its content type and method."""
    html = "<html><body>Hello</body></html>"
    await resolve(
        client.messages.publish(
            url=endpoint.url("/page"), body=html, content_type="text/html", method="PUT"
        )
    )
    [request] = endpoint.wait_for(1)
    assert (request.method, request.body) == ("PUT", html.encode())
    assert request.headers["content-type"].startswith("text/html")


async def test_retries_until_delivered(client: AnyClient) -> None:
    """A 500 then a 200: the message is delivered on its second attempt, marked as retried."""
    with ScriptedReceiver(Answer(500), Answer(200)) as flaky:
        receipt = await resolve(
            client.messages.publish_json(
                url=flaky.url(), body={"n": 1}, retries=2, retry_delay=timedelta(0)
            )
        )
        first, second = flaky.wait_for(2)
        assert first.body == second.body
        assert second.headers["spool-retried"] == "1"
        message = await eventually(
            lambda: client.messages.get(receipt.message_id),
            lambda found: found.state == "delivered",
        )
    assert [attempt.status_code for attempt in message.attempts] == [500, 200]


async def test_a_delayed_message_can_be_read_and_cancelled(
    client: AnyClient, endpoint: ScriptedReceiver
) -> None:
    """messages.get shows a scheduled message; cancel stops it; a second cancel is a conflict."""
    receipt = await resolve(
        client.messages.publish_json(
            url=endpoint.url(), body={"later": True}, delay="1h", retries=0
        )
    )
    message = await resolve(client.messages.get(receipt.message_id))
    assert (message.state, message.url, message.retries) == ("scheduled", endpoint.url(), 0)
    assert message.next_attempt_at is not None and message.attempts == []
    cancelled = await resolve(client.messages.cancel(receipt.message_id))
    assert cancelled.state == "cancelled"
    with pytest.raises(sdk.ConflictError) as caught:
        await resolve(client.messages.cancel(receipt.message_id))
    assert caught.value.code == "invalid_state"
    assert endpoint.received == []


async def test_a_missing_message_is_not_found(client: AnyClient) -> None:
    """messages.get of an id the service never issued raises NotFoundError."""
    with pytest.raises(sdk.NotFoundError):
        await resolve(client.messages.get("msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"))


async def test_a_url_group_gets_one_message_per_endpoint(
    client: AnyClient, name: Callable[[str], str]
) -> None:
    """url_groups.upsert, then publish_json(url_group=...) returns one receipt per URL."""
    with ScriptedReceiver() as first, ScriptedReceiver() as second:
        group_name = name("partners")
        group = await resolve(
            client.url_groups.upsert(
                group_name, [first.url("/a"), sdk.UrlEndpoint(second.url("/b"), name="b")]
            )
        )
        assert [endpoint.url for endpoint in group.endpoints] == [first.url("/a"), second.url("/b")]
        assert (await resolve(client.url_groups.get(group_name))).name == group_name
        receipts = await resolve(
            client.messages.publish_json(url_group=group_name, body={"hello": "partners"})
        )
        assert [receipt.url for receipt in receipts] == [first.url("/a"), second.url("/b")]
        assert len({receipt.message_id for receipt in receipts}) == 2
        [to_first] = first.wait_for(1)
        [to_second] = second.wait_for(1)
        assert json.loads(to_first.body) == json.loads(to_second.body) == {"hello": "partners"}
        await resolve(client.url_groups.delete(group_name))
        with pytest.raises(sdk.PublishError) as caught:
            await resolve(client.messages.publish_json(url_group=group_name, body={}))
        assert isinstance(caught.value.__cause__, sdk.NotFoundError)


async def test_batch_returns_receipts_per_message(
    client: AnyClient, endpoint: ScriptedReceiver
) -> None:
    """messages.batch publishes several messages at once; one list of receipts per message."""
    results = await resolve(
        client.messages.batch(
            [
                sdk.MessageRequest({"n": 1}, url=endpoint.url("/one")),
                sdk.MessageRequest(
                    "plain text", url=endpoint.url("/two"), content_type="text/plain"
                ),
            ]
        )
    )
    assert [[receipt.url for receipt in receipts] for receipts in results] == [
        [endpoint.url("/one")],
        [endpoint.url("/two")],
    ]
    by_path = {request.path: request.body for request in endpoint.wait_for(2)}
    assert json.loads(by_path["/one"]) == {"n": 1}
    assert by_path["/two"] == b"plain text"


class _Scheduled(TypedDict):
    """The options every publish in the deduplication test shares."""

    url: str
    delay: str


async def test_deduplication_and_idempotency_return_the_first_message(
    client: AnyClient, endpoint: ScriptedReceiver
) -> None:
    """A repeated deduplication_id or idempotency key gives back the first message's id."""
    options = _Scheduled(url=endpoint.url(), delay="1h")
    dedup = f"dedup-{uuid.uuid4().hex}"
    first = await resolve(
        client.messages.publish_json(body={"a": 1}, deduplication_id=dedup, **options)
    )
    again = await resolve(
        client.messages.publish_json(body={"a": 2}, deduplication_id=dedup, **options)
    )
    assert again.deduplicated and again.message_id == first.message_id
    body = {"content": uuid.uuid4().hex}
    by_content = await resolve(
        client.messages.publish_json(body=body, content_based_deduplication=True, **options)
    )
    same_content = await resolve(
        client.messages.publish_json(body=body, content_based_deduplication=True, **options)
    )
    assert same_content.deduplicated and same_content.message_id == by_content.message_id
    key = f"key-{uuid.uuid4().hex}"
    keyed = await resolve(
        client.messages.publish_json(body={"k": 1}, idempotency_key=key, **options)
    )
    repeated = await resolve(
        client.messages.publish_json(body={"k": 1}, idempotency_key=key, **options)
    )
    assert repeated.message_id == keyed.message_id


async def test_a_destination_outside_the_allow_list_is_refused(client: AnyClient) -> None:
    """Private addresses not allowed raise PublishError from a 403 destination_not_allowed."""
    with pytest.raises(sdk.PublishError) as caught:
        await resolve(client.messages.publish_json(url="http://10.0.0.1/hook", body={}))
    cause = caught.value.__cause__
    assert isinstance(cause, sdk.PermissionDeniedError) and cause.code == "destination_not_allowed"


async def test_callbacks_report_success_and_failure(client: AnyClient) -> None:
    """callback gets the delivered outcome; failure_callback the failed one, which is dead-lettered."""
    with ScriptedReceiver() as callbacks, ScriptedReceiver(Answer(503)) as broken:
        with ScriptedReceiver() as working:
            delivered = await resolve(
                client.messages.publish_json(
                    url=working.url(), body={"n": 1}, callback=callbacks.url("/success")
                )
            )
            working.wait_for(1)
        failed = await resolve(
            client.messages.publish_json(
                url=broken.url(),
                body={"n": 2},
                retries=0,
                failure_callback=callbacks.url("/failure"),
            )
        )
        by_path = {request.path: request for request in callbacks.wait_for(2)}
    success = json.loads(by_path["/success"].body)
    assert (success["message_id"], success["state"], success["status"]) == (
        delivered.message_id,
        "delivered",
        200,
    )
    failure = json.loads(by_path["/failure"].body)
    assert (failure["message_id"], failure["state"], failure["status"]) == (
        failed.message_id,
        "failed",
        503,
    )
    receiver = await _receiver(client)
    for request in by_path.values():
        receiver.verify(request.headers["spool-signature"], request.body)
    dead = await eventually(
        lambda: client.dead_letters.list(),
        lambda letters: failed.message_id in [letter.message_id for letter in letters],
    )
    [letter] = [letter for letter in dead if letter.message_id == failed.message_id]
    assert letter.last_status_code == 503
    assert (await resolve(client.messages.get(failed.message_id))).state == "failed"
