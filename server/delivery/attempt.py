"""One delivery attempt: the signed request to the message's URL, and what came back.

An attempt sends the message's method, exact body bytes, content type and forwarded headers, plus
``Spool-Signature`` (see server/signing.py), ``Spool-Message-Id``, ``Spool-Retried`` and, when
the message was published with one, ``traceparent``: its publisher's, or with tracing in use
(server/tracing.py) that of the attempt's own CLIENT span in the publisher's trace. Its
``timeout`` bounds the whole exchange; the answer's body is read up to
``MAX_CAPTURED_RESPONSE_BYTES``. Nothing here raises for what a receiver or the network does: every
failure, a refused destination included, is an :class:`AttemptResult` with an ``error``, which
server/delivery/settle.py turns into a retry or a dead letter.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time

import httpx

from ..destinations import DestinationNotAllowed, DestinationPolicy
from ..signing import (
    SIGNATURE_HEADER,
    STANDARD_WEBHOOKS_HEADERS,
    SigningKeys,
    sign,
    standard_webhooks_headers,
)
from ..stores.base import DeliveryAttemptRecord, MessageRecord
from ..tracing import tracing_in_use

__all__ = [
    "INTERRUPTED",
    "MAX_CAPTURED_RESPONSE_BYTES",
    "MESSAGE_ID_HEADER",
    "RESPONSE_EXCERPT_CHARS",
    "RETRIED_HEADER",
    "TRACEPARENT_HEADER",
    "AttemptResult",
    "Sender",
    "attempt_record",
]

logger = logging.getLogger("spool.delivery")

MESSAGE_ID_HEADER = "Spool-Message-Id"
RETRIED_HEADER = "Spool-Retried"
TRACEPARENT_HEADER = "traceparent"

RESPONSE_EXCERPT_CHARS = 2048
MAX_CAPTURED_RESPONSE_BYTES = 256 * 1024

# Framing and hop-by-hop headers belong to each connection, and the engine sets the Spool-* ones;
# forwarding a caller's copy would corrupt the request or forge the engine's own headers.
_NOT_FORWARDED = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "upgrade",
        "te",
        "trailer",
        "proxy-authorization",
        "proxy-connection",
        SIGNATURE_HEADER.lower(),
        MESSAGE_ID_HEADER.lower(),
        RETRIED_HEADER.lower(),
        *STANDARD_WEBHOOKS_HEADERS,
    }
)

# Sent unless the message forwards its own.
_DEFAULT_HEADERS = {"User-Agent": "Spool-Delivery/0.1", "Accept": "*/*"}


@dataclasses.dataclass(frozen=True, slots=True)
class AttemptResult:
    """What one attempt got back, or why it got nothing."""

    status_code: int | None = None
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    body: bytes = b""
    body_truncated: bool = False
    error: str | None = None

    @property
    def succeeded(self) -> bool:
        """True for a 2xx answer."""
        return self.error is None and self.status_code is not None and 200 <= self.status_code < 300


# The result of an attempt that stop() cut short.
INTERRUPTED = AttemptResult(error="interrupted: the service stopped during this attempt")


def attempt_record(
    message: MessageRecord, result: AttemptResult, *, started_at: float, duration_ms: int
) -> DeliveryAttemptRecord:
    """The store's record of ``result``, the next attempt in ``message``'s history."""
    return DeliveryAttemptRecord(
        attempt=len(message.attempts) + 1,
        started_at=started_at,
        duration_ms=duration_ms,
        status_code=result.status_code,
        response_excerpt=(
            result.body.decode("utf-8", errors="replace")[:RESPONSE_EXCERPT_CHARS]
            if result.status_code is not None
            else None
        ),
        error=result.error,
    )


@functools.lru_cache(maxsize=4096)
def _url(url: str) -> httpx.URL:
    # httpx parses a URL given as text again for every request; a parsed one is immutable.
    return httpx.URL(url)


@functools.lru_cache(maxsize=64)
def _phase_timeouts(seconds: int) -> dict[str, float]:
    return httpx.Timeout(seconds).as_dict()  # type: ignore[return-value]


class Sender:
    """Sends one attempt of a message through an HTTP transport and reports what came back.

    ``vetting_transport`` says the transport vets every address it connects to (as
    server/delivery/transport.py's does), so an attempt need not resolve the destination first; a
    transport of the caller's own gets the policy's full check, resolution included, per attempt.
    """

    def __init__(
        self,
        *,
        signing_keys: SigningKeys,
        signature_ttl: float,
        policy: DestinationPolicy,
        vetting_transport: bool,
    ) -> None:
        self._signing_keys = signing_keys
        self._signature_ttl = signature_ttl
        self._policy = policy
        self._vetting_transport = vetting_transport
        self._tracing = None
        if tracing_in_use():
            from ..otel import DeliveryTracing

            self._tracing = DeliveryTracing()

    async def send(
        self, message: MessageRecord, *, retried: int, transport: httpx.AsyncBaseTransport
    ) -> AttemptResult:
        """Attempt ``message`` (its ``retried``-th retry) through ``transport``."""
        if self._tracing is None:
            return await self._send(message, retried=retried, transport=transport, trace=None)
        with self._tracing.delivering(message) as (span, trace):
            result = await self._send(message, retried=retried, transport=transport, trace=trace)
            self._tracing.outcome(span, status_code=result.status_code, error=result.error)
        return result

    async def _send(
        self,
        message: MessageRecord,
        *,
        retried: int,
        transport: httpx.AsyncBaseTransport,
        trace: dict[str, str] | None,
    ) -> AttemptResult:
        try:
            # Checked again at delivery time: DNS may now point the name somewhere refused. The
            # default transport does that for every connection it opens, at the address it connects to.
            await self._policy.check(message.url, resolve=not self._vetting_transport)
        except DestinationNotAllowed as error:
            return AttemptResult(error=f"destination not allowed: {error}")
        request = httpx.Request(
            message.method,
            _url(message.url),
            content=message.body,
            headers=self.headers(message, retried=retried, trace=trace),
            # httpx's timeout bounds each phase of the exchange.
            extensions={"timeout": _phase_timeouts(message.timeout)},
        )
        try:
            # This bounds the whole attempt, so a receiver that trickles its answer byte by byte
            # still fails at ``timeout``.
            async with asyncio.timeout(message.timeout):
                answer = await transport.handle_async_request(request)
                try:
                    body, truncated = await _read_capped(answer)
                finally:
                    await answer.aclose()
        except (TimeoutError, httpx.TimeoutException):
            return AttemptResult(error=f"timed out after {message.timeout} s")
        except httpx.HTTPError as error:
            return AttemptResult(error=f"{type(error).__name__}: {error}".rstrip(": "))
        except Exception as error:
            logger.exception("message %s: unexpected delivery error", message.message_id)
            return AttemptResult(error=f"{type(error).__name__}: {error}".rstrip(": "))
        status = answer.status_code
        return AttemptResult(
            status_code=status,
            headers=dict(answer.headers.items()),
            body=body,
            body_truncated=truncated,
            error=None if 200 <= status < 300 else f"HTTP {status} {answer.reason_phrase}".strip(),
        )

    def headers(
        self, message: MessageRecord, *, retried: int, trace: dict[str, str] | None = None
    ) -> httpx.Headers:
        """The request's headers: the message's own that may be forwarded, then its trace context
        (``trace``, the attempt span's headers, else the ``traceparent`` it was published with),
        then the signed ones.
        """
        headers = httpx.Headers(_DEFAULT_HEADERS)
        for name, value in message.headers.items():
            if name.lower() not in _NOT_FORWARDED:
                headers[name] = value
        if trace is not None:
            headers.update(trace)
        elif message.traceparent is not None:
            headers[TRACEPARENT_HEADER] = message.traceparent
        headers["Content-Type"] = message.content_type
        now = time.time()
        if message.signature_scheme == "standard_webhooks":
            headers.update(
                standard_webhooks_headers(
                    self._signing_keys, message_id=message.message_id, body=message.body, now=now
                )
            )
        else:
            headers[SIGNATURE_HEADER] = sign(
                self._signing_keys.current,
                url=message.url,
                body=message.body,
                now=now,
                ttl=self._signature_ttl,
            )
        headers[MESSAGE_ID_HEADER] = message.message_id
        headers[RETRIED_HEADER] = str(retried)
        return headers


async def _read_capped(response: httpx.Response) -> tuple[bytes, bool]:
    """The body up to ``MAX_CAPTURED_RESPONSE_BYTES``, and whether more was left unread."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        room = MAX_CAPTURED_RESPONSE_BYTES - size
        if len(chunk) > room:
            chunks.append(chunk[:room])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False
