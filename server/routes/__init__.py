"""The HTTP operations of openapi.yaml, one module per tag."""

from __future__ import annotations

from starlette.routing import Route

from . import messages, queues, streams, system

__all__ = ["ROUTES"]

ROUTES: list[Route] = [*system.routes, *streams.routes, *queues.routes, *messages.routes]
