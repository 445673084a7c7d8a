"""Settling attempts (server/delivery/settle.py): retries, dead letters, callbacks and leases,
first through the engine against receivers on loopback, then the settle policy on its own.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from server.delivery import CALLBACK_HEADER, SOURCE_MESSAGE_HEADER
from server.delivery.attempt import AttemptResult, attempt_record
from server.delivery.settle import Settler, SettleStore
from server.stores.base import (
    DeliveryAttemptRecord,
    MessageReceipt,
    MessageRecord,
    NewMessage,
    StoreUnavailableError,
)
from tests._eventually import eventually
from tests.server.delivery._support import (
    RECEIVER,
    EndpointFactory,
    EngineFactory,
    MemoryStore,
    Reply,
    new_message,
    publish,
    settled,
)


async def test_fails_twice_then_succeeds(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """Non-2xx answers are retried with Spool-Retried counting up until one succeeds."""
    receiver = await endpoint(Reply(500, b"boom"), Reply(503), Reply(204, b""))
    message_id = await publish(store, new_message(receiver.url(), retries=3))
    await engine().start()
    await eventually(settled(store, message_id))

    record = store.messages[message_id]
    assert record.state == "delivered"
    assert [a.status_code for a in record.attempts] == [500, 503, 204]
    assert [a.attempt for a in record.attempts] == [1, 2, 3]
    assert record.attempts[0].error == "HTTP 500 Scripted"
    assert record.attempts[0].response_excerpt == "boom"
    assert [r.headers["spool-retried"] for r in receiver.requests] == ["0", "1", "2"]
    for request in receiver.requests:
        RECEIVER.verify(request.headers["spool-signature"], request.body, url=receiver.url())


async def test_retries_run_out_into_the_dead_letters(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """After ``retries + 1`` failed attempts the message fails and becomes a dead letter."""
    receiver = await endpoint(Reply(500))
    message_id = await publish(store, new_message(receiver.url(), retries=2))
    await engine().start()
    await eventually(settled(store, message_id))

    record = store.messages[message_id]
    assert record.state == "failed"
    assert len(record.attempts) == 3 == len(receiver.requests)
    assert record.next_attempt_at is None
    assert store.dead_letters == [message_id]


async def test_retry_delay_expression_and_default_backoff_are_used(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """``retry_delay`` decides the next attempt time; without it the default backoff does."""
    receiver = await endpoint(Reply(500))
    asked: list[int] = []

    def backoff(retried: int) -> float:
        asked.append(retried)
        return 0.0

    with_expression = await publish(
        store, new_message(receiver.url(), retries=1, retry_delay="600000 * retried")
    )
    without = await publish(store, new_message(receiver.url(), retries=2, retry_delay=None))
    await engine(default_retry_delay=backoff).start()
    await eventually(settled(store, without))
    await eventually(lambda: len(store.messages[with_expression].attempts) == 1)

    scheduled = store.messages[with_expression]
    assert scheduled.state == "scheduled"
    assert scheduled.next_attempt_at is not None
    assert scheduled.next_attempt_at - scheduled.attempts[0].started_at >= 590.0
    assert asked == [1, 2]


async def test_invalid_stored_retry_delay_falls_back_to_the_default(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """An expression that cannot be evaluated never strands a message."""
    receiver = await endpoint(Reply(500), Reply(200))
    message_id = await publish(store, new_message(receiver.url(), retry_delay="1 / (retried - 1)"))
    await engine().start()
    await eventually(settled(store, message_id))
    assert store.messages[message_id].state == "delivered"


async def test_success_callback_carries_the_outcome_signed_for_its_url(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """After a delivery the callback URL gets status, headers, base64 body and attempt count."""
    receiver = await endpoint(Reply(500), Reply(201, b'{"created":true}'))
    callbacks = await endpoint(Reply(200))
    message_id = await publish(
        store, new_message(receiver.url(), callback=callbacks.url("/done"), body=b"payload")
    )
    await engine().start()
    await eventually(lambda: len(callbacks.requests) == 1)

    (request,) = callbacks.requests
    RECEIVER.verify(request.headers["spool-signature"], request.body, url=callbacks.url("/done"))
    assert request.headers["content-type"] == "application/json"
    assert request.headers[CALLBACK_HEADER.lower()] == "success"
    assert request.headers[SOURCE_MESSAGE_HEADER.lower()] == message_id
    outcome = json.loads(request.body)
    assert outcome["message_id"] == message_id
    assert outcome["url"] == receiver.url()
    assert outcome["state"] == "delivered"
    assert outcome["status"] == 201
    assert outcome["attempts"] == 2
    assert outcome["headers"]["content-type"] == "text/plain; charset=utf-8"
    assert base64.b64decode(outcome["body"]) == b'{"created":true}'
    assert base64.b64decode(outcome["source_body"]) == b"payload"
    assert outcome["error"] is None
    await eventually(lambda: store.callbacks()[0].state == "delivered")
    assert store.messages[message_id].state == "delivered"


async def test_failure_callback_carries_the_last_error(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """After retries run out the failure callback gets the last error; no success callback."""
    receiver = await endpoint(Reply(500, b"first"), Reply(502, b"last"))
    callbacks = await endpoint(Reply(200))
    message_id = await publish(
        store,
        new_message(
            receiver.url(),
            retries=1,
            callback=callbacks.url("/ok"),
            failure_callback=callbacks.url("/failed"),
        ),
    )
    await engine().start()
    await eventually(lambda: len(callbacks.requests) == 1)

    (request,) = callbacks.requests
    assert request.path == "/failed"
    RECEIVER.verify(request.headers["spool-signature"], request.body, url=callbacks.url("/failed"))
    outcome = json.loads(request.body)
    assert outcome["state"] == "failed"
    assert outcome["status"] == 502
    assert outcome["error"] == "HTTP 502 Scripted"
    assert outcome["attempts"] == 2
    assert base64.b64decode(outcome["body"]) == b"last"
    assert store.dead_letters == [message_id]


async def test_each_callback_carries_its_own_headers_beside_the_services(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """``callback_headers`` go with the success callback, ``failure_callback_headers`` with the
    failure callback, and neither with the message itself; Spool-* headers are the service's.
    """
    receiver = await endpoint(Reply(200), Reply(500))
    callbacks = await endpoint(Reply(200))
    headers = {
        "callback": callbacks.url("/ok"),
        "callback_headers": {"Authorization": "Bearer ok", "X-Kind": "success"},
        "failure_callback": callbacks.url("/failed"),
        "failure_callback_headers": {"Authorization": "Bearer ko"},
    }
    delivered = await publish(store, new_message(receiver.url(), **headers))
    await engine().start()
    await eventually(lambda: len(callbacks.requests) == 1)
    failed = await publish(store, new_message(receiver.url(), retries=0, **headers))
    await eventually(lambda: len(callbacks.requests) == 2)

    success, failure = callbacks.requests
    assert (success.path, failure.path) == ("/ok", "/failed")
    assert success.headers["authorization"] == "Bearer ok"
    assert success.headers["x-kind"] == "success"
    assert success.headers[CALLBACK_HEADER.lower()] == "success"
    assert success.headers[SOURCE_MESSAGE_HEADER.lower()] == delivered
    assert failure.headers["authorization"] == "Bearer ko"
    assert "x-kind" not in failure.headers
    assert failure.headers[SOURCE_MESSAGE_HEADER.lower()] == failed
    for request in callbacks.requests:
        RECEIVER.verify(
            request.headers["spool-signature"], request.body, url=callbacks.url(request.path)
        )
    assert all("authorization" not in request.headers for request in receiver.requests)


async def test_a_callback_keeps_what_its_message_redacts(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """The callback message of a message with ``redact`` redacts the same body and headers,
    and still sends their values.
    """
    receiver = await endpoint(Reply(200))
    callbacks = await endpoint(Reply(200))
    message_id = await publish(
        store,
        new_message(
            receiver.url(),
            callback=callbacks.url("/ok"),
            callback_headers={"Authorization": "Bearer ok"},
            redact_body=True,
            redact_headers=("authorization",),
        ),
    )
    await engine().start()
    await eventually(lambda: len(callbacks.requests) == 1)
    assert callbacks.requests[0].headers["authorization"] == "Bearer ok"
    [callback] = store.callbacks()
    assert (callback.redact_body, callback.redact_headers) == (True, ("authorization",))
    assert store.messages[message_id].redact_headers == ("authorization",)


async def test_failed_callback_is_retried_like_a_message(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A callback receiver that fails first still gets the outcome on a later attempt."""
    receiver = await endpoint(Reply(200))
    callbacks = await endpoint(Reply(500), Reply(500), Reply(200))
    await publish(store, new_message(receiver.url(), callback=callbacks.url()))
    await engine(callback_retries=3).start()
    await eventually(lambda: len(callbacks.requests) == 3)
    await eventually(lambda: store.callbacks()[0].state == "delivered")
    bodies = {request.body for request in callbacks.requests}
    assert len(bodies) == 1


