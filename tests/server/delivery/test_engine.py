"""The delivery engine against an in-memory store and real HTTP receivers on loopback."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Literal

import httpx
import pytest

from sdk._receiver import Receiver
from server.delivery import (
    CALLBACK_HEADER,
    RESPONSE_EXCERPT_CHARS,
    SOURCE_MESSAGE_HEADER,
    DeliveryEngine,
    DeliverySettings,
)
from server.destinations import DestinationPolicy
from server.ids import new_id
from server.signing import SigningKeys
from server.stores.base import (
    ConflictError,
    DeliveryAttemptRecord,
    MessageLease,
    MessageReceipt,
    MessageRecord,
    NewMessage,
    StoreUnavailableError,
)
from tests.server._support import eventually

KEYS = SigningKeys(current="sig_test_current", next="sig_test_next")
RECEIVER = Receiver(KEYS.current, KEYS.next)
LOOPBACK = DestinationPolicy(["127.0.0.1"])


# An in-memory store: just the methods the engine uses, with the contract's semantics ------------


class MemoryStore:
    """Claims, attempts, dead letters and deduplicated publishing, kept in dicts."""

    def __init__(self) -> None:
        self.messages: dict[str, MessageRecord] = {}
        self.dead_letters: list[str] = []
        self.dedup: dict[str, tuple[str, float]] = {}
        self.published: list[NewMessage] = []
        self.fail_next_record = False
        self.next_record_delay = 0.0

    async def publish_messages(
        self, messages: Sequence[NewMessage], *, lease: MessageLease | None = None
    ) -> list[MessageReceipt]:
        """Create scheduled messages; a live ``dedup_key`` returns the earlier id."""
        if lease is not None:
            self._require_current_lease(lease.message_id, lease.lease_id)
        receipts = []
        now = time.time()
        for new in messages:
            self.published.append(new)
            if new.dedup_key is not None and new.dedup_key in self.dedup:
                earlier, created_at = self.dedup[new.dedup_key]
                if now - created_at < new.dedup_window:
                    receipts.append(MessageReceipt(earlier, new.url, deduplicated=True))
                    continue
            message_id = new_id("msg")
            self.messages[message_id] = MessageRecord(
                message_id=message_id,
                url=new.url,
                body=new.body,
                content_type=new.content_type,
                method=new.method,
                headers=dict(new.headers),
                state="scheduled",
                retries=new.retries,
                timeout=new.timeout,
                created_at=now,
                not_before=new.not_before,
                attempts=[],
                retries_used=0,
                next_attempt_at=new.not_before,
                url_group=new.url_group,
                retry_delay=new.retry_delay,
                callback=new.callback,
                failure_callback=new.failure_callback,
                deduplication_id=new.deduplication_id,
            )
            if new.dedup_key is not None:
                self.dedup[new.dedup_key] = (message_id, now)
            receipts.append(MessageReceipt(message_id, new.url, deduplicated=False))
        return receipts

    async def claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """Move due scheduled (or lease-expired delivering) messages to delivering."""
        claimed: list[MessageRecord] = []
        for message in list(self.messages.values()):
            if len(claimed) == limit:
                break
            due = message.next_attempt_at is not None and message.next_attempt_at <= now
            if message.state in ("scheduled", "delivering") and due:
                leased = dataclasses.replace(
                    message,
                    state="delivering",
                    next_attempt_at=now + message.timeout + lease_margin,
                    lease_id=new_id("lease"),
                )
                self.messages[message.message_id] = leased
                claimed.append(leased)
        return claimed

    async def record_attempt(
        self,
        message_id: str,
        attempt: DeliveryAttemptRecord,
        *,
        lease_id: str,
        outcome: Literal["delivered", "retry", "failed"],
        next_attempt_at: float | None = None,
    ) -> MessageRecord:
        """Append the attempt and settle the message as the contract says."""
        delay, self.next_record_delay = self.next_record_delay, 0.0
        await asyncio.sleep(delay)
        if self.fail_next_record:
            self.fail_next_record = False
            raise ConnectionError("store unavailable")
        self._require_current_lease(message_id, lease_id)
        message = self.messages[message_id]
        states = {"delivered": "delivered", "retry": "scheduled", "failed": "failed"}
        settled = dataclasses.replace(
            message,
            attempts=[*message.attempts, attempt],
            retries_used=message.retries_used + 1,
            state=states[outcome],  # type: ignore[arg-type]
            next_attempt_at=next_attempt_at if outcome == "retry" else None,
            lease_id=None,
        )
        self.messages[message_id] = settled
        if outcome == "failed":
            self.dead_letters.append(message_id)
        return settled

    async def next_due_at(self) -> float | None:
        """The earliest next attempt of a scheduled or delivering message."""
        times = [
            message.next_attempt_at
            for message in self.messages.values()
            if message.state in ("scheduled", "delivering") and message.next_attempt_at is not None
        ]
        return min(times, default=None)

    def take_over(self, message_id: str) -> None:
        """Claim the message again under a new lease, as another process would once it ended."""
        self.messages[message_id] = dataclasses.replace(
            self.messages[message_id], state="delivering", lease_id=new_id("lease")
        )

    def _require_current_lease(self, message_id: str, lease_id: str) -> None:
        message = self.messages[message_id]
        if message.state != "delivering" or message.lease_id != lease_id:
            raise ConflictError("lease_expired", f"{lease_id} is not {message_id}'s lease")

    def callbacks(self) -> list[MessageRecord]:
        """The internal callback messages the engine enqueued."""
        return [m for m in self.messages.values() if CALLBACK_HEADER in m.headers]


# A scriptable HTTP receiver on 127.0.0.1 --------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Reply:
    """What the receiver does for one request: answer after ``delay`` s, or hang until closed."""

    status: int = 200
    body: bytes = b"ok"
    delay: float = 0.0
    hang: bool = False
    headers: tuple[tuple[str, str], ...] = ()


HANG = Reply(hang=True)


@dataclasses.dataclass(frozen=True)
class Received:
    """One request the receiver got."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    at: float


