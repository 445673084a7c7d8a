"""Flow control keys, of the tag ``messages``: a key's state, and pause, resume and reset.

A key spans destinations, so these operations need their permission on every message; the store
keeps the limits (server/stores/contract/_flow_control.py).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from ..stores.cursors import flow_control_cursor_position
from . import _documents as documents
from ._context import context_of
from ._operations import Access, operations
from ._query import query_cursor, query_int
from ._responses import json_response

__all__ = ["routes"]


async def list_flow_control_keys(request: Request, _access: Access) -> Response:
    """listFlowControlKeys: a page of keys, by name, each with its state."""
    limit = query_int(request, "limit", default=100, minimum=1, maximum=1000)
    cursor = query_cursor(request, flow_control_cursor_position)
    page = await context_of(request).store.list_flow_control_keys(limit=limit, cursor=cursor)
    return json_response(documents.flow_control_list(page.keys, page.next_cursor))


async def get_flow_control(request: Request, access: Access) -> Response:
    """getFlowControl: the key's limits and state."""
    state = await context_of(request).store.get_flow_control(access.names["key"])
    return json_response(documents.flow_control_state(state))


async def pause_flow_control(request: Request, access: Access) -> Response:
    """pauseFlowControl: start none of the key's attempts until it is resumed."""
    state = await context_of(request).store.pause_flow_control(access.names["key"])
    return json_response(documents.flow_control_state(state))


async def resume_flow_control(request: Request, access: Access) -> Response:
    """resumeFlowControl: the key's waiting messages are due again, within its limits."""
    context = context_of(request)
    state = await context.store.resume_flow_control(access.names["key"])
    context.notify_message_scheduled()
    return json_response(documents.flow_control_state(state))


async def reset_flow_control(request: Request, access: Access) -> Response:
    """resetFlowControl: forget the attempts counted against the key's rate."""
    context = context_of(request)
    state = await context.store.reset_flow_control(access.names["key"])
    context.notify_message_scheduled()
    return json_response(documents.flow_control_state(state))


routes = [
    operations("/v1/flow-control", GET=list_flow_control_keys),
    operations("/v1/flow-control/{key}", GET=get_flow_control),
    operations("/v1/flow-control/{key}/pause", POST=pause_flow_control),
    operations("/v1/flow-control/{key}/resume", POST=resume_flow_control),
    operations("/v1/flow-control/{key}/reset", POST=reset_flow_control),
]
