"""What `subscribe` records for `run()`: which handler consumes which stream group or topics."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from ._exceptions import ConfigurationError
from ._stream import Stream

__all__ = ["QueueSubscription", "StreamSubscription", "Subscription", "check_handler"]

Handler: TypeAlias = Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class StreamSubscription:
    """A handler consuming a stream through its consumer group."""

    stream: Stream
    group: str
    handler: Handler
    start_id: str
    count: int | None
    redeliver_after_ms: int
    max_deliveries: int | None


@dataclass(frozen=True, slots=True)
class QueueSubscription:
    """A handler consuming jobs of some topics (all topics when empty) from a queue."""

    queue: str
    topics: tuple[str, ...]
    handler: Handler
    count: int | None
    lease_seconds: int | None
    retry_delay_seconds: int


Subscription: TypeAlias = StreamSubscription | QueueSubscription


def check_handler(handler: object, *, asynchronous: bool) -> None:
    """Refuse what `run()` could not call: non-callables, and coroutines on a sync client."""
    if not callable(handler):
        raise ConfigurationError(f"a handler must be callable, got {handler!r}")
    if not asynchronous and inspect.iscoroutinefunction(handler):
        raise ConfigurationError(
            f"{getattr(handler, '__qualname__', handler)!r} is async: subscribe it on an "
            "AsyncClient, or make it a plain function"
        )
