"""What the delivery tests share: an in-memory store with the contract's semantics, scriptable
HTTP receivers on loopback, and messages with test-friendly defaults.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from sdk._receiver import Receiver
from server.delivery import CALLBACK_HEADER, DeliveryEngine
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
)

__all__ = [
    "HANG",
    "KEYS",
    "LOOPBACK",
    "RECEIVER",
    "Endpoint",
    "EndpointFactory",
    "EngineFactory",
    "MemoryStore",
    "Received",
    "Reply",
    "new_message",
    "publish",
    "settled",
]

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
        self,
        messages: Sequence[NewMessage],
        *,
        lease: MessageLease | None = None,
        traceparent: str | None = None,
    ) -> list[MessageReceipt]:
        """Create scheduled messages; a live ``dedup_key`` returns the earlier id (``traceparent``
        is not kept: no test here reads it).
        """
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
                callback_headers=dict(new.callback_headers),
                failure_callback_headers=dict(new.failure_callback_headers),
                redact_body=new.redact_body,
                redact_headers=new.redact_headers,
                signature_scheme=new.signature_scheme,
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


# Helpers ----------------------------------------------------------------------------------------

EndpointFactory = Callable[..., Awaitable[Endpoint]]
EngineFactory = Callable[..., DeliveryEngine]


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
