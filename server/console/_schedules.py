"""The console's schedules page: every visible schedule's timetable, destination, state, last and
next run and recent outcomes, with pausing and resuming.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .. import schedules
from ..routes._context import context_of
from ..routes._query import query_cursor
from ..stores.cursors import schedule_cursor_position
from ._pages import PREFIX, Visit, action, back_to, page, render

__all__ = ["routes"]

# Schedules on one page, and the runs of each shown, newest first.
_SCHEDULES_SHOWN = 100
_RUNS_SHOWN = 5


def _publishes(destination: Any) -> str:
    """What a tick publishes, in a few words."""
    kind = destination.get("kind")
    if kind == "job":
        return f"job {destination['job']['topic']} on queue {destination['queue']}"
    if kind == "stream":
        return f"entry on stream {destination['stream']}"
    message = destination.get("message", {})
    if "url_group" in message:
        return f"message to URL group {message['url_group']}"
    return f"message to {message.get('url', '?')}"


async def schedules_page(request: Request, visit: Visit) -> Response:
    """Every schedule the token may see, from the cursor of the page before."""
    access = visit.access("GET", "/v1/schedules")
    cursor = query_cursor(request, schedule_cursor_position)
    listing = await context_of(request).store.list_schedules(limit=_SCHEDULES_SHOWN, cursor=cursor)
    visible = [schedule for schedule in listing.schedules if access.covers(schedule.name)]
    return render(
        request,
        "schedules.html",
        session=visit.session,
        schedules=[(schedule, _publishes(schedule.settings.destination)) for schedule in visible],
        runs_shown=_RUNS_SHOWN,
        next_cursor=listing.next_cursor,
    )


async def pause_schedule(request: Request, visit: Visit) -> Response:
    """Stop a schedule firing until it is resumed."""
    visit.access("POST", "/v1/schedules/{schedule}/pause")
    schedule = await context_of(request).store.pause_schedule(request.path_params["schedule"])
    return back_to(f"{PREFIX}/schedules", f"schedule {schedule.name} is paused")


async def resume_schedule(request: Request, visit: Visit) -> Response:
    """Let a paused schedule fire again from its next tick after now."""
    visit.access("POST", "/v1/schedules/{schedule}/resume")
    context = context_of(request)
    record, resumed = await schedules.resume_schedule(
        context.store, request.path_params["schedule"]
    )
    if resumed:
        context.notify_schedule_changed()
    return back_to(f"{PREFIX}/schedules", f"schedule {record.name} is running")


routes = [
    Route(f"{PREFIX}/schedules", page(schedules_page), methods=["GET"]),
    Route(f"{PREFIX}/schedules/{{schedule}}/pause", action(pause_schedule), methods=["POST"]),
    Route(f"{PREFIX}/schedules/{{schedule}}/resume", action(resume_schedule), methods=["POST"]),
]
