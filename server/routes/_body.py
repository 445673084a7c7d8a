"""Request bodies: read within the size limit, then validated by the pydantic models ``make
generate`` writes from openapi.yaml, in strict mode so that ``"5"`` is not silently an integer:
malformed JSON is ``400 malformed_request`` and a schema violation is ``422 validation_failed``
with the location of every invalid field. Two JSON Schema rules pydantic does not share are built
in (see :func:`parse_body`).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterator
from types import UnionType
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

import pydantic_core
from pydantic import BaseModel, RootModel, ValidationError
from pydantic_core import SchemaValidator, core_schema
from starlette.requests import Request
from typing_extensions import TypeAliasType

from ..problems import FieldIssue, ProblemError
from ._context import context_of, header

__all__ = [
    "ensure_finite",
    "invalid",
    "may_hold_non_finite",
    "parse_body",
    "read_body",
    "read_json",
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

    Two JSON Schema rules that pydantic's strict mode does not share hold as well: a number like
    ``90.0`` is an integer, and ``null`` is not a value for an optional field that the schema types
    (only the "any JSON value" fields such as ``body`` may be null).

    A body the model accepts is validated in one pass by a copy of the model's compiled schema
    that has both rules built in (see :func:`_rules_built_in`); anything that copy refuses goes
    the long way (:func:`_parse_with_walks`), which finds exactly what is wrong and where.
    """
    if not raw.strip():
        raise ProblemError(400, "malformed_request", "the request body is empty; send JSON")
    validator = _one_pass_validator(model)
    if validator is not None:
        try:
            return validator.validate_json(raw, strict=True)  # type: ignore[no-any-return]
        except ValidationError:
            pass
    return _parse_with_walks(raw, model)


def _parse_with_walks(raw: bytes, model: type[ModelT]) -> ModelT:
    """:func:`parse_body` the slow way: the document is walked in Python for each rule, and its
    problems (or the model) come out in the order and with the locations clients rely on.
    """
    try:
        # The parser model_validate_json uses, so both agree on what JSON is.
        document = pydantic_core.from_json(raw)
    except ValueError as error:
        raise ProblemError(400, "malformed_request", f"Invalid JSON: {error}") from None
    nulls = list(_explicit_nulls(document, model, "body"))
    if nulls:
        raise _validation_failed(nulls)
    normalized = _integral_floats_as_ints(document, model)
    source = raw if normalized is document else json.dumps(normalized).encode()
    try:
        return model.model_validate_json(source, strict=True)
    except ValidationError as error:
        issues = error.errors(include_url=False, include_input=False)
        raise _validation_failed(
            FieldIssue(location=_location("body", issue["loc"]), message=issue["msg"])
            for issue in issues
        ) from None


_ONE_PASS_VALIDATORS: dict[type[BaseModel], SchemaValidator | None] = {}
# Core schema types with nothing inside that the walks look into: validated as they are.
_LEAF_SCHEMAS = frozenset(
    {
        "any", "none", "bool", "float", "decimal", "str", "bytes", "date", "time", "datetime",
        "timedelta", "literal", "enum", "dict", "set", "frozenset", "tuple", "url",
        "multi-host-url", "uuid", "complex", "is-instance", "is-subclass", "callable",
    }
)  # fmt: skip


def _one_pass_validator(model: type[BaseModel]) -> SchemaValidator | None:
    """The model's one-pass validator, built on first use; None for a model whose schema has
    parts :func:`_rules_built_in` does not know (its bodies all take the long way).
    """
    try:
        return _ONE_PASS_VALIDATORS[model]
    except KeyError:
        pass
    rebuilt: set[type[BaseModel]] = set()
    try:
        schema = _rules_built_in(copy.deepcopy(model.__pydantic_core_schema__), rebuilt)
    except TypeError:
        validator = None
    else:
        validator = _compiled(schema, rebuilt)
    _ONE_PASS_VALIDATORS[model] = validator
    return validator


def _compiled(schema: Any, rebuilt: set[type[BaseModel]]) -> SchemaValidator:
    """``schema`` compiled as given: pydantic-core would otherwise take the validator a finished
    model class already has in place of its schema, so the rebuilt classes are marked unfinished
    for the moment it compiles.
    """
    for model in rebuilt:
        type.__setattr__(model, "__pydantic_complete__", False)
    try:
        return SchemaValidator(schema)
    finally:
        for model in rebuilt:
            type.__setattr__(model, "__pydantic_complete__", True)


