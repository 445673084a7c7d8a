"""The console's message pages: recent messages by state with their attempts, dead letters and URL
groups; one message with its headers (as the API shows them, redactions applied), callbacks and
every attempt; and the actions on them (cancel; retry or delete a dead letter).
"""

from __future__ import annotations

from collections import Counter
from typing import Literal, get_args

from pydantic import RootModel, ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from generated.pydantic_models import FlowControlKey, Label, ResourceName

from ..problems import ProblemError
from ..routes import _documents as documents
from ..routes._context import context_of
from ..routes._dead_letters import DeadLetterSelection, act_on_dead_letters, may_act_on
from ..routes.messages import check_message, dead_letter_message, may_see_message
from ..stores.base import (
    DeadLetterRecord,
    LogEventRecord,
    MessageFilter,
    MessageRecord,
    MessageState,
    UrlGroupRecord,
)
from ._pages import PREFIX, Visit, action, back_to, live, page, render
from ._session import form_lists

__all__ = ["outcome", "routes"]

MESSAGE_STATES: tuple[MessageState, ...] = get_args(MessageState)
# The page shows, and counts by state, this many of the newest messages.
RECENT_MESSAGES = 100
_DEAD_LETTERS_SHOWN = 100
# A message's page shows this many of its newest events.
_EVENTS_SHOWN = 100
# The filter inputs of the messages page, each a query parameter as listMessages names it, with
# the schema it must match (None: any text of 1 to 2048 characters, as a URL filter).
_FILTER_INPUTS: dict[str, type[RootModel[str]] | None] = {
    "label": Label,
    "url": None,
    "url_group": ResourceName,
    "schedule": ResourceName,
    "flow_control_key": FlowControlKey,
}
_MAX_URL = 2048
# The most dead letters one press of "retry all" or "delete all" acts on: one bounded request.
_BULK_PAGE = 1000
_PAGE_PATH = f"{PREFIX}/messages"


def _filters(request: Request) -> dict[str, str]:
    """The filter inputs given (a form leaves the others empty), each checked by its schema."""
    given = {}
    for name, model in _FILTER_INPUTS.items():
        value = request.query_params.get(name, "").strip()
        if not value:
            continue
        if model is None:
            valid = len(value) <= _MAX_URL
        else:
            try:
                model.model_validate(value, strict=True)
                valid = True
            except ValidationError:
                valid = False
        if not valid:
            raise ProblemError(422, "validation_failed", f"{name}: {value!r} is not valid here")
        given[name] = value
    return given


async def _recent(
    request: Request, visit: Visit, filters: dict[str, str] | None = None
) -> list[MessageRecord]:
    access = visit.access("GET", "/v1/messages")
    given = filters or {}
    where = MessageFilter(
        label=given.get("label"),
        url=given.get("url"),
        url_group=given.get("url_group"),
        schedule=given.get("schedule"),
        flow_control_key=given.get("flow_control_key"),
    )
    listed = await context_of(request).store.list_messages(
        where=where, limit=RECENT_MESSAGES, cursor=None
    )
    return [message for message in listed.messages if may_see_message(access, message)]


async def _events(request: Request, visit: Visit, message_id: str) -> list[LogEventRecord] | None:
    """The message's newest events; None when the token may not list logs."""
    try:
        visit.access("GET", "/v1/logs")
    except ProblemError:
        return None
    page = await context_of(request).store.list_logs(
        where=MessageFilter(message_ids=(message_id,)), limit=_EVENTS_SHOWN, cursor=None
    )
    return page.events


async def _dead_letters(request: Request, visit: Visit) -> list[DeadLetterRecord]:
    access = visit.access("GET", "/v1/dead-letters")
    page = await context_of(request).store.list_dead_letters(limit=_DEAD_LETTERS_SHOWN)
    return [letter for letter in page.dead_letters if may_act_on(access, letter)]


async def _url_groups(request: Request, visit: Visit) -> list[UrlGroupRecord] | None:
    """The URL groups the token may see; None when it may see none at all."""
    try:
        access = visit.access("GET", "/v1/url-groups")
    except ProblemError:
        return None
    groups = await context_of(request).store.list_url_groups()
    return [group for group in groups if access.covers(group.name)]


def _state(request: Request) -> MessageState | None:
    state = request.query_params.get("state", "")
    if not state:
        return None
    for known in MESSAGE_STATES:
        if state == known:
            return known
    raise ProblemError(
        422, "validation_failed", f"state: one of {', '.join(MESSAGE_STATES)}, not {state!r}"
    )


def _counts(messages: list[MessageRecord], dead: list[DeadLetterRecord]) -> dict[str, int]:
    by_state = Counter(message.state for message in messages)
    counts: dict[str, int] = {state: by_state[state] for state in MESSAGE_STATES}
    counts["dead_letters"] = len(dead)
    return counts


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def outcome(message: MessageRecord) -> str:
    """What happened to ``message`` so far, in words: the attempts it used, not its budget."""
    made = len(message.attempts)
    allowed = message.retries + 1
    if message.state == "delivered":
        return f"delivered on attempt {made}"
    if message.state == "failed":
        return f"failed after {_plural(made, 'attempt')}; its retries ran out"
    if message.state == "cancelled":
        return "cancelled" if made == 0 else f"cancelled after {_plural(made, 'attempt')}"
    if message.state == "delivering":
        return f"attempt {message.retries_used + 1} of {allowed} under way"
    if message.retries_used == 0 and made:
        return f"retried after {_plural(made, 'attempt')}; up to {allowed} more"
    if message.retries_used == 0:
        return f"not tried yet; up to {_plural(allowed, 'attempt')}"
    return f"{message.retries_used} of {allowed} attempts failed; trying again"


