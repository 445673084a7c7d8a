"""The HTTP operations of openapi.yaml, one module per tag, and ``schedules`` and
``flow_control`` for the cron schedules and the flow control keys of the tag ``messages``."""

from __future__ import annotations

from . import flow_control, messages, queues, schedules, streams, system
from ._operations import PathOperations

__all__ = ["ROUTES"]

# Bound to the document's operations when an app is built (server.routes._operations.bind_routes).
# Starlette tries the routes in order, and no two templates here match one path, so the publishing
# tags come first: fewer patterns are tried before the busiest routes.
ROUTES: list[PathOperations] = [
    *streams.routes,
    *queues.routes,
    *messages.routes,
    *schedules.routes,
    *flow_control.routes,
    *system.routes,
]
