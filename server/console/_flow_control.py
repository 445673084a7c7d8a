"""The console's flow control page: every flow control key with its limits and state, with
pausing, resuming and resetting.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..routes._context import context_of
from ..routes._query import query_cursor
from ..stores.cursors import flow_control_cursor_position
from ._pages import PREFIX, Visit, action, back_to, page, render

__all__ = ["routes"]

# Keys on one page.
_KEYS_SHOWN = 100


async def flow_control_page(request: Request, visit: Visit) -> Response:
    """Every key, from the cursor of the page before; a key spans destinations, so the page
    needs what listFlowControlKeys needs: consume on every message.
    """
    visit.access("GET", "/v1/flow-control")
    cursor = query_cursor(request, flow_control_cursor_position)
    listing = await context_of(request).store.list_flow_control_keys(
        limit=_KEYS_SHOWN, cursor=cursor
    )
    return render(
        request,
        "flow_control.html",
        session=visit.session,
        keys=listing.keys,
        next_cursor=listing.next_cursor,
    )


async def pause_flow_control(request: Request, visit: Visit) -> Response:
    """Deliver none of the key's messages until it is resumed."""
    access = visit.access("POST", "/v1/flow-control/{key}/pause")
    state = await context_of(request).store.pause_flow_control(access.names["key"])
    return back_to(f"{PREFIX}/flow-control", f"flow control key {state.key} is paused")


async def resume_flow_control(request: Request, visit: Visit) -> Response:
    """Deliver the key's waiting messages again, within its limits."""
    access = visit.access("POST", "/v1/flow-control/{key}/resume")
    context = context_of(request)
    state = await context.store.resume_flow_control(access.names["key"])
    context.notify_message_scheduled()
    return back_to(f"{PREFIX}/flow-control", f"flow control key {state.key} is running")


async def reset_flow_control(request: Request, visit: Visit) -> Response:
    """Forget the attempts counted against the key's rate."""
    access = visit.access("POST", "/v1/flow-control/{key}/reset")
    context = context_of(request)
    state = await context.store.reset_flow_control(access.names["key"])
    context.notify_message_scheduled()
    return back_to(f"{PREFIX}/flow-control", f"flow control key {state.key} is reset")


routes = [
    Route(f"{PREFIX}/flow-control", page(flow_control_page), methods=["GET"]),
    Route(f"{PREFIX}/flow-control/{{key}}/pause", action(pause_flow_control), methods=["POST"]),
    Route(f"{PREFIX}/flow-control/{{key}}/resume", action(resume_flow_control), methods=["POST"]),
    Route(f"{PREFIX}/flow-control/{{key}}/reset", action(reset_flow_control), methods=["POST"]),
]