class Endpoint:
    """A tiny HTTP/1.1 server that follows a script of replies (the last one repeats)."""

    def __init__(self, script: Sequence[Reply]) -> None:
        self.script = list(script) or [Reply()]
        self.requests: list[Received] = []
        self._release = asyncio.Event()
        self._handlers: set[asyncio.Task[Any]] = set()
        self._server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        """Listen on a free loopback port."""
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def url(self, path: str = "/hook") -> str:
        """The URL of ``path`` on this receiver."""
        return f"http://127.0.0.1:{self.port}{path}"

    async def close(self) -> None:
        """Stop listening and end every connection, hanging ones included."""
        self._release.set()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            request_line = (await reader.readline()).decode("latin-1").split()
            if len(request_line) < 2:
                return
            headers: dict[str, str] = {}
            while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            reply = self.script[min(len(self.requests), len(self.script) - 1)]
            self.requests.append(
                Received(request_line[0], request_line[1], headers, body, time.time())
            )
            if reply.hang:
                await self._release.wait()
                return
            await asyncio.sleep(reply.delay)
            head = [f"HTTP/1.1 {reply.status} Scripted", f"Content-Length: {len(reply.body)}"]
            head += ["Connection: close", "Content-Type: text/plain; charset=utf-8"]
            head += [f"{name}: {value}" for name, value in reply.headers]
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + reply.body)
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()
            self._handlers.discard(task)


# Fixtures and helpers ---------------------------------------------------------------------------

EndpointFactory = Callable[..., Awaitable[Endpoint]]
EngineFactory = Callable[..., DeliveryEngine]


@pytest.fixture
async def endpoint() -> AsyncIterator[EndpointFactory]:
    """Start receivers following a script of replies; all are closed after the test."""
    started: list[Endpoint] = []

    async def start(*script: Reply) -> Endpoint:
        receiver = Endpoint(script)
        await receiver.start()
        started.append(receiver)
        return receiver

    yield start
    for receiver in started:
        await receiver.close()


@pytest.fixture
def store() -> MemoryStore:
    """A fresh in-memory store."""
    return MemoryStore()


@pytest.fixture
async def engine(store: MemoryStore) -> AsyncIterator[EngineFactory]:
    """Build and start engines on the test store with fast polling; all are stopped afterwards."""
    engines: list[DeliveryEngine] = []

    def build(
        *,
        http_transport_factory: Callable[[], httpx.AsyncBaseTransport] | None = None,
        **options: Any,
    ) -> DeliveryEngine:
        settings: dict[str, Any] = {
            "signing_keys": KEYS,
            "policy": LOOPBACK,
            "poll_interval": 0.02,
            "lease_margin": 30.0,
            "default_retry_delay": lambda retried: 10.0,
        }
        settings.update(options)
        built = DeliveryEngine(
            store,
            DeliverySettings(**settings),
            http_transport_factory=http_transport_factory,
        )
        engines.append(built)
        return built

    yield build
    for built in engines:
        await built.stop()


