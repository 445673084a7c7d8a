"""Query parameters, checked against the ranges openapi.yaml gives them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import RootModel, ValidationError
from starlette.requests import Request

from generated.pydantic_models import ListCursor

from ..stores.base import StoreError
from ._body import invalid

__all__ = ["query_bool", "query_cursor", "query_int", "query_value"]

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