async def messages_page(request: Request, visit: Visit) -> Response:
    """Recent messages (of one state, and passing the filters, when asked) with their attempts,
    dead letters, URL groups.
    """
    state = _state(request)
    filters = _filters(request)
    recent = await _recent(request, visit, filters)
    dead = await _dead_letters(request, visit)
    shown = [message for message in recent if state is None or message.state == state]
    return render(
        request,
        "messages.html",
        session=visit.session,
        states=MESSAGE_STATES,
        state=state,
        filters=filters,
        counts=_counts(recent, dead),
        recent_limit=RECENT_MESSAGES,
        messages=[(message, outcome(message)) for message in shown],
        dead_letters=dead,
        url_groups=await _url_groups(request, visit),
        poll=f"{PREFIX}/live/messages",
    )


async def messages_live(request: Request, visit: Visit) -> dict[str, object]:
    """The counts on the messages page."""
    recent = await _recent(request, visit)
    dead = await _dead_letters(request, visit)
    return dict(_counts(recent, dead))


async def message_page(request: Request, visit: Visit) -> Response:
    """One message: what it is sent with, what happened to each attempt, and its actions."""
    access = visit.access("GET", "/v1/messages/{message_id}")
    message = await context_of(request).store.get_message(access.names["message_id"])
    check_message(access, message)
    return render(
        request,
        "message.html",
        session=visit.session,
        message=message,
        shown=documents.message(message),
        outcome=outcome(message),
        events=await _events(request, visit, message.message_id),
    )


async def cancel_message(request: Request, visit: Visit) -> Response:
    """Cancel a scheduled message."""
    access = visit.access("POST", "/v1/messages/{message_id}/cancel")
    store = context_of(request).store
    message_id = access.names["message_id"]
    check_message(access, await store.get_message(message_id))
    cancelled = await store.cancel_message(message_id)
    return back_to(_PAGE_PATH, f"message {cancelled.message_id} is {cancelled.state}")


async def retry_dead_letter(request: Request, visit: Visit) -> Response:
    """Schedule a dead letter's message again with fresh retries."""
    access = visit.access("POST", "/v1/dead-letters/{message_id}/retry")
    message = await dead_letter_message(request, access)
    context = context_of(request)
    retried = await context.store.retry_dead_letter(message.message_id)
    context.notify_message_scheduled()
    return back_to(_PAGE_PATH, f"message {retried.message_id} is {retried.state} again")


async def delete_dead_letter(request: Request, visit: Visit) -> Response:
    """Forget a dead letter; its message stays readable."""
    access = visit.access("DELETE", "/v1/dead-letters/{message_id}")
    message = await dead_letter_message(request, access)
    await context_of(request).store.delete_dead_letter(message.message_id)
    return back_to(_PAGE_PATH, f"dead letter {message.message_id} deleted")


async def _bulk(request: Request, visit: Visit, verb: Literal["retry", "delete"]) -> Response:
    """Retry or delete the dead letters ticked, or (with ``all`` and its ``confirm`` box) the
    first 1000 the visitor may act on, as retryDeadLetters and deleteDeadLetters do.
    """
    access = visit.access("POST", f"/v1/dead-letters/{verb}")
    fields = await form_lists(request)
    ticked = fields.get("message_id", [])
    every = fields.get("all") == ["yes"]
    if bool(ticked) == every:
        raise ProblemError(422, "validation_failed", "tick some dead letters, or choose all")
    if every and fields.get("confirm") != ["yes"]:
        raise ProblemError(
            422, "validation_failed", f"tick the box to {verb} every dead letter, then press again"
        )
    chosen = DeadLetterSelection(ids=ticked) if ticked else DeadLetterSelection(limit=_BULK_PAGE)
    context = context_of(request)
    bulk = await act_on_dead_letters(context.store, access, verb, chosen)
    if verb == "retry" and bulk.acted:
        context.notify_message_scheduled()
    done = "retried" if verb == "retry" else "deleted"
    notice = f"{_plural(len(bulk.acted), 'dead letter')} {done}"
    if bulk.next_cursor is not None:
        notice += f"; there may be more: press {verb} all again"
    return back_to(_PAGE_PATH, notice)


async def retry_dead_letters(request: Request, visit: Visit) -> Response:
    """Schedule the dead letters ticked, or all of them, again with fresh retries."""
    return await _bulk(request, visit, "retry")


async def delete_dead_letters(request: Request, visit: Visit) -> Response:
    """Forget the dead letters ticked, or all of them."""
    return await _bulk(request, visit, "delete")


routes = [
    Route(_PAGE_PATH, page(messages_page), methods=["GET"]),
    Route(f"{_PAGE_PATH}/{{message_id}}", page(message_page), methods=["GET"]),
    Route(f"{_PAGE_PATH}/{{message_id}}/cancel", action(cancel_message), methods=["POST"]),
    Route(f"{PREFIX}/dead-letters/retry", action(retry_dead_letters), methods=["POST"]),
    Route(f"{PREFIX}/dead-letters/delete", action(delete_dead_letters), methods=["POST"]),
    Route(
        f"{PREFIX}/dead-letters/{{message_id}}/retry", action(retry_dead_letter), methods=["POST"]
    ),
    Route(
        f"{PREFIX}/dead-letters/{{message_id}}/delete",
        action(delete_dead_letter),
        methods=["POST"],
    ),
    Route(f"{PREFIX}/live/messages", live(messages_live), methods=["GET"]),
]
