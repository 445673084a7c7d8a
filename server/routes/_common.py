"""What every route does: authenticate, check names, read and validate the body, read query
parameters, and shape JSON responses.

Validation uses the pydantic models ``make generate`` writes from openapi.yaml, in strict mode so
that ``"5"`` is not silently an integer: malformed JSON is ``400 malformed_request`` and a schema
violation is ``422 validation_failed`` with the location of every invalid field.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping
from datetime import UTC, datetime
from types import UnionType
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

import anyio
import pydantic_core
from pydantic import BaseModel, RootModel, ValidationError
from pydantic_core import SchemaValidator, core_schema
from starlette.requests import Request
from starlette.responses import Response
from typing_extensions import TypeAliasType

from ..auth import Principal, TokenRegistry
from ..config import Settings
from ..destinations import DestinationPolicy
from ..encoding import json_bytes
from ..idempotency import IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER, idempotent_request, key_reused
from ..problems import FieldIssue, ProblemError
from ..stores.base import ConflictError, IdempotencyClaim, NotFoundError, Store
from ._spec import SpecFacts

__all__ = [
    "AppContext",
    "Published",
    "authenticate",
    "check_rate",
    "context_of",
    "ensure_finite",
    "invalid",
    "json_response",
    "may_hold_non_finite",
    "parse_body",
    "path_name",
    "publish",
    "query_bool",
    "query_int",
    "query_value",
    "read_body",
    "read_json",
    "rfc3339",
    "without_none",
]

ModelT = TypeVar("ModelT", bound=BaseModel)
RootT = TypeVar("RootT", bound=RootModel[Any])

_PATH_LABELS = {
    "stream": "stream name",
    "queue": "queue name",
    "url_group": "URL group name",
    "group": "consumer group name",
    "job_id": "job id",
    "message_id": "message id",
}
_INTEGER = re.compile(r"-?[0-9]{1,20}")


@dataclasses.dataclass(frozen=True, slots=True)
class AppContext:
    """The opened store and the per-process services the routes share."""

    settings: Settings
    store: Store
    spec: SpecFacts
    tokens: TokenRegistry
    destinations: DestinationPolicy
    # Called after messages become due, so a delivery engine in this process looks at once instead
    # of at its next poll.
    message_scheduled: list[Callable[[], None]] = dataclasses.field(default_factory=list)

    def notify_message_scheduled(self) -> None:
        """Tell this process's listeners that messages were scheduled."""
        for listener in self.message_scheduled:
            listener()


def context_of(request: Request) -> AppContext:
    """The running app's context (set by its lifespan)."""
    context = getattr(request.app.state, "context", None)
    if not isinstance(context, AppContext):
        raise RuntimeError("the app's lifespan has not run: no store is open")
    return context


def authenticate(request: Request) -> Principal:
    """The caller, from the bearer token; 401 ``unauthenticated`` without a known one."""
    return context_of(request).tokens.authenticate(request.headers.get("authorization"))


def path_name(request: Request, parameter: str) -> str:
    """A path parameter checked against its pattern in openapi.yaml (400 ``invalid_name``)."""
    value: str = request.path_params[parameter]
    pattern = context_of(request).spec.path_patterns[parameter]
    if not pattern.fullmatch(value):
        label = _PATH_LABELS.get(parameter, parameter)
        raise ProblemError(
            400, "invalid_name", f"{label} {value!r} does not match {pattern.pattern}"
        )
    return value


async def read_body(request: Request) -> bytes:
    """The raw body, refused with 413 ``payload_too_large`` as soon as it is known to be over the
    limit: from ``Content-Length`` before reading anything, else while counting streamed bytes.
    """
    limit = context_of(request).settings.max_body_bytes
    declared = request.headers.get("content-length")
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
    media_type = request.headers.get("content-type")
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


