"""The service's OpenTelemetry spans: a SERVER span per HTTP request that continues the caller's
trace (its ``traceparent`` header), and a CLIENT span per delivery attempt, a child of the trace
its message was published under, whose context the attempt sends on as ``traceparent``.

Imported only when server/tracing.py finds tracing in use.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from opentelemetry import context, propagate, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .stores.base import MessageRecord

__all__ = ["DeliveryTracing", "TracingMiddleware"]

_TRACER_NAME = "spool.server"


class TracingMiddleware:
    """Runs each HTTP request in a SERVER span continuing the trace its headers carry."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self._tracer = trace.get_tracer(_TRACER_NAME)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request inside its span, named by its route once routing found one."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        carrier = {
            name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]
        }
        method = scope["method"]
        with self._tracer.start_as_current_span(
            method,
            context=propagate.extract(carrier),
            kind=SpanKind.SERVER,
            attributes={"http.request.method": method, "url.path": scope["path"]},
        ) as span:

            async def send_noting_status(message: Message) -> None:
                if message["type"] == "http.response.start":
                    status = int(message["status"])
                    span.set_attribute("http.response.status_code", status)
                    if status >= 500:
                        span.set_status(Status(StatusCode.ERROR))
                await send(message)

            try:
                await self._app(scope, receive, send_noting_status)
            finally:
                route = getattr(scope.get("route"), "path", None)
                if route is not None:
                    span.update_name(f"{method} {route}")
                    span.set_attribute("http.route", route)


class DeliveryTracing:
    """Runs each delivery attempt in a CLIENT span of the trace its message was published under."""

    __slots__ = ("_tracer",)

    def __init__(self) -> None:
        self._tracer = trace.get_tracer(_TRACER_NAME)

    @contextlib.contextmanager
    def delivering(self, message: MessageRecord) -> Iterator[tuple[Span, dict[str, str]]]:
        """The attempt's span, and the trace context headers that carry it to the receiver."""
        # A message published untraced starts a trace of its own, not one of the engine's loop.
        parent = (
            context.Context()
            if message.traceparent is None
            else propagate.extract({"traceparent": message.traceparent})
        )
        with self._tracer.start_as_current_span(
            message.method,
            context=parent,
            kind=SpanKind.CLIENT,
            attributes={
                "http.request.method": message.method,
                "url.full": message.url,
                "messaging.system": "spool",
                "messaging.message.id": message.message_id,
            },
        ) as span:
            headers: dict[str, str] = {}
            propagate.inject(headers)
            yield span, headers

    @staticmethod
    def outcome(span: Span, *, status_code: int | None, error: str | None) -> None:
        """Record what the attempt got back on its span."""
        if status_code is not None:
            span.set_attribute("http.response.status_code", status_code)
        if error is not None:
            span.set_status(Status(StatusCode.ERROR, error))
