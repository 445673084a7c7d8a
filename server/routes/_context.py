"""The app context every route reads, and who is asking: the bearer token and the names in
the path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.requests import Request

from ..auth import Principal, TokenRegistry
from ..config import Settings
from ..destinations import DestinationPolicy
from ..problems import ProblemError
from ..stores.base import Store
from ._spec import SpecFacts

if TYPE_CHECKING:
    # Imported for its annotation only: server.metrics imports this module.
    from ..metrics import Metrics

__all__ = ["AppContext", "authenticate", "context_of", "header", "path_name"]

# What a request looked up once, kept in its scope for the rest of it: every route reads the context
# four or five times and a publish reads five headers, each of which cost Starlette a State
# attribute hook, a linear scan of the headers, and a KeyError for an absent one.
_CONTEXT_SCOPE_KEY = "spool.context"
_HEADERS_SCOPE_KEY = "spool.headers"

_PATH_LABELS = {
    "stream": "stream name",
    "queue": "queue name",
    "url_group": "URL group name",
    "schedule": "schedule name",
    "group": "consumer group name",
    "job_id": "job id",
    "message_id": "message id",
    "key": "flow control key",
}


@dataclasses.dataclass(frozen=True, slots=True)
class AppContext:
    """The opened store and the per-process services the routes share."""

    settings: Settings
    store: Store
    spec: SpecFacts
    tokens: TokenRegistry
    destinations: DestinationPolicy
    # None unless the settings enable metrics.
    metrics: Metrics | None = None
    # Called after messages become due, so a delivery engine in this process looks at once instead
    # of at its next poll.
    message_scheduled: list[Callable[[], None]] = dataclasses.field(default_factory=list)
    # Called after a schedule is put or resumed, so a scheduler in this process looks at once
    # instead of at its next re-check.
    schedule_changed: list[Callable[[], None]] = dataclasses.field(default_factory=list)

    def notify_message_scheduled(self) -> None:
        """Tell this process's listeners that messages were scheduled."""
        for listener in self.message_scheduled:
            listener()

    def notify_schedule_changed(self) -> None:
        """Tell this process's listeners that a schedule was put or resumed."""
        for listener in self.schedule_changed:
            listener()


def context_of(request: Request) -> AppContext:
    """The running app's context (set by its lifespan)."""
    scope = request.scope
    context = scope.get(_CONTEXT_SCOPE_KEY)
    if context is None:
        context = getattr(request.app.state, "context", None)
        if not isinstance(context, AppContext):
            raise RuntimeError("the app's lifespan has not run: no store is open")
        scope[_CONTEXT_SCOPE_KEY] = context
    return context


def header(request: Request, name: bytes) -> str | None:
    """The request's header ``name`` (lower case), the first of its kind, as
    ``request.headers.get`` answers it.
    """
    scope = request.scope
    headers: dict[bytes, bytes] | None = scope.get(_HEADERS_SCOPE_KEY)
    if headers is None:
        # Reversed, so that the first of a repeated header is the one kept.
        headers = scope[_HEADERS_SCOPE_KEY] = dict(reversed(scope["headers"]))
    value = headers.get(name)
    return None if value is None else value.decode("latin-1")


def authenticate(request: Request) -> Principal:
    """The caller, from the bearer token; 401 ``unauthenticated`` without a known one."""
    return context_of(request).tokens.authenticate(header(request, b"authorization"))


def path_name(request: Request, parameter: str) -> str:
    """A path parameter checked against its pattern in openapi.yaml (400 ``invalid_name``)."""
    value: str = request.path_params[parameter]
    pattern = context_of(request).spec.path_patterns[parameter]
    if not pattern.fullmatch(value):
        label = _PATH_LABELS.get(parameter, parameter)
        raise ProblemError(
            400, "invalid_name", f"{label} {value!r} does not match {pattern.pattern}"
        )
    return value
