"""Query parameters, checked against the ranges openapi.yaml gives them."""

from __future__ import annotations

import datetime
import difflib
import re
from collections.abc import Callable, Collection
from typing import Any, TypeVar

from pydantic import RootModel, ValidationError
from starlette.requests import Request

from generated.pydantic_models import FlowControlKey, Label, ListCursor, ResourceName

from ..problems import ProblemError
from ..stores.base import StoreError
from ..stores.message_filter import MAX_FILTER_IDS, MessageFilter
from ._body import invalid

__all__ = [
    "check_query_names",
    "query_bool",
    "query_cursor",
    "query_int",
    "query_message_filter",
    "query_time",
    "query_value",
]

_MESSAGE_ID = re.compile(r"msg_[0-9A-Za-z]{1,64}")
_MAX_URL = 2048

RootT = TypeVar("RootT", bound=RootModel[Any])

_INTEGER = re.compile(r"-?[0-9]{1,20}")


def query_int(request: Request, name: str, *, default: int, minimum: int, maximum: int) -> int:
    """An integer query parameter within bounds (422 otherwise)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not _INTEGER.fullmatch(raw):
        raise invalid(f"query.{name}", "Input should be a valid integer")
    value = int(raw)
    if not minimum <= value <= maximum:
        raise invalid(f"query.{name}", f"Input should be between {minimum} and {maximum}")
    return value


def query_bool(request: Request, name: str, *, default: bool) -> bool:
    """A ``true``/``false`` query parameter (422 otherwise)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if raw not in ("true", "false"):
        raise invalid(f"query.{name}", "Input should be true or false")
    return raw == "true"


def query_value(request: Request, name: str, model: type[RootT], *, default: Any) -> Any:
    """A query parameter validated by a generated root model (422 otherwise)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        return model.model_validate(raw, strict=True).root
    except ValidationError as error:
        first = error.errors(include_url=False, include_input=False)[0]
        raise invalid(f"query.{name}", first["msg"]) from None


def query_cursor(request: Request, read: Callable[[str], object]) -> str | None:
    """The ``cursor`` query parameter, checked by its pattern and then by ``read``, the store's
    reader of one listing's cursors (422 at ``query.cursor`` for one that no page answered).
    """
    cursor: str | None = query_value(request, "cursor", ListCursor, default=None)
    if cursor is not None:
        try:
            read(cursor)
        except StoreError as error:
            raise invalid("query.cursor", error.detail) from None
    return cursor


def check_query_names(request: Request, allowed: Collection[str]) -> None:
    """``400 malformed_request`` for a query parameter not in ``allowed``, naming the closest one
    allowed: a misspelt one would otherwise be ignored, and the request read its default (a
    listing silently wider, say).
    """
    for name in request.query_params:
        if name not in allowed:
            close = difflib.get_close_matches(name, list(allowed), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            known = ", ".join(sorted(allowed))
            raise ProblemError(
                400,
                "malformed_request",
                f"unknown query parameter {name!r}{hint} (this operation takes {known})",
            )


def query_time(request: Request, name: str) -> float | None:
    """A date-time query parameter with its offset (RFC 3339), as seconds since the epoch (422
    otherwise).
    """
    raw = request.query_params.get(name)
    if raw is None:
        return None
    try:
        moment = datetime.datetime.fromisoformat(raw)
    except ValueError:
        raise invalid(f"query.{name}", "Input should be a valid date-time") from None
    if moment.tzinfo is None:
        raise invalid(f"query.{name}", "Input should have a time zone offset, such as Z")
    return moment.timestamp()


def query_message_filter(request: Request, state_model: type[RootT]) -> MessageFilter:
    """The message filter of the query (422 for a value out of its schema), its ``state``
    validated by ``state_model``.
    """
    message_ids = request.query_params.getlist("message_id")
    if len(message_ids) > MAX_FILTER_IDS:
        raise invalid("query.message_id", f"List should have at most {MAX_FILTER_IDS} items")
    for message_id in message_ids:
        if not _MESSAGE_ID.fullmatch(message_id):
            raise invalid("query.message_id", f"{message_id!r} is not a message id")
    url = request.query_params.get("url")
    if url is not None and not 1 <= len(url) <= _MAX_URL:
        raise invalid("query.url", f"Input should have 1 to {_MAX_URL} characters")
    return MessageFilter(
        message_ids=tuple(dict.fromkeys(message_ids)),
        state=query_value(request, "state", state_model, default=None),
        url=url,
        url_group=query_value(request, "url_group", ResourceName, default=None),
        label=query_value(request, "label", Label, default=None),
        schedule=query_value(request, "schedule", ResourceName, default=None),
        flow_control_key=query_value(request, "flow_control_key", FlowControlKey, default=None),
        since=query_time(request, "since"),
        until=query_time(request, "until"),
    )