async def test_callback_survives_a_crash_between_publish_and_record(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """If recording fails after the callback was enqueued, the resend does not enqueue it twice."""
    receiver = await endpoint(Reply(200))
    callbacks = await endpoint(Reply(200))
    message_id = await publish(
        store, new_message(receiver.url(), callback=callbacks.url(), timeout=1)
    )
    store.fail_next_record = True
    await engine(lease_margin=0.2).start()
    await eventually(settled(store, message_id))
    await eventually(lambda: len(callbacks.requests) >= 1)

    assert len(receiver.requests) == 2
    kinds = [m.headers.get(CALLBACK_HEADER) for m in store.published]
    assert kinds.count("success") == 2
    assert len(store.callbacks()) == 1
    await eventually(lambda: store.callbacks()[0].state == "delivered")
    assert len(callbacks.requests) == 1


@pytest.mark.parametrize("with_callback", [False, True], ids=["record", "callback"])
async def test_an_attempt_whose_lease_was_taken_over_is_dropped(
    store: MemoryStore,
    endpoint: EndpointFactory,
    engine: EngineFactory,
    caplog: pytest.LogCaptureFixture,
    with_callback: bool,
) -> None:
    """Once another claim replaced the lease, the attempt records nothing and sends no callback."""
    receiver = await endpoint(Reply(200, delay=0.5))
    callbacks = await endpoint(Reply(200))
    message_id = await publish(
        store,
        new_message(receiver.url(), callback=callbacks.url() if with_callback else None),
    )
    await engine().start()
    await eventually(lambda: len(receiver.requests) == 1)
    store.take_over(message_id)
    await eventually(lambda: "another claim took over its lease" in caplog.text)

    record = store.messages[message_id]
    assert (record.state, record.attempts) == ("delivering", [])
    assert store.callbacks() == []
    assert callbacks.requests == []


async def test_the_retry_budget_is_the_stores_retries_used(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """``Spool-Retried`` and running out follow ``retries_used``, not the length of the history."""
    receiver = await endpoint(Reply(500))
    message_id = await publish(store, new_message(receiver.url(), retries=1))
    earlier = DeliveryAttemptRecord(attempt=1, started_at=0.0, duration_ms=0, error="HTTP 500")
    store.messages[message_id] = dataclasses.replace(
        store.messages[message_id], attempts=[earlier] * 3, retries_used=0
    )
    await engine().start()
    await eventually(settled(store, message_id))

    assert [request.headers["spool-retried"] for request in receiver.requests] == ["0", "1"]
    record = store.messages[message_id]
    assert (record.state, record.retries_used) == ("failed", 2)
    assert [attempt.attempt for attempt in record.attempts] == [1, 1, 1, 4, 5]


# The settle policy alone: a Settler on the in-memory store, with no loop and no network ---------


@dataclasses.dataclass
class Heard:
    """What a Settler told the engine: the retry times it scheduled and the callbacks published."""

    retries: list[float] = dataclasses.field(default_factory=list)
    callbacks: int = 0

    def callback_published(self) -> None:
        """Count one callback."""
        self.callbacks += 1


def settler_on(
    store: SettleStore,
    heard: Heard,
    *,
    default_retry_delay: Callable[[int], float] = lambda retried: 10.0,
) -> Settler:
    """A Settler on ``store`` that reports to ``heard``, with 3 retries for callbacks."""
    return Settler(
        store,
        callback_retries=3,
        default_retry_delay=default_retry_delay,
        on_retry_scheduled=heard.retries.append,
        on_callback_published=heard.callback_published,
    )


async def claimed(store: MemoryStore, **options: Any) -> MessageRecord:
    """Publish a message to an address nothing is sent to and claim it, as the engine would."""
    await publish(store, new_message("http://127.0.0.1:9/hook", **options))
    (message,) = await store.claim_due_messages(now=time.time(), limit=1, lease_margin=30.0)
    return message


def lease_of(message: MessageRecord) -> Callable[[], str]:
    """The claim's own lease, never renewed."""
    assert message.lease_id is not None
    lease_id = message.lease_id
    return lambda: lease_id


async def settle(
    settler: Settler, message: MessageRecord, result: AttemptResult, *, retried: int = 0
) -> DeliveryAttemptRecord:
    """Settle ``result`` as the next attempt of ``message`` under its claim's lease."""
    attempt = attempt_record(message, result, started_at=time.time(), duration_ms=7)
    await settler.settle(message, attempt, result, retried=retried, current_lease=lease_of(message))
    return attempt


OK = AttemptResult(status_code=200, headers={"content-type": "text/plain"}, body=b"thanks")
BOOM = AttemptResult(status_code=500, body=b"boom", error="HTTP 500 Internal Server Error")


def callback_outcome(new: NewMessage) -> dict[str, Any]:
    """The outcome a callback message carries."""
    outcome: dict[str, Any] = json.loads(new.body)
    return outcome


async def test_a_2xx_result_settles_the_message_as_delivered(store: MemoryStore) -> None:
    """Success is recorded once, under the claim's lease, with nothing scheduled or published."""
    heard = Heard()
    message = await claimed(store)
    attempt = await settle(settler_on(store, heard), message, OK)

    record = store.messages[message.message_id]
    assert (record.state, record.attempts, record.lease_id) == ("delivered", [attempt], None)
    assert attempt.response_excerpt == "thanks"
    assert (heard, store.published[1:], store.dead_letters) == (Heard(), [], [])


async def test_a_failure_with_retries_left_is_scheduled_by_the_retry_delay_expression(
    store: MemoryStore,
) -> None:
    """The next attempt waits what ``retry_delay`` says for the next retry, and the engine hears
    the time; the default backoff is not asked.
    """
    heard = Heard()
    asked: list[int] = []

    def backoff(retried: int) -> float:
        asked.append(retried)
        return 0.0

    settler = settler_on(store, heard, default_retry_delay=backoff)
    message = await claimed(store, retries=3, retry_delay="1000 * pow(2, retried)")
    before = time.time()
    await settle(settler, message, BOOM, retried=1)
    after = time.time()

    record = store.messages[message.message_id]
    assert record.state == "scheduled"
    assert record.next_attempt_at is not None
    # Retry number 2 comes next: 1000 * 2 ** 2 ms.
    assert before + 4.0 <= record.next_attempt_at <= after + 4.0
    assert heard.retries == [record.next_attempt_at]
    assert (asked, heard.callbacks, store.dead_letters) == ([], 0, [])


async def test_without_retry_delay_the_default_backoff_decides(store: MemoryStore) -> None:
    """A message without ``retry_delay``, or with one that cannot be evaluated any more, waits
    what the default backoff gives for the next retry.
    """
    heard = Heard()
    asked: list[int] = []

    def backoff(retried: int) -> float:
        asked.append(retried)
        return 60_000.0

    settler = settler_on(store, heard, default_retry_delay=backoff)
    plain = await claimed(store, retry_delay=None)
    broken = await claimed(store, retry_delay="1 / (retried - 1)")
    before = time.time()
    await settle(settler, plain, BOOM)
    await settle(settler, broken, BOOM)

    assert asked == [1, 1]
    for message in (plain, broken):
        next_attempt_at = store.messages[message.message_id].next_attempt_at
        assert next_attempt_at is not None and next_attempt_at >= before + 60.0


async def test_a_failure_with_no_retries_left_is_a_dead_letter(store: MemoryStore) -> None:
    """The attempt made at ``retried == retries`` fails the message for good."""
    heard = Heard()
    message = await claimed(store, retries=2)
    await settle(settler_on(store, heard), message, BOOM, retried=2)

    record = store.messages[message.message_id]
    assert (record.state, record.next_attempt_at) == ("failed", None)
    assert store.dead_letters == [message.message_id]
    assert heard == Heard()


async def test_a_success_publishes_the_callback_message(store: MemoryStore) -> None:
    """The callback is a new message to the callback URL carrying the outcome, deduplicated by
    source and attempt, retried as the settings say; the engine is woken for it.
    """
    heard = Heard()
    message = await claimed(
        store,
        body=b"payload",
        callback="http://127.0.0.1:9/done",
        failure_callback="http://127.0.0.1:9/failed",
    )
    await settle(settler_on(store, heard), message, OK)

    (callback,) = store.published[1:]
    assert (callback.url, callback.method, callback.content_type) == (
        "http://127.0.0.1:9/done",
        "POST",
        "application/json",
    )
    assert callback.headers == {
        CALLBACK_HEADER: "success",
        SOURCE_MESSAGE_HEADER: message.message_id,
    }
    assert callback.dedup_key == f"spool-callback:success:{message.message_id}:1"
    assert (callback.retries, callback.timeout) == (3, message.timeout)
    outcome = callback_outcome(callback)
    assert (outcome["state"], outcome["status"], outcome["attempts"], outcome["error"]) == (
        "delivered",
        200,
        1,
        None,
    )
    assert outcome["headers"] == {"content-type": "text/plain"}
    assert base64.b64decode(outcome["body"]) == b"thanks"
    assert base64.b64decode(outcome["source_body"]) == b"payload"
    assert heard.callbacks == 1
    assert store.messages[message.message_id].state == "delivered"


async def test_running_out_publishes_the_failure_callback_only(store: MemoryStore) -> None:
    """A dead letter sends its failure callback, never the success one; a retry sends neither."""
    heard = Heard()
    settler = settler_on(store, heard)
    urls = {"callback": "http://127.0.0.1:9/done", "failure_callback": "http://127.0.0.1:9/failed"}
    retrying = await claimed(store, retries=1, **urls)
    failing = await claimed(store, retries=1, **urls)
    await settle(settler, retrying, BOOM, retried=0)
    assert store.published[2:] == []

    await settle(settler, failing, BOOM, retried=1)
    (callback,) = store.published[2:]
    assert callback.url == "http://127.0.0.1:9/failed"
    assert callback.headers[CALLBACK_HEADER] == "failure"
    assert callback.dedup_key == f"spool-callback:failure:{failing.message_id}:1"
    outcome = callback_outcome(callback)
    assert (outcome["state"], outcome["status"], outcome["error"]) == (
        "failed",
        500,
        "HTTP 500 Internal Server Error",
    )
    assert base64.b64decode(outcome["body"]) == b"boom"
    assert store.dead_letters == [failing.message_id]


async def test_a_failed_store_write_leaves_the_message_to_its_lease(
    store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    """At least once: when recording fails, settle logs and returns, the message stays claimed
    until its lease ends and is claimed again, and the callback already enqueued is not
    enqueued twice by the next attempt.
    """
    heard = Heard()
    settler = settler_on(store, heard)
    message = await claimed(store, callback="http://127.0.0.1:9/done")
    store.fail_next_record = True
    await settle(settler, message, OK)

    record = store.messages[message.message_id]
    assert (record.state, record.attempts, record.lease_id) == ("delivering", [], message.lease_id)
    assert "recording attempt 1 of message" in caplog.text
    assert len(store.callbacks()) == 1
    assert record.next_attempt_at is not None
    (again,) = await store.claim_due_messages(
        now=record.next_attempt_at, limit=1, lease_margin=30.0
    )
    assert again.lease_id != message.lease_id

    await settle(settler, again, OK)
    assert store.messages[message.message_id].state == "delivered"
    assert len(store.callbacks()) == 1


async def test_a_callback_that_cannot_be_enqueued_still_settles_the_message(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Losing a callback is logged; sending the message again would be worse."""
    message = await claimed(store, callback="http://127.0.0.1:9/done")

    async def unavailable(*_args: object, **_options: object) -> list[MessageReceipt]:
        raise StoreUnavailableError("Redis does not answer")

    monkeypatch.setattr(store, "publish_messages", unavailable)
    await settle(settler_on(store, Heard()), message, OK)
    assert store.messages[message.message_id].state == "delivered"
    assert "could not enqueue its success callback" in caplog.text


async def test_a_lease_taken_over_records_nothing_and_publishes_no_callback(
    store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    """Once another claim replaced the lease, that claim's holder settles the message."""
    heard = Heard()
    message = await claimed(store, callback="http://127.0.0.1:9/done")
    store.take_over(message.message_id)
    await settle(settler_on(store, heard), message, OK)

    assert store.messages[message.message_id].attempts == []
    assert store.callbacks() == []
    assert heard == Heard()
    assert "another claim took over its lease" in caplog.text


async def test_a_lease_this_process_renewed_is_settled_under(store: MemoryStore) -> None:
    """When the lease changes while settling because this process claimed the message again,
    the attempt is recorded under the renewed lease.
    """
    message = await claimed(store)
    assert message.lease_id is not None
    lease = {"current": message.lease_id}
    record_attempt = store.record_attempt

    async def renewed_meanwhile(
        message_id: str, attempt: DeliveryAttemptRecord, **options: Any
    ) -> MessageRecord:
        if options["lease_id"] == message.lease_id:
            store.take_over(message_id)
            renewed = store.messages[message_id].lease_id
            assert renewed is not None
            lease["current"] = renewed
        return await record_attempt(message_id, attempt, **options)

    store.record_attempt = renewed_meanwhile  # type: ignore[method-assign]
    attempt = attempt_record(message, OK, started_at=time.time(), duration_ms=1)
    await settler_on(store, Heard()).settle(
        message, attempt, OK, retried=0, current_lease=lambda: lease["current"]
    )
    assert store.messages[message.message_id].state == "delivered"
    assert store.messages[message.message_id].attempts == [attempt]
