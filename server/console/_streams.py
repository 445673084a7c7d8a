"""The console's stream pages: every visible stream, one stream's groups, lag and entries, and one
entry with its body and which groups have been given it.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..problems import ProblemError
from ..routes._context import context_of
from ..routes._query import query_cursor
from ..stores.base import MAX_ID_PART, GroupInfo, StreamInfo, Trim, entry_id_parts
from ..stores.cursors import stream_cursor_position
from ._pages import PREFIX, Visit, action, back_to, live, page, render
from ._session import form_fields

__all__ = ["LAG_LIMIT", "routes"]

# Lag is counted by reading the entries after a group's last delivered one, up to this many.
LAG_LIMIT = 1000
_LATEST_ENTRIES = 20
_PAGE_SIZE = 100


def _after(entry_id: str) -> str | None:
    """The smallest id after ``entry_id``; None after the largest."""
    milliseconds, sequence = entry_id_parts(entry_id)
    sequence = sequence or 0
    if sequence < MAX_ID_PART:
        return f"{milliseconds}-{sequence + 1}"
    if milliseconds < MAX_ID_PART:
        return f"{milliseconds + 1}-0"
    return None


async def _lag(request: Request, stream: str, group: GroupInfo) -> str:
    """How many entries the group has not been given yet; ``LAG_LIMIT+`` from that many on."""
    start = _after(group.last_delivered_id)
    if start is None:
        return "0"
    entries = await context_of(request).store.range(
        stream, start=start, end="+", count=LAG_LIMIT, reverse=False
    )
    return f"{LAG_LIMIT}+" if len(entries) >= LAG_LIMIT else str(len(entries))


async def _numbers(request: Request, visit: Visit) -> tuple[StreamInfo, dict[str, str]]:
    visit.access("GET", "/v1/streams/{stream}")
    visit.access("GET", "/v1/streams/{stream}/entries")
    stream = request.path_params["stream"]
    info = await context_of(request).store.stream_info(stream)
    lags = {group.group: await _lag(request, stream, group) for group in info.groups}
    return info, lags


async def streams_page(request: Request, visit: Visit) -> Response:
    """Every stream the token may see, with its length and ends."""
    access = visit.access("GET", "/v1/streams")
    cursor = query_cursor(request, stream_cursor_position)
    listed = await context_of(request).store.list_streams(
        prefix="", limit=_PAGE_SIZE, cursor=cursor
    )
    streams = [summary for summary in listed.streams if access.covers(summary.stream)]
    return render(
        request,
        "streams.html",
        session=visit.session,
        streams=streams,
        next_cursor=listed.next_cursor,
        poll=f"{PREFIX}/live/streams",
    )


async def streams_live(request: Request, visit: Visit) -> dict[str, object]:
    """The lengths on the streams page."""
    access = visit.access("GET", "/v1/streams")
    listed = await context_of(request).store.list_streams(prefix="", limit=_PAGE_SIZE, cursor=None)
    return {
        f"length/{summary.stream}": summary.length
        for summary in listed.streams
        if access.covers(summary.stream)
    }


async def stream_page(request: Request, visit: Visit) -> Response:
    """One stream: its ends, its groups with pending entries and lag, its latest entries."""
    info, lags = await _numbers(request, visit)
    entries = await context_of(request).store.range(
        info.stream, start="-", end="+", count=_LATEST_ENTRIES, reverse=True
    )
    return render(
        request,
        "stream.html",
        session=visit.session,
        info=info,
        lags=lags,
        lag_limit=LAG_LIMIT,
        entries=entries,
        poll=f"{PREFIX}/live/streams/{info.stream}",
    )


async def stream_live(request: Request, visit: Visit) -> dict[str, object]:
    """The numbers on one stream's page."""
    info, lags = await _numbers(request, visit)
    document: dict[str, object] = {
        "length": info.length,
        "first_id": info.first_id or "—",
        "last_id": info.last_id or "—",
    }
    for group in info.groups:
        document[f"pending/{group.group}"] = group.pending
        document[f"lag/{group.group}"] = lags[group.group]
    return document


def _order(entry_id: str) -> tuple[int, int]:
    milliseconds, sequence = entry_id_parts(entry_id)
    return milliseconds, sequence or 0


def _delivered_to(entry_id: str, group: GroupInfo) -> bool:
    return _order(entry_id) <= _order(group.last_delivered_id)


async def entry_page(request: Request, visit: Visit) -> Response:
    """One entry: its body, its time, and for each group whether it has been given it yet."""
    visit.access("GET", "/v1/streams/{stream}")
    visit.access("GET", "/v1/streams/{stream}/entries")
    stream, entry_id = request.path_params["stream"], request.path_params["entry_id"]
    store = context_of(request).store
    found = await store.range(stream, start=entry_id, end=entry_id, count=1, reverse=False)
    if not found or found[0].id != entry_id:
        raise ProblemError(404, "not_found", f"stream {stream!r} has no entry {entry_id!r}")
    info = await store.stream_info(stream)
    return render(
        request,
        "entry.html",
        session=visit.session,
        stream=stream,
        entry=found[0],
        groups=[(group, _delivered_to(entry_id, group)) for group in info.groups],
    )


async def trim_stream(request: Request, visit: Visit) -> Response:
    """Trim the stream to the newest ``maxlen`` entries."""
    visit.access("POST", "/v1/streams/{stream}/trim")
    stream = request.path_params["stream"]
    raw = (await form_fields(request)).get("maxlen", "")
    if not raw.strip().isdigit():
        raise ProblemError(
            422, "validation_failed", "maxlen: give the number of entries to keep, 0 or more"
        )
    result = await context_of(request).store.trim(
        stream, Trim(maxlen=int(raw.strip()), approximate=False)
    )
    return back_to(f"{PREFIX}/streams/{stream}", f"trimmed {result.trimmed}; {result.length} left")


routes = [
    Route(f"{PREFIX}/streams", page(streams_page), methods=["GET"]),
    Route(f"{PREFIX}/streams/{{stream}}", page(stream_page), methods=["GET"]),
    Route(f"{PREFIX}/streams/{{stream}}/entries/{{entry_id}}", page(entry_page), methods=["GET"]),
    Route(f"{PREFIX}/streams/{{stream}}/trim", action(trim_stream), methods=["POST"]),
    Route(f"{PREFIX}/live/streams", live(streams_live), methods=["GET"]),
    Route(f"{PREFIX}/live/streams/{{stream}}", live(stream_live), methods=["GET"]),
]
