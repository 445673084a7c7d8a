"""The console's search box: any id or name, taken to its page, or a page saying what matched.

``job_…`` is looked for in every queue the token may read, ``msg_…`` among messages, an entry id
after a stream's name (``orders 1700000000000-0`` or ``orders/1700000000000-0``) in that stream and
a bare entry id in the first streams listed; anything else is taken as the exact name of a queue,
stream, URL group or schedule. Only what the token may see through the API is found, so a search
tells a visitor nothing the API would not.
"""

from __future__ import annotations

import dataclasses
import re
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..routes._context import context_of
from ..routes.messages import may_see_message
from ..stores.base import NotFoundError, StoreError
from ._pages import PREFIX, Visit, page, render

__all__ = ["SEARCHED_QUEUES", "SEARCHED_STREAMS", "routes"]

# A job id names no queue, and a bare entry id no stream: this many of each are looked in.
SEARCHED_QUEUES = 200
SEARCHED_STREAMS = 100
_LONGEST_QUERY = 300
_JOB = re.compile(r"job_[0-9A-Za-z]{1,64}")
_MESSAGE = re.compile(r"msg_[0-9A-Za-z]{1,64}")
_ENTRY_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
_STREAM_ENTRY = re.compile(r"(?P<stream>\S+)(?:\s+|/)(?P<entry>[0-9]{1,20}-[0-9]{1,20})")


@dataclasses.dataclass(frozen=True, slots=True)
class Hit:
    """One thing the query names: what kind, which one, and its page."""

    kind: str
    label: str
    path: str


def _quoted(name: str) -> str:
    return quote(name, safe="")


async def _jobs(visit: Visit, job_id: str) -> list[Hit]:
    store = context_of(visit.request).store
    for queue in (await store.list_queues())[:SEARCHED_QUEUES]:
        template = "/v1/queues/{queue}/jobs/{job_id}"
        if visit.access_to("GET", template, queue=queue.name, job_id=job_id) is None:
            continue
        try:
            job = await store.get_job(queue.name, job_id)
        except NotFoundError:
            continue
        path = f"{PREFIX}/queues/{_quoted(queue.name)}/jobs/{_quoted(job.job_id)}"
        return [Hit("job", f"{job.job_id} in queue {queue.name} ({job.state})", path)]
    return []


async def _messages(visit: Visit, message_id: str) -> list[Hit]:
    access = visit.access_to("GET", "/v1/messages/{message_id}", message_id=message_id)
    if access is None:
        return []
    try:
        message = await context_of(visit.request).store.get_message(message_id)
    except NotFoundError:
        return []
    if not may_see_message(access, message):
        return []
    path = f"{PREFIX}/messages/{_quoted(message.message_id)}"
    return [Hit("message", f"{message.message_id} to {message.url} ({message.state})", path)]


async def _entry(visit: Visit, stream: str, entry_id: str) -> list[Hit]:
    if visit.access_to("GET", "/v1/streams/{stream}/entries", stream=stream) is None:
        return []
    try:
        found = await context_of(visit.request).store.range(
            stream, start=entry_id, end=entry_id, count=1, reverse=False
        )
    except StoreError:
        # No such stream, or an id out of range: either way, nothing by that name.
        return []
    if not found or found[0].id != entry_id:
        return []
    path = f"{PREFIX}/streams/{_quoted(stream)}/entries/{_quoted(entry_id)}"
    return [Hit("entry", f"{entry_id} in stream {stream}", path)]


async def _entries(visit: Visit, entry_id: str) -> list[Hit]:
    listed = await context_of(visit.request).store.list_streams(
        prefix="", limit=SEARCHED_STREAMS, cursor=None
    )
    hits: list[Hit] = []
    for summary in listed.streams:
        hits.extend(await _entry(visit, summary.stream, entry_id))
    return hits


async def _names(visit: Visit, name: str) -> list[Hit]:
    store = context_of(visit.request).store
    hits: list[Hit] = []
    quoted = _quoted(name)
    if visit.access_to("GET", "/v1/streams/{stream}", stream=name) is not None:
        try:
            info = await store.stream_info(name)
            hits.append(
                Hit("stream", f"{name} ({info.length} entries)", f"{PREFIX}/streams/{quoted}")
            )
        except NotFoundError:
            pass
    if visit.access_to("GET", "/v1/queues/{queue}", queue=name) is not None:
        try:
            await store.get_queue(name)
            hits.append(Hit("queue", name, f"{PREFIX}/queues/{quoted}"))
        except NotFoundError:
            pass
    if visit.access_to("GET", "/v1/url-groups/{url_group}", url_group=name) is not None:
        try:
            await store.get_url_group(name)
            hits.append(Hit("URL group", name, f"{PREFIX}/messages#url-group-{quoted}"))
        except NotFoundError:
            pass
    if visit.access_to("GET", "/v1/schedules/{schedule}", schedule=name) is not None:
        try:
            await store.get_schedule(name)
            hits.append(Hit("schedule", name, f"{PREFIX}/schedules#schedule-{quoted}"))
        except NotFoundError:
            pass
    return hits


async def _find(visit: Visit, query: str) -> list[Hit]:
    if _JOB.fullmatch(query):
        return await _jobs(visit, query)
    if _MESSAGE.fullmatch(query):
        return await _messages(visit, query)
    if _ENTRY_ID.fullmatch(query):
        return await _entries(visit, query)
    named = _STREAM_ENTRY.fullmatch(query)
    if named is not None:
        return await _entry(visit, named["stream"], named["entry"])
    return await _names(visit, query)


async def search_page(request: Request, visit: Visit) -> Response:
    """Go to the one page the query names; else list what it names, or say nothing matched."""
    query = request.query_params.get("q", "").strip()[:_LONGEST_QUERY]
    hits = await _find(visit, query) if query else []
    if len(hits) == 1:
        return RedirectResponse(hits[0].path, status_code=303)
    return render(
        request,
        "search.html",
        session=visit.session,
        status=404 if query and not hits else 200,
        query=query,
        hits=hits,
    )


routes = [Route(f"{PREFIX}/search", page(search_page), methods=["GET"])]
