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

__all__ = ["AppContext", "authenticate", "context_of", "path_name"]

_PATH_LABELS = {
    "stream": "stream name",
    "queue": "queue name",
    "url_group": "URL group name",
    "group": "consumer group name",
    "job_id": "job id",
    "message_id": "message id",
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

    def notify_message_scheduled(self) -> None:
        """Tell this process's listeners that messages were scheduled."""
        for listener in self.message_scheduled:
            listener()


def context_of(request: Request) -> AppContext:
    """The running app's context (set by its lifespan)."""
    context = getattr(request.app.state, "context", None)
    if not isinstance(context, AppContext):
        raise RuntimeError("the app's lifespan has not run: no store is open")
    return context


def authenticate(request: Request) -> Principal:
    """The caller, from the bearer token; 401 ``unauthenticated`` without a known one."""
    return context_of(request).tokens.authenticate(request.headers.get("authorization"))


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