def new_message(url: str, **options: Any) -> NewMessage:
    """A message to ``url`` due now, with test-friendly defaults."""
    fields: dict[str, Any] = {
        "url": url,
        "body": b'{"hello":"world"}',
        "content_type": "application/json",
        "method": "POST",
        "headers": {},
        "not_before": time.time(),
        "retries": 3,
        "timeout": 5,
        "retry_delay": "10",
    }
    fields.update(options)
    return NewMessage(**fields)


async def publish(store: MemoryStore, message: NewMessage) -> str:
    """Publish one message and return its id."""
    (receipt,) = await store.publish_messages([message])
    return receipt.message_id


def settled(store: MemoryStore, message_id: str) -> Callable[[], bool]:
    """A condition: the message is delivered or failed."""
    return lambda: store.messages[message_id].state in ("delivered", "failed")


# Tests ------------------------------------------------------------------------------------------


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


async def test_not_delivered_before_not_before(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A message scheduled in the future arrives only once its time has come."""
    receiver = await endpoint(Reply(200))
    not_before = time.time() + 1.0
    message_id = await publish(store, new_message(receiver.url(), not_before=not_before))
    await engine().start()
    await eventually(settled(store, message_id))
    assert receiver.requests[0].at >= not_before


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


async def test_lease_ending_mid_attempt_does_not_send_twice(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A message this process claims again while settling it is recorded under the new lease."""
    receiver = await endpoint(Reply(200, delay=0.2))
    message_id = await publish(store, new_message(receiver.url(), timeout=1))
    store.next_record_delay = 1.5
    await engine(lease_margin=0.0).start()
    await eventually(settled(store, message_id))
    assert len(receiver.requests) == 1
    assert len(store.messages[message_id].attempts) == 1
    assert store.messages[message_id].state == "delivered"


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


async def test_many_messages_are_delivered_with_bounded_concurrency(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """More messages than the batch and concurrency limits are all delivered once."""
    receiver = await endpoint(Reply(200, delay=0.01))
    ids = [
        await publish(store, new_message(receiver.url(f"/m/{n}"), body=str(n).encode()))
        for n in range(30)
    ]
    await engine(batch=4, concurrency=3).start()
    await eventually(lambda: all(settled(store, message_id)() for message_id in ids))
    assert sorted(request.body for request in receiver.requests) == sorted(
        str(n).encode() for n in range(30)
    )


class GatedTransport:
    """An HTTP transport whose requests wait at a gate the test opens; it counts how many are in
    flight at once.
    """

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.in_flight = 0
        self.most_in_flight = 0
        self.started = 0

    async def handle(self, request: httpx.Request) -> httpx.Response:
        """Answer 200 once the gate opens."""
        self.started += 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await self.gate.wait()
        finally:
            self.in_flight -= 1
        return httpx.Response(200, text="ok")

    def transport(self) -> httpx.AsyncBaseTransport:
        """An HTTP transport factory's product that answers through ``handle``."""
        return httpx.MockTransport(self.handle)


def record_claims(store: MemoryStore) -> list[tuple[int, int]]:
    """Wrap the store's claim to note each claim's ``limit`` and how many messages it took."""
    claims: list[tuple[int, int]] = []
    real_claim = store.claim_due_messages

    async def claim(*, now: float, limit: int, lease_margin: float) -> list[MessageRecord]:
        claimed = await real_claim(now=now, limit=limit, lease_margin=lease_margin)
        claims.append((limit, len(claimed)))
        return claimed

    store.claim_due_messages = claim  # type: ignore[method-assign]
    return claims


async def test_one_claim_takes_as_many_due_messages_as_slots_are_free(
    store: MemoryStore, engine: EngineFactory
) -> None:
    """Due messages are claimed in one batch up to the free slots, never more than are free, and
    no more are sent at once than ``concurrency`` allows.
    """
    transport = GatedTransport()
    ids = [await publish(store, new_message(f"http://127.0.0.1:9/m/{n}")) for n in range(12)]
    claims = record_claims(store)
    await engine(concurrency=5, batch=50, http_transport_factory=transport.transport).start()
    await eventually(lambda: transport.started == 5)
    await asyncio.sleep(0.1)
    assert claims == [(5, 5)]
    assert transport.started == 5

    transport.gate.set()
    await eventually(lambda: all(settled(store, message_id)() for message_id in ids))
    assert transport.most_in_flight <= 5
    assert all(limit <= 5 for limit, _ in claims)
    assert sum(taken for _, taken in claims) == 12


async def test_a_future_message_is_sent_at_its_due_time_without_a_poll(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """The engine sleeps until the store's next due time: with an hour-long poll, only that wake-up
    can deliver a message due in a moment.
    """
    receiver = await endpoint(Reply(200))
    message_id = await publish(store, new_message(receiver.url(), not_before=time.time() + 0.3))
    await engine(poll_interval=3600.0).start()
    await eventually(settled(store, message_id))
    assert len(receiver.requests) == 1


async def test_a_message_published_after_start_is_found_after_the_wake(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A publish in this process wakes the engine, which then also learns a later due time."""
    receiver = await endpoint(Reply(200))
    delivery = engine(poll_interval=3600.0)
    await delivery.start()
    now_id = await publish(store, new_message(receiver.url("/now")))
    later_id = await publish(
        store, new_message(receiver.url("/later"), not_before=time.time() + 0.3)
    )
    delivery.wake()
    await eventually(settled(store, now_id))
    await eventually(settled(store, later_id))


async def test_a_retry_this_process_scheduled_wakes_it(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """The engine wakes for a retry it scheduled itself, however long its poll is."""
    receiver = await endpoint(Reply(500), Reply(200))
    message_id = await publish(store, new_message(receiver.url(), retry_delay="200"))
    await engine(poll_interval=3600.0).start()
    await eventually(settled(store, message_id))
    assert [a.status_code for a in store.messages[message_id].attempts] == [500, 200]


async def test_the_poll_finds_what_another_process_scheduled(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A message written by another process (no wake-up here) is found by the fallback poll."""
    receiver = await endpoint(Reply(200))
    await engine(poll_interval=0.05).start()
    await asyncio.sleep(0.1)
    message_id = await publish(store, new_message(receiver.url()))
    await eventually(settled(store, message_id))


async def test_an_idle_engine_sleeps_until_the_next_due_time(
    store: MemoryStore, engine: EngineFactory
) -> None:
    """With only a message due in an hour, the engine claims once and reads the due time once,
    then sleeps instead of asking the store again and again.
    """
    await publish(store, new_message("http://127.0.0.1:9/later", not_before=time.time() + 3600))
    claims = record_claims(store)
    reads: list[float | None] = []
    real_next_due_at = store.next_due_at

    async def next_due_at() -> float | None:
        reads.append(await real_next_due_at())
        return reads[-1]

    store.next_due_at = next_due_at  # type: ignore[method-assign]
    await engine(poll_interval=3600.0).start()
    await eventually(lambda: len(reads) == 1)
    await asyncio.sleep(0.2)
    assert claims == [(50, 0)]
    assert len(reads) == 1


async def test_a_failing_next_due_time_falls_back_to_the_poll(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """When the store cannot tell the next due time, the poll still finds the message."""
    receiver = await endpoint(Reply(200))

    async def unavailable() -> float | None:
        raise StoreUnavailableError("Redis does not answer")

    store.next_due_at = unavailable  # type: ignore[method-assign]
    message_id = await publish(store, new_message(receiver.url(), not_before=time.time() + 0.2))
    await engine(poll_interval=0.05).start()
    await eventually(settled(store, message_id))


async def test_stop_interrupts_hanging_attempts_and_reschedules_them(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """Stopping records an interrupted attempt, so the message is retried instead of stranded."""
    receiver = await endpoint(HANG)
    message_id = await publish(store, new_message(receiver.url(), timeout=60))
    delivery = engine(shutdown_grace=0.05)
    await delivery.start()
    await eventually(lambda: len(receiver.requests) == 1)
    await delivery.stop()

    record = store.messages[message_id]
    assert record.state == "scheduled"
    (attempt,) = record.attempts
    assert attempt.error == "interrupted: the service stopped during this attempt"
    assert not delivery.running


async def test_engine_start_stop_and_arguments(store: MemoryStore) -> None:
    """Starting twice is an error, stopping twice is harmless, and bad settings are refused."""
    delivery = DeliveryEngine(
        store, DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, poll_interval=0.01)
    )
    await delivery.start()
    assert delivery.running
    with pytest.raises(RuntimeError, match="already running"):
        await delivery.start()
    delivery.wake()
    await delivery.stop()
    await delivery.stop()
    with pytest.raises(ValueError, match="poll_interval"):
        DeliveryEngine(store, DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, poll_interval=0))
    with pytest.raises(ValueError, match="concurrency"):
        DeliveryEngine(store, DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, concurrency=0))
    with pytest.raises(ValueError, match="lease_margin"):
        DeliveryEngine(store, DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, lease_margin=-1))
    with pytest.raises(ValueError, match="stop_timeout"):
        DeliveryEngine(store, DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, stop_timeout=0))


class CancellationSwallowingStore(MemoryStore):
    """A store whose claims hang until released and swallow cancellation, as redis-py sometimes
    does: ``on_cancel`` says what a cancelled claim does instead of ending.
    """

    def __init__(self, on_cancel: Literal["return", "unavailable", "keep_waiting"]) -> None:
        super().__init__()
        self.on_cancel = on_cancel
        self.claims = 0
        self.cancellations = 0
        self.claiming = asyncio.Event()
        self.release = asyncio.Event()
        self.claimer: asyncio.Task[Any] | None = None

    async def claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """Wait for ``release``; a cancellation meanwhile is handled as ``on_cancel`` says."""
        self.claims += 1
        self.claimer = asyncio.current_task()
        self.claiming.set()
        while True:
            try:
                await self.release.wait()
                return []
            except asyncio.CancelledError:
                self.cancellations += 1
                if self.on_cancel == "return":
                    return []
                if self.on_cancel == "unavailable":
                    raise StoreUnavailableError("connection lost while cancelling") from None


@pytest.mark.parametrize("on_cancel", ["return", "unavailable"])
async def test_stop_returns_when_the_store_swallows_the_cancellation(
    on_cancel: Literal["return", "unavailable"],
) -> None:
    """A claim that turns its cancellation into a result or an outage ends the loop all the same."""
    store = CancellationSwallowingStore(on_cancel)
    delivery = DeliveryEngine(
        store,
        DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, poll_interval=0.01, stop_timeout=0.05),
    )
    await delivery.start()
    await asyncio.wait_for(store.claiming.wait(), timeout=30)
    async with asyncio.timeout(60):
        await delivery.stop()
    assert not delivery.running
    # The loop read the stop after the claim that swallowed it, and claimed nothing more.
    assert (store.claims, store.cancellations) == (1, 1)
    assert store.claimer is not None and store.claimer.done()


