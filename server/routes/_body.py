"""Request bodies: read within the size limit, then validated by the pydantic models ``make
generate`` writes from openapi.yaml, in strict mode so that ``"5"`` is not silently an integer:
malformed JSON is ``400 malformed_request`` and a schema violation is ``422 validation_failed``
with the location of every invalid field. Two JSON Schema rules pydantic does not share hold as
well (see :func:`parse_body`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar

import pydantic_core
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails
from starlette.requests import Request

from ..problems import FieldIssue, ProblemError
from ..validation import REQUEST_BODY, refuses_null
from ._context import context_of, header

__all__ = [
    "ensure_finite",
    "invalid",
    "may_hold_non_finite",
    "parse_body",
    "read_body",
    "read_json",
    "read_optional_json",
]

ModelT = TypeVar("ModelT", bound=BaseModel)


async def read_body(request: Request) -> bytes:
    """The raw body, refused with 413 ``payload_too_large`` as soon as it is known to be over the
    limit: from ``Content-Length`` before reading anything, else while counting streamed bytes.
    """
    limit = context_of(request).settings.max_body_bytes
    declared = header(request, b"content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ProblemError(400, "malformed_request", "Content-Length is not a number")
        if int(declared) > limit:
            raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(limit: int) -> ProblemError:
    return ProblemError(413, "payload_too_large", f"request body is over {limit} bytes")


def parse_body(raw: bytes, model: type[ModelT]) -> ModelT:
    """``raw`` validated as ``model``: 400 for anything but JSON, 422 for a schema violation.

    Two JSON Schema rules that pydantic's strict mode does not share hold as well: ``null`` is not
    a value for a field that the schema types (only the "any JSON value" fields such as ``body``
    may be null; see server.validation), and a number like ``90.0`` is an integer. A body breaking
    the first gets only its nulls back, in document order. One that needs the second is read
    again with its whole floats as integers: pydantic names each one it refused, where an integer
    was wanted, so no valid body pays for the rule.
    """
    if not raw.strip():
        raise ProblemError(400, "malformed_request", "the request body is empty; send JSON")
    source = raw
    while True:
        try:
            return model.model_validate_json(source, strict=True, context=REQUEST_BODY)
        except ValidationError as error:
            source = _with_whole_floats_as_ints(source, model, error)


def _with_whole_floats_as_ints(
    source: bytes, model: type[BaseModel], error: ValidationError
) -> bytes:
    """``source`` again with the whole floats that ``error`` refused as integers turned into
    integers; the problem to answer instead when there are none, or when a null is refused.
    """
    errors = error.errors(include_url=False)
    if errors[0]["type"] == "json_invalid":
        raise ProblemError(400, "malformed_request", errors[0]["msg"]) from error
    document = pydantic_core.from_json(source)
    nulls = _refused_nulls(document, model, errors)
    if nulls:
        raise _validation_failed(nulls) from error
    if not _whole_floats_as_ints(document, errors):
        raise _validation_failed(
            FieldIssue(_location(issue["loc"]), issue["msg"]) for issue in errors
        ) from error
    return json.dumps(document).encode()


def _refused_nulls(
    document: Any, model: type[BaseModel], errors: Iterable[ErrorDetails]
) -> list[FieldIssue]:
    """The nulls of ``document`` that the schema refuses, in document order.

    Each is a field of an object on the way to an error: an object whose fields are all valid
    refuses its nulls with an error of its own (see server.validation), and an object holding an
    invalid value is looked into here, having been left unchecked. So are the objects in a list
    over its length, which pydantic names alone.
    """
    objects: set[tuple[str | int, ...]] = set()
    for error in errors:
        reached, value = _reached(document, error["loc"])
        objects.update(reached[:depth] for depth in range(len(reached) + 1))
        if error["type"] == "too_long":
            objects.update(_paths_within(value, reached))
    paths: dict[tuple[int, ...], tuple[str | int, ...]] = {}
    for at in objects:
        _, value = _reached(document, at)
        if isinstance(value, dict):
            for key, item in value.items():
                path = (*at, key)
                if item is None and refuses_null(model, path):
                    paths[_document_order(document, path)] = path
    return [
        FieldIssue(_location(path), "Input should not be null") for _, path in sorted(paths.items())
    ]


def _paths_within(value: Any, path: tuple[str | int, ...]) -> Iterator[tuple[str | int, ...]]:
    """The paths of ``value`` (at ``path``) and of every value inside it."""
    yield path
    items: Iterable[tuple[str | int, Any]]
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, item in items:
        yield from _paths_within(item, (*path, key))


def _whole_floats_as_ints(document: Any, errors: Iterable[ErrorDetails]) -> bool:
    """Turns each whole float that pydantic refused as an integer into one, in place; whether
    there was one.
    """
    found = False
    for error in errors:
        number = error["input"]
        if error["type"] == "int_type" and type(number) is float and number.is_integer():
            # A union names its members after the value's own location: the float is there.
            path, value = _reached(document, error["loc"])
            if path and type(value) is float:
                _reached(document, path[:-1])[1][path[-1]] = int(value)
                found = True
    return found


def _reached(document: Any, loc: Sequence[str | int]) -> tuple[tuple[str | int, ...], Any]:
    """How far into ``document`` an error's location goes (pydantic appends the members of a
    union and the keys of a mapping's keys to it), and the value there.
    """
    value = document
    for depth, part in enumerate(loc):
        if isinstance(value, dict) and isinstance(part, str) and part in value:
            value = value[part]
        elif isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
            value = value[part]
        else:
            return tuple(loc[:depth]), value
    return tuple(loc), value


def _document_order(document: Any, path: Sequence[str | int]) -> tuple[int, ...]:
    """Where ``path`` comes in ``document`` read from start to end, comparable between paths."""
    order: list[int] = []
    value = document
    for part in path:
        order.append(list(value).index(part) if isinstance(value, dict) else int(part))
        value = value[part]
    return tuple(order)


async def read_json(request: Request, model: type[ModelT]) -> tuple[ModelT, bytes]:
    """The body read (see :func:`read_body`) and validated (see :func:`parse_body`), refused with
    415 ``unsupported_media_type`` first when it says it is something other than JSON.
    """
    _check_media_type(request)
    raw = await read_body(request)
    return parse_body(raw, model), raw


async def read_optional_json(request: Request, model: type[ModelT]) -> ModelT | None:
    """As :func:`read_json`, for an operation whose body may be left out: None when it is."""
    _check_media_type(request)
    raw = await read_body(request)
    return parse_body(raw, model) if raw else None


def _check_media_type(request: Request) -> None:
    media_type = header(request, b"content-type")
    if media_type is not None and not _is_json(media_type):
        raise ProblemError(
            415,
            "unsupported_media_type",
            f"Content-Type {media_type!r} is not JSON; send application/json",
        )


def _is_json(content_type: str) -> bool:
    essence = content_type.partition(";")[0].strip().lower()
    return essence == "application/json" or (
        essence.startswith("application/") and essence.endswith("+json")
    )


# Every digit reads as 0 and either exponent letter as e; anything else is a space, except that a
# plus sign goes, so that ``e+400`` reads as ``e000``.
_NUMBER_SHAPES = bytes(
    ord("0") if byte in b"0123456789" else ord("e") if byte in b"eE" else ord(" ")
    for byte in range(256)
)
# 1.8e308 is the largest finite float: reaching it takes an exponent of three digits, or with an
# exponent of at most 99 a run of at least 210 digits.
_THREE_DIGIT_EXPONENT = b"e000"
_LONG_NUMBER = b"0" * 200


def may_hold_non_finite(raw: bytes) -> bool:
    """Whether the JSON document ``raw`` may hold NaN or an infinity, as far as its bytes tell:
    False means it certainly does not, so :func:`ensure_finite` can be skipped for its values.

    Only the tokens ``NaN`` and ``Infinity`` and numbers too large for a float parse as
    non-finite; each is looked for over the raw bytes at C speed (walking a 500-entry batch in
    Python costs ten times as long), erring towards True.
    """
    if raw.find(b"N") >= 0 and b"NaN" in raw:
        return True
    if raw.find(b"I") >= 0 and b"Infinity" in raw:
        return True
    shapes = raw.translate(_NUMBER_SHAPES, b"+")
    return _THREE_DIGIT_EXPONENT in shapes or _LONG_NUMBER in shapes


def ensure_finite(value: Any, location: str) -> None:
    """422 when a JSON value holds NaN or an infinity, which JSON cannot carry back out."""
    if isinstance(value, float) and not math.isfinite(value):
        raise _validation_failed([FieldIssue(location, "numbers must be finite")])
    if isinstance(value, dict):
        for key, item in value.items():
            ensure_finite(item, f"{location}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            ensure_finite(item, f"{location}.{index}")


def invalid(location: str, message: str) -> ProblemError:
    """A 422 ``validation_failed`` about one field."""
    return _validation_failed([FieldIssue(location, message)])


def _validation_failed(issues: Any) -> ProblemError:
    errors = list(issues)
    count = len(errors)
    noun = "field is" if count == 1 else "fields are"
    return ProblemError(422, "validation_failed", f"{count} {noun} invalid", errors=errors)


def _location(parts: Sequence[int | str]) -> str:
    return ".".join(["body", *(str(part) for part in parts)])
