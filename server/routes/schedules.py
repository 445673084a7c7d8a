"""Cron schedules (openapi.yaml's tag ``messages``): put, get, list, delete, pause and resume.

A schedule is checked when it is put as each tick will publish it: its cron expression and time
zone must be readable (400 ``invalid_cron``, ``invalid_timezone``), and its destination must pass
every check of its publish operation, exist, and be one its author may publish to (see
``server.schedules.check_destination``). The scheduler (server/schedules/) fires it.
"""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import Response

from generated.pydantic_models import ScheduleSettings as ScheduleSettingsBody

from .. import schedules
from ..ids import new_id
from ..problems import ProblemError
from ..schedules._timetable import TimetableError, next_tick
from ..stores.base import ScheduleSettings
from ..stores.cursors import schedule_cursor_position
from . import _documents as documents
from ._body import read_json
from ._context import context_of
from ._operations import Access, operations
from ._query import query_cursor, query_int
from ._responses import json_response

__all__ = ["routes"]


def _first_tick(cron: str, timezone: str, *, where: str) -> float:
    """The first tick after now; 400 naming the field (under ``where``) that cannot be read."""
    try:
        return next_tick(cron, timezone, after=time.time())
    except TimetableError as error:
        field = "timezone" if error.code == "invalid_timezone" else "cron"
        raise ProblemError(400, error.code, f"{where}{field}: {error.detail}") from error


async def put_schedule(request: Request, access: Access) -> Response:
    """putSchedule: create a schedule or replace its settings."""
    name = access.names["schedule"]
    body, _ = await read_json(request, ScheduleSettingsBody)
    context = context_of(request)
    cron, timezone = body.cron, body.timezone
    next_run_at = _first_tick(cron, timezone, where="body.")
    destination = await schedules.check_destination(
        context, access.principal, body.destination, "body.destination"
    )
    settings = ScheduleSettings(
        cron=cron, timezone=timezone, catch_up=body.catch_up.root, destination=destination
    )
    record, created = await context.store.put_schedule(
        name, settings, revision=new_id("rev"), next_run_at=next_run_at
    )
    context.notify_schedule_changed()
    return json_response(documents.schedule(record), 201 if created else 200)


async def get_schedule(request: Request, access: Access) -> Response:
    """getSchedule: settings, next tick and recent runs."""
    record = await context_of(request).store.get_schedule(access.names["schedule"])
    return json_response(documents.schedule(record))


async def list_schedules(request: Request, access: Access) -> Response:
    """listSchedules: a page of schedules by name, those the token's permission covers."""
    limit = query_int(request, "limit", default=100, minimum=1, maximum=1000)
    cursor = query_cursor(request, schedule_cursor_position)
    page = await context_of(request).store.list_schedules(limit=limit, cursor=cursor)
    visible = [record for record in page.schedules if access.covers(record.name)]
    return json_response(documents.schedule_list(visible, page.next_cursor))


async def delete_schedule(request: Request, access: Access) -> Response:
    """deleteSchedule: it fires no more."""
    await context_of(request).store.delete_schedule(access.names["schedule"])
    return Response(status_code=204)


async def pause_schedule(request: Request, access: Access) -> Response:
    """pauseSchedule: no runs until it is resumed."""
    record = await context_of(request).store.pause_schedule(access.names["schedule"])
    return json_response(documents.schedule(record))


async def resume_schedule(request: Request, access: Access) -> Response:
    """resumeSchedule: the next tick is the first after now."""
    context = context_of(request)
    try:
        record, resumed = await schedules.resume_schedule(context.store, access.names["schedule"])
    except TimetableError as error:
        raise ProblemError(400, error.code, error.detail) from error
    if resumed:
        context.notify_schedule_changed()
    return json_response(documents.schedule(record))


routes = [
    operations("/v1/schedules", GET=list_schedules),
    operations(
        "/v1/schedules/{schedule}", PUT=put_schedule, GET=get_schedule, DELETE=delete_schedule
    ),
    operations("/v1/schedules/{schedule}/pause", POST=pause_schedule),
    operations("/v1/schedules/{schedule}/resume", POST=resume_schedule),
]
