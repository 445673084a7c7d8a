"""The ASGI app: openapi.yaml's operations over the store its settings name.

``create_app(settings)`` builds the app; its lifespan (:func:`lifespan`, also usable directly as an
async context manager in tests) opens the store, starts the background services and undoes both on
shutdown. Every response carries ``X-Request-Id``; every error is a problem+json document, including
unknown routes (404 ``not_found``), wrong methods (405 ``method_not_allowed``) and unexpected
failures (500 ``internal_error``, logged with the request id). When the settings enable
metrics, ``GET /metrics`` is served beside the document's operations (see server/metrics.py), and
when they enable the console, its pages under ``/console`` (see server/console/). A front page
at ``/`` links to what is served, and the API reference at ``/docs`` is on unless the settings turn
it off (see server/docs/).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import __version__
from .auth import TokenRegistry
from .config import DEFAULT_STORE_URL, Settings, load_settings
from .console import CONSOLE_PATH, console_routes
from .delivery import DeliveryEngine, DeliverySettings
from .destinations import DestinationPolicy
from .docs import DOCS_PATH, docs_routes
from .heap import settle_heap
from .http_protocol import READ_TIMEOUT_STATE_KEY
from .ids import new_id
from .log_pruner import LogPruner
from .metrics import Metrics
from .problems import ProblemError, problem_response
from .routes import ROUTES
from .routes._context import AppContext
from .routes._operations import bind_routes
from .routes._spec import load_spec_facts
from .schedules import Scheduler
from .stores import store_from_url
from .stores.base import StoreError
from .tracing import tracing_in_use

__all__ = [
    "REQUEST_ID_HEADER",
    "BackgroundService",
    "ServiceFactory",
    "create_app",
    "create_app_from_environment",
    "default_services",
    "lifespan",
]

REQUEST_ID_HEADER = "X-Request-Id"
_REQUEST_ID_HEADER_NAME = REQUEST_ID_HEADER.lower().encode("latin-1")
_REQUEST_ID_SCOPE_KEY = "spool.request_id"
# A caller's own request id is kept when it is short and plain, so logs on both sides line up.
_INCOMING_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
# The Retry-After of a store's 503 by its code, in seconds; see _store_error_handler.
_RETRY_AFTER = {"unavailable": "1", "store_full": "5"}

logger = logging.getLogger("spool.server")


class BackgroundService(Protocol):
    """Something that runs beside the HTTP app for its whole life (the delivery engine)."""

    async def start(self) -> None:
        """Begin working; return once started."""

    async def stop(self) -> None:
        """Finish or abandon in-flight work and return once stopped."""


ServiceFactory = Callable[[AppContext], BackgroundService]


def default_services() -> list[ServiceFactory]:
    """The background services a served app runs: the delivery engine, the scheduler and the
    pruner of the messages' events.
    """
    return [_delivery_engine, _scheduler, _log_pruner]


def _delivery_engine(context: AppContext) -> BackgroundService:
    settings = DeliverySettings.from_config(context.settings, policy=context.destinations)
    engine = DeliveryEngine(context.store, settings)
    context.message_scheduled.append(engine.wake)
    return engine


def _scheduler(context: AppContext) -> BackgroundService:
    scheduler = Scheduler(context)
    context.schedule_changed.append(scheduler.wake)
    return scheduler


def _log_pruner(context: AppContext) -> BackgroundService:
    return LogPruner(context.store, retention_seconds=context.settings.logs_retention_seconds)


def create_app(
    settings: Settings,
    *,
    services: Sequence[ServiceFactory] | None = None,
    owns_process: bool = False,
) -> Starlette:
    """The app for ``settings``; ``services`` default to :func:`default_services`.
    ``owns_process`` says that the app is what its process is for (a ``spool-server`` worker):
    once started, it settles the process's heap (see server/heap.py).

    Every route is bound to its operation in the document at ``settings.spec_path`` and
    authorizes requests as that operation's ``x-spool-permission`` says;
    :class:`server.routes._spec.SpecError` when they disagree or a permission is missing.
    """
    spec = load_spec_facts(settings.spec_path)
    metrics = Metrics(settings.metrics) if settings.metrics.enabled else None
    # With the reference off its operation stays unbound, so /docs is 404 like any unserved path.
    declared = (
        ROUTES if settings.docs else [served for served in ROUTES if served.path != DOCS_PATH]
    )
    routes: list[BaseRoute]
    if metrics is None:
        routes = [*bind_routes(declared, spec)]
    else:
        # /metrics is no operation of the API: it is mounted beside the bound routes, not by them.
        routes = [*bind_routes(declared, spec, instrument=metrics.instrument), metrics.route()]
    if settings.console:
        routes = [*routes, *console_routes()]
    routes = [
        *routes,
        *docs_routes(
            version=__version__,
            docs=settings.docs,
            console_path=CONSOLE_PATH if settings.console else None,
        ),
    ]
    app = Starlette(
        routes=routes,
        middleware=_middleware(),
        exception_handlers={
            ProblemError: _problem_handler,
            StoreError: _store_error_handler,
            HTTPException: _http_exception_handler,
        },
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.spec = spec
    app.state.metrics = metrics
    app.state.services = tuple(default_services() if services is None else services)
    app.state.context = None
    app.state.owns_process = owns_process
    return app


def _middleware() -> list[Middleware]:
    """The request-id middleware, inside a SERVER span per request when tracing is in use."""
    if not tracing_in_use():
        return [Middleware(_RequestIdMiddleware)]
    from .otel import TracingMiddleware

    return [Middleware(TracingMiddleware), Middleware(_RequestIdMiddleware)]


def create_app_from_environment() -> Starlette:
    """The app as ``spool-server`` workers build it: store from ``$SPOOL_STORE``, tokens as
    :func:`server.config.load_settings` finds them.
    """
    settings = load_settings(store_url=os.environ.get("SPOOL_STORE", DEFAULT_STORE_URL))
    return create_app(settings, owns_process=True)


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
    """Open the store and start the background services for the app's life; once started, an
    app that owns its process settles the process's heap (server/heap.py).

    The state it yields tells the HTTP protocol (server/http_protocol.py) the read timeout.
    """
    settings: Settings = app.state.settings
    metrics: Metrics | None = app.state.metrics
    store = store_from_url(settings.store_url)
    await store.open()
    try:
        context = AppContext(
            settings=settings,
            store=store,
            spec=app.state.spec,
            tokens=TokenRegistry(settings.tokens),
            destinations=DestinationPolicy(allow=settings.allowed_destinations),
            metrics=metrics,
        )
        async with contextlib.AsyncExitStack() as running:
            if metrics is not None:
                metrics.start()
                running.callback(metrics.stop)
                store.on_lease_deaths(metrics.lease_deaths)
            for factory in app.state.services:
                service = factory(context)
                await service.start()
                running.push_async_callback(service.stop)
            app.state.context = context
            if app.state.owns_process:
                settle_heap()
            try:
                yield {READ_TIMEOUT_STATE_KEY: settings.http_read_timeout_seconds}
            finally:
                app.state.context = None
    finally:
        await store.close()


def _request_id_of(request: Request) -> str:
    """The id this request is logged under."""
    return str(request.scope.get(_REQUEST_ID_SCOPE_KEY, ""))


async def _problem_handler(request: Request, error: Exception) -> Response:
    assert isinstance(error, ProblemError)
    return problem_response(
        error, instance=_instance(request.scope), request_id=_request_id_of(request)
    )


async def _store_error_handler(request: Request, error: Exception) -> Response:
    assert isinstance(error, StoreError)
    # A store's own input check is a validation failure, which the API always answers with 422.
    status = 422 if error.code == "validation_failed" else error.status
    # The spec promises a Retry-After on every 503. An unreachable store is usually back within
    # moments; a full one only once something is consumed, trimmed or deleted, or the operator
    # makes room, so its callers are asked to come back less often.
    headers = {"Retry-After": _RETRY_AFTER.get(error.code, "1")} if status == 503 else None
    problem = ProblemError(status, error.code, error.detail, headers=headers)
    return problem_response(
        problem, instance=_instance(request.scope), request_id=_request_id_of(request)
    )


async def _http_exception_handler(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    headers = dict(error.headers or {})
    if error.status_code == 405:
        problem = ProblemError(
            405,
            "method_not_allowed",
            f"{request.method} is not served on {request.url.path}; allowed: "
            f"{headers.get('Allow', 'none')}",
            headers=headers,
        )
    elif error.status_code == 404:
        problem = ProblemError(404, "not_found", f"no operation is served at {request.url.path}")
    else:
        problem = ProblemError(error.status_code, "malformed_request", str(error.detail))
    return problem_response(
        problem, instance=_instance(request.scope), request_id=_request_id_of(request)
    )


class _RequestIdMiddleware:
    """Names every request, echoes the name in ``X-Request-Id``, and turns an unexpected failure
    into a logged 500 ``internal_error`` instead of a bare error page. A request whose connection
    closed before it arrived whole is no failure: it is logged at INFO and answered nothing.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = _header(scope, b"x-request-id")
        request_id = (
            incoming
            if incoming is not None and _INCOMING_REQUEST_ID.fullmatch(incoming)
            else new_id("req")
        )
        scope[_REQUEST_ID_SCOPE_KEY] = request_id
        response_started = False

        async def send_with_id(message: Message) -> None:
            nonlocal response_started
            if message["type"] == "http.response.start":
                response_started = True
                # The raw pair, as Starlette's MutableHeaders would append it, without building
                # a headers object per response.
                id_header = (_REQUEST_ID_HEADER_NAME, request_id.encode("latin-1"))
                message["headers"] = [*message.get("headers", ()), id_header]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except ClientDisconnect:
            # Nobody is left to answer, and nothing was written: the body had not arrived whole.
            logger.info(
                "the connection closed before the request arrived whole: %s %s (request %s)",
                scope.get("method"),
                scope.get("path"),
                request_id,
            )
        except Exception:
            logger.exception(
                "unexpected failure serving %s %s (request %s)",
                scope.get("method"),
                scope.get("path"),
                request_id,
            )
            if response_started:
                raise
            problem = ProblemError(
                500,
                "internal_error",
                "the service failed unexpectedly; quote the request id when reporting it",
            )
            response = problem_response(problem, instance=_instance(scope), request_id=request_id)
            await response(scope, receive, send_with_id)


def _instance(scope: Scope) -> str:
    # The path as the client sent it (still percent-encoded), which is what it can look up.
    raw_path = scope.get("raw_path")
    if raw_path:
        return bytes(raw_path).decode("latin-1").partition("?")[0]
    return str(scope.get("path", ""))


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return bytes(value).decode("latin-1")
    return None