async def test_stop_gives_up_on_a_store_call_that_never_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A claim that ignores every cancellation is abandoned, logged, and stop() still returns."""
    store = CancellationSwallowingStore("keep_waiting")
    delivery = DeliveryEngine(
        store,
        DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, poll_interval=0.01, stop_timeout=0.05),
    )
    await delivery.start()
    await asyncio.wait_for(store.claiming.wait(), timeout=30)
    async with asyncio.timeout(60):
        await delivery.stop()
    assert not delivery.running
    assert "ignored its cancellation" in caplog.text

    # Once its store call returns, the abandoned loop sees its stop and ends without claiming.
    store.release.set()
    assert store.claimer is not None
    await asyncio.wait_for(store.claimer, timeout=30)
    assert store.claims == 1


async def test_stop_lets_a_claim_in_progress_finish_and_delivers_what_it_claimed(
    store: MemoryStore, endpoint: EndpointFactory
) -> None:
    """stop() waits for a slow claim instead of cancelling it; its messages get the grace."""
    receiver = await endpoint(Reply(200))
    message_id = await publish(store, new_message(receiver.url()))
    real_claim = store.claim_due_messages
    claiming = asyncio.Event()
    proceed = asyncio.Event()
    cancelled: list[bool] = []

    async def slow_claim(*, now: float, limit: int, lease_margin: float) -> list[MessageRecord]:
        claiming.set()
        try:
            await proceed.wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return await real_claim(now=now, limit=limit, lease_margin=lease_margin)

    store.claim_due_messages = slow_claim  # type: ignore[method-assign]
    delivery = DeliveryEngine(
        store, DeliverySettings(signing_keys=KEYS, policy=LOOPBACK, stop_timeout=60)
    )
    await delivery.start()
    await asyncio.wait_for(claiming.wait(), timeout=30)
    stopping = asyncio.create_task(delivery.stop())
    await asyncio.sleep(0.05)
    proceed.set()
    await asyncio.wait_for(stopping, timeout=60)
    assert cancelled == []
    assert store.messages[message_id].state == "delivered"


async def test_claim_errors_do_not_stop_the_engine(
    store: MemoryStore, endpoint: EndpointFactory, engine: EngineFactory
) -> None:
    """A store that fails to answer a claim is asked again at the next poll."""
    receiver = await endpoint(Reply(200))
    message_id = await publish(store, new_message(receiver.url()))
    real_claim = store.claim_due_messages
    failures = iter([ConnectionError("a bug"), StoreUnavailableError("Redis does not answer")])

    async def flaky_claim(*, now: float, limit: int, lease_margin: float) -> list[MessageRecord]:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return await real_claim(now=now, limit=limit, lease_margin=lease_margin)

    store.claim_due_messages = flaky_claim  # type: ignore[method-assign]
    await engine().start()
    await eventually(settled(store, message_id))


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


async def test_custom_http_transport_factory_is_used(
    store: MemoryStore, engine: EngineFactory
) -> None:
    """The HTTP transport comes from the factory, so tests and deployments can swap it."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, text="mocked")

    def factory() -> httpx.AsyncBaseTransport:
        return httpx.MockTransport(handler)

    message_id = await publish(store, new_message("http://127.0.0.1:9/mock"))
    await engine(http_transport_factory=factory).start()
    await eventually(settled(store, message_id))
    assert str(seen[0].url) == "http://127.0.0.1:9/mock"
    assert store.messages[message_id].attempts[0].response_excerpt == "mocked"


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