def rfc3339(timestamp: float) -> str:
    """Seconds since the epoch as an RFC 3339 UTC time with milliseconds and a ``Z``."""
    moment = datetime.fromtimestamp(timestamp, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def without_none(document: Mapping[str, Any]) -> dict[str, Any]:
    """``document`` without the optional fields that are absent (the spec omits, never nulls)."""
    return {key: value for key, value in document.items() if value is not None}


def json_response(document: Any, status: int = 200) -> Response:
    """A compact JSON response."""
    return Response(json_bytes(document), status_code=status, media_type="application/json")


@dataclasses.dataclass(frozen=True, slots=True)
class Published:
    """What a publish route's store write answers: the response's JSON document, rendered from the
    store's result alone (so a replay renders the first answer's bytes), and whether the store
    replayed that result for an Idempotency-Key rather than writing now.
    """

    document: dict[str, object]
    replayed: bool


PublishWrite = Callable[[IdempotencyClaim | None], Awaitable[Published]]


async def publish(
    request: Request,
    principal: Principal,
    *,
    operation: str,
    raw_body: bytes,
    items: int,
    status: int,
    write: PublishWrite,
) -> Response:
    """Run a validated publish: ``write`` is one store write that, given the request's
    Idempotency-Key as a claim, also replays or refuses a repeat (see server/idempotency.py).

    With a quota, ``items`` are taken from it before writing (429 ``quota_exceeded`` when that
    would run over) and given back when the write fails or turns out to be a replay. A repeat of a
    publish that was made is still answered when the quota is used up, taking nothing.
    """
    context = context_of(request)
    key = request.headers.get(IDEMPOTENCY_KEY_HEADER)
    # Starlette builds ``request.url`` anew on every access (py-spy: 2.5% of an unkeyed publish);
    # only a keyed one needs its path.
    claim = (
        None
        if key is None
        else idempotent_request(
            key,
            key_pattern=context.spec.idempotency_key_pattern,
            token_id=principal.token_id,
            operation=operation,
            method=request.method,
            path=request.url.path,
            raw_body=raw_body,
            ttl=context.settings.idempotency_ttl_seconds,
        )
    )
    published = await _charged_write(context.store, principal, items, claim, write)
    headers = {REPLAYED_HEADER: "true"} if published.replayed else None
    return Response(
        json_bytes(published.document),
        status_code=status,
        headers=headers,
        media_type="application/json",
    )


async def _charged_write(
    store: Store,
    principal: Principal,
    items: int,
    claim: IdempotencyClaim | None,
    write: PublishWrite,
) -> Published:
    quota = principal.quota
    if quota is None:
        return await _write_once(write, claim)
    if not await store.consume_quota(principal.token_id, items, limit=quota):
        if claim is not None:
            # The quota holds back new writes only: the repeat of a publish that was made (whose
            # first answer may have been lost) is answered as ever.
            try:
                return await _write_once(write, dataclasses.replace(claim, replay_only=True))
            except NotFoundError as error:
                if error.code != "idempotency_record_not_found":
                    raise
        raise ProblemError(
            429, "quota_exceeded", f"token's quota of {quota} published items is used up"
        )
    try:
        published = await _write_once(write, claim)
    except BaseException:
        await _refund(store, principal.token_id, items)
        raise
    if published.replayed:
        await _refund(store, principal.token_id, items)
    return published


async def _write_once(write: PublishWrite, claim: IdempotencyClaim | None) -> Published:
    try:
        return await write(claim)
    except ConflictError as error:
        if claim is None or error.code != "conflict":
            raise
        raise key_reused() from None


async def _refund(store: Store, token_id: str, items: int) -> None:
    # Shielded so that a cancelled request still gives back what it took.
    with anyio.CancelScope(shield=True):
        await store.refund_quota(token_id, items)


async def check_rate(request: Request, principal: Principal) -> None:
    """429 ``rate_limited`` with ``Retry-After`` when the token is over its rate, by a bucket the
    store keeps for every process sharing it.
    """
    if principal.rate_limit is None:
        return
    wait = await context_of(request).store.take_rate_token(
        principal.token_id,
        per_second=principal.rate_limit.per_second,
        burst=principal.rate_limit.burst,
    )
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise ProblemError(
            429,
            "rate_limited",
            f"token {principal.token_id!r} is over its rate limit; retry in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )
