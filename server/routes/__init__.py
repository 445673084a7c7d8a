"""The HTTP operations of openapi.yaml, one module per tag."""

from __future__ import annotations

from . import messages, queues, streams, system
from ._operations import PathOperations

__all__ = ["ROUTES"]

# Bound to the document's operations when an app is built (server.routes._operations.bind_routes).
ROUTES: list[PathOperations] = [*system.routes, *streams.routes, *queues.routes, *messages.routes]