async def test_engine_on_each_real_store(store_url: str, endpoint: EndpointFactory) -> None:
    """On SQLite and Redis: retries, dead letter, callbacks, and a fresh budget after a retry."""
    from server.stores import store_from_url

    real = store_from_url(store_url)
    await real.open()
    delivery = DeliveryEngine(
        real,
        DeliverySettings(
            signing_keys=KEYS,
            policy=LOOPBACK,
            poll_interval=0.02,
            lease_margin=30.0,
            default_retry_delay=lambda retried: 10.0,
        ),
    )
    try:
        flaky = await endpoint(Reply(500), Reply(200, b"yay"))
        down = await endpoint(Reply(500))
        callbacks = await endpoint(Reply(200))
        await delivery.start()
        (delivered,) = await real.publish_messages(
            [new_message(flaky.url(), callback=callbacks.url("/ok"))]
        )
        (failing,) = await real.publish_messages(
            [new_message(down.url(), retries=1, failure_callback=callbacks.url("/failed"))]
        )

        async def state_of(message_id: str) -> str:
            return (await real.get_message(message_id)).state

        deadline = time.monotonic() + 15
        while (
            await state_of(delivered.message_id) != "delivered"
            or await state_of(failing.message_id) != "failed"
            or len(callbacks.requests) < 2
        ):
            assert time.monotonic() < deadline, "deliveries did not settle in time"
            await asyncio.sleep(0.02)

        statuses = [a.status_code for a in (await real.get_message(delivered.message_id)).attempts]
        assert statuses == [500, 200]
        (dead,) = await real.list_dead_letters(limit=10)
        assert (dead.message_id, dead.attempts, dead.last_status_code) == (
            failing.message_id,
            2,
            500,
        )
        assert sorted(request.path for request in callbacks.requests) == ["/failed", "/ok"]
        for request in callbacks.requests:
            RECEIVER.verify(
                request.headers["spool-signature"], request.body, url=callbacks.url(request.path)
            )

        await real.retry_dead_letter(failing.message_id)
        while len(down.requests) < 4 or await state_of(failing.message_id) != "failed":
            assert time.monotonic() < deadline + 15, "the retried dead letter did not settle"
            await asyncio.sleep(0.02)
        assert [r.headers["spool-retried"] for r in down.requests] == ["0", "1", "0", "1"]
    finally:
        await delivery.stop()
        await real.close()