def _rules_built_in(schema: Any, rebuilt: set[type[BaseModel]]) -> Any:
    """A model's core schema with the two extra rules of :func:`parse_body` in it, applied where
    the walks apply them (fields of models, items of lists) and nowhere else: a whole float becomes
    an int before an int schema sees it, and an optional typed field of a model is no longer
    nullable. It accepts no body that the walks refuse; it may refuse one that they accept, which
    then only takes the long way. The model classes whose schemas it changed are added to
    ``rebuilt``. TypeError for a schema it cannot be sure of: a union (the walks check a value
    against every member, pydantic picks one), a validator function, a tagged union, a shared
    definition.
    """
    kind = schema["type"]
    if kind == "int":
        return core_schema.no_info_before_validator_function(_whole_float_as_int, schema)
    if kind in ("nullable", "default"):
        return {**schema, "schema": _rules_built_in(schema["schema"], rebuilt)}
    if kind == "list":
        return {**schema, "items_schema": _rules_built_in(schema["items_schema"], rebuilt)}
    if kind == "model":
        if schema.get("root_model"):
            return schema
        fields = schema["schema"]
        if fields["type"] != "model-fields":
            raise TypeError(f"{schema['cls'].__name__}: unexpected {fields['type']!r} schema")
        new_fields = {name: _no_null(field, rebuilt) for name, field in fields["fields"].items()}
        rebuilt.add(schema["cls"])
        return {**schema, "schema": {**fields, "fields": new_fields}}
    if kind in _LEAF_SCHEMAS:
        return schema
    raise TypeError(f"no one-pass validation for a {kind!r} core schema")


def _no_null(field: Any, rebuilt: set[type[BaseModel]]) -> Any:
    """A model field's schema that refuses an explicit ``null`` unless the field is any JSON."""
    if field["type"] != "model-field" or "validation_alias" in field:
        raise TypeError(f"no one-pass validation for a {field['type']!r} field")
    outer = field["schema"]
    inner = outer["schema"] if outer["type"] == "default" else outer
    if inner["type"] == "any":
        return field
    if inner["type"] == "nullable":
        inner = inner["schema"]
        if inner["type"] == "any":
            raise TypeError("no one-pass validation for an optional any-JSON field")
    inner = _rules_built_in(inner, rebuilt)
    schema = {**outer, "schema": inner} if outer["type"] == "default" else inner
    return {**field, "schema": schema}


def _whole_float_as_int(value: Any) -> Any:
    if type(value) is float and value.is_integer():
        return int(value)
    return value


def _unwrap(annotation: Any) -> Any:
    """The type a value is checked against: aliases, ``Annotated`` and root models (a schema
    shared by ``$ref``, such as ``MaxDeliveries``) seen through.
    """
    while True:
        if isinstance(annotation, TypeAliasType):
            annotation = annotation.__value__
        elif get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
        elif isinstance(annotation, type) and issubclass(annotation, RootModel):
            annotation = annotation.model_fields["root"].annotation
        else:
            return annotation


def _model_fields(annotation: Any) -> dict[str, Any] | None:
    """The field annotations of a (non-root) pydantic model type, else None."""
    if (
        isinstance(annotation, type)
        and issubclass(annotation, BaseModel)
        and not issubclass(annotation, RootModel)
    ):
        return {name: info.annotation for name, info in annotation.model_fields.items()}
    return None


def _element_types(annotation: Any) -> list[Any]:
    """The member types of a union, or the annotation itself."""
    if get_origin(annotation) in (Union, UnionType):
        return [member for member in get_args(annotation) if member is not type(None)]
    return [annotation]


def _explicit_nulls(value: Any, annotation: Any, location: str) -> Iterator[FieldIssue]:
    for member in _element_types(_unwrap(annotation)):
        member = _unwrap(member)
        fields = _model_fields(member)
        if fields is not None and isinstance(value, dict):
            for key, item in value.items():
                if key not in fields:
                    continue
                if item is None and fields[key] is not Any:
                    yield FieldIssue(f"{location}.{key}", "Input should not be null")
                else:
                    yield from _explicit_nulls(item, fields[key], f"{location}.{key}")
        elif get_origin(member) is list and isinstance(value, list):
            (item_type,) = get_args(member)
            for index, item in enumerate(value):
                yield from _explicit_nulls(item, item_type, f"{location}.{index}")


def _integral_floats_as_ints(value: Any, annotation: Any) -> Any:
    """``value`` with whole floats turned into ints where ``annotation`` wants an int; the very
    same object when nothing changed.
    """
    for member in _element_types(_unwrap(annotation)):
        member = _unwrap(member)
        if member is int and isinstance(value, float) and value.is_integer():
            return int(value)
        fields = _model_fields(member)
        if fields is not None and isinstance(value, dict):
            converted = {
                key: _integral_floats_as_ints(item, fields[key]) if key in fields else item
                for key, item in value.items()
            }
            if any(converted[key] is not value[key] for key in value):
                return converted
        elif get_origin(member) is list and isinstance(value, list):
            (item_type,) = get_args(member)
            items = [_integral_floats_as_ints(item, item_type) for item in value]
            if any(new is not old for new, old in zip(items, value, strict=True)):
                return items
    return value


async def read_json(request: Request, model: type[ModelT]) -> tuple[ModelT, bytes]:
    """The body read (see :func:`read_body`) and validated (see :func:`parse_body`), refused with
    415 ``unsupported_media_type`` first when it says it is something other than JSON.
    """
    media_type = header(request, b"content-type")
    if media_type is not None and not _is_json(media_type):
        raise ProblemError(
            415,
            "unsupported_media_type",
            f"Content-Type {media_type!r} is not JSON; send application/json",
        )
    raw = await read_body(request)
    return parse_body(raw, model), raw


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


def _location(prefix: str, parts: tuple[int | str, ...]) -> str:
    return ".".join([prefix, *(str(part) for part in parts)])
