"""The API document as test data: its operations, their examples, and the calls they make."""

from __future__ import annotations

import datetime
import functools
import importlib
import inspect
import re
import ssl
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import yaml

import generated
from generated.types import Response, Unset

__all__ = [
    "BASE_URL",
    "HTTP_METHODS",
    "SPEC_PATH",
    "TOKEN",
    "YAML_DUMPER",
    "YAML_LOADER",
    "ExampleRequest",
    "MissingExample",
    "Operation",
    "SchemaExample",
    "all_examples",
    "body_model",
    "call_arguments",
    "call_operation",
    "canonical_json",
    "example_request",
    "load_spec",
    "media_example",
    "operations",
    "resolve",
    "response_example",
    "schema_examples",
    "snake_case",
    "wire_string",
]

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi.yaml"
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
BASE_URL = "http://spool.test"
TOKEN = "test-token"


class MissingExample(LookupError):
    """The spec gives no example for a part of an operation that the example-driven tests need."""


# libyaml's parser and emitter where PyYAML has them, as the service reads the document: the
# pure-Python ones take 140 ms to load openapi.yaml and 90 ms to dump it, libyaml's 18 and 20.
YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
YAML_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@functools.cache
def load_spec() -> dict[str, Any]:
    """The parsed openapi.yaml, loaded once per test session (callers must not mutate it)."""
    loaded: dict[str, Any] = yaml.load(SPEC_PATH.read_text(encoding="utf-8"), Loader=YAML_LOADER)
    return loaded


def resolve(spec: Mapping[str, Any], node: Mapping[str, Any]) -> dict[str, Any]:
    """Follow `$ref`s at the top of `node` (local references only) to the object they name."""
    seen: set[str] = set()
    while "$ref" in node:
        reference = node["$ref"]
        if not reference.startswith("#/") or reference in seen:
            raise ValueError(f"cannot resolve {reference!r}: only acyclic local references")
        seen.add(reference)
        target: Any = spec
        for part in reference[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return dict(node)


def snake_case(name: str) -> str:
    """The Python name the generator gives an operationId or a parameter (`Idempotency-Key`)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).replace("-", "_").lower()


def wire_string(value: Any) -> str:
    """A parameter value as it appears in a URL or header: JSON spelling for booleans."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Operation:
    """One operation of the spec, with its parameters and responses resolved."""

    operation_id: str
    method: str
    path: str
    tags: tuple[str, ...]
    raw: Mapping[str, Any]
    parameters: tuple[Mapping[str, Any], ...]
    request_body: Mapping[str, Any] | None
    responses: Mapping[str, Mapping[str, Any]]
    security: tuple[Mapping[str, Any], ...]

    @property
    def tag(self) -> str:
        """The single tag, which is also the generated subpackage under `generated.api`."""
        (tag,) = self.tags
        return tag

    @property
    def module_name(self) -> str:
        """The dotted name of the generated module for this operation."""
        return f"generated.api.{self.tag}.{snake_case(self.operation_id)}"

    def module(self) -> types.ModuleType:
        """The generated module for this operation."""
        return importlib.import_module(self.module_name)

    @property
    def success_statuses(self) -> tuple[str, ...]:
        """The documented 2xx statuses, in the spec's order."""
        return tuple(status for status in self.responses if status.startswith("2"))

    @property
    def error_statuses(self) -> tuple[str, ...]:
        """The documented 4xx and 5xx statuses, in the spec's order."""
        return tuple(status for status in self.responses if status[0] in "45")


def operations(spec: Mapping[str, Any] | None = None) -> list[Operation]:
    """Every operation of `spec` (openapi.yaml by default), in document order."""
    spec = load_spec() if spec is None else spec
    found = []
    default_security = tuple(spec.get("security", ()))
    for path, path_item in spec.get("paths", {}).items():
        shared_parameters = [resolve(spec, p) for p in path_item.get("parameters", ())]
        for method in HTTP_METHODS:
            if method not in path_item:
                continue
            raw = path_item[method]
            own_parameters = [resolve(spec, p) for p in raw.get("parameters", ())]
            own_keys = {(p["name"], p["in"]) for p in own_parameters}
            inherited = [p for p in shared_parameters if (p["name"], p["in"]) not in own_keys]
            request_body = raw.get("requestBody")
            found.append(
                Operation(
                    operation_id=raw.get("operationId", ""),
                    method=method,
                    path=path,
                    tags=tuple(raw.get("tags", ())),
                    raw=raw,
                    parameters=(*inherited, *own_parameters),
                    request_body=None if request_body is None else resolve(spec, request_body),
                    responses={
                        status: resolve(spec, response)
                        for status, response in raw.get("responses", {}).items()
                    },
                    security=tuple(raw.get("security", default_security)),
                )
            )
    return found


def media_example(media_type: Mapping[str, Any], *, where: str) -> Any:
    """The `example` of a media type object; `where` names it in the error when it has none."""
    if "example" not in media_type:
        raise MissingExample(f"{where} has no example")
    return media_type["example"]


def _single_media(content: Mapping[str, Any], *, where: str) -> tuple[str, Mapping[str, Any]]:
    # The generator reads only the first content type, so a second one would go untested.
    if len(content) != 1:
        raise ValueError(f"{where} must have exactly one content type, has {sorted(content)}")
    ((content_type, media_type),) = content.items()
    return content_type, media_type


@dataclass(frozen=True)
class ExampleRequest:
    """What an operation's examples say to send, as arguments and as the HTTP request."""

    path: str
    path_params: Mapping[str, Any]
    query_params: Mapping[str, Any]
    header_params: Mapping[str, Any]
    body: Any
    has_body: bool


def example_request(operation: Operation) -> ExampleRequest:
    """Build the request from the operation's examples; raise MissingExample when one is absent."""
    by_location: dict[str, dict[str, Any]] = {"path": {}, "query": {}, "header": {}, "cookie": {}}
    for parameter in operation.parameters:
        if "example" not in parameter:
            raise MissingExample(
                f"{operation.operation_id}: parameter {parameter['name']!r} has no example"
            )
        by_location[parameter["in"]][parameter["name"]] = parameter["example"]
    if by_location["cookie"]:
        raise ValueError(f"{operation.operation_id}: cookie parameters are not supported here")
    path = operation.path
    for name, value in by_location["path"].items():
        path = path.replace("{" + name + "}", quote(wire_string(value), safe=""))
    body: Any = None
    if operation.request_body is not None:
        where = f"{operation.operation_id}: request body"
        _, media_type = _single_media(operation.request_body["content"], where=where)
        body = media_example(media_type, where=where)
    return ExampleRequest(
        path=path,
        path_params=by_location["path"],
        query_params=by_location["query"],
        header_params=by_location["header"],
        body=body,
        has_body=operation.request_body is not None,
    )


def response_example(operation: Operation, status: str) -> tuple[str, Any] | None:
    """The content type and example of one documented response, or None when it has no body."""
    content = operation.responses[status].get("content")
    if not content:
        return None
    where = f"{operation.operation_id}: response {status}"
    content_type, media_type = _single_media(content, where=where)
    return content_type, media_example(media_type, where=where)


def body_model(operation: Operation) -> Any:
    """The generated model the operation's `body` argument takes, read from its annotations."""
    hints = typing.get_type_hints(operation.module()._get_kwargs)
    candidates = typing.get_args(hints["body"]) or (hints["body"],)
    models = [c for c in candidates if isinstance(c, type) and not issubclass(c, Unset)]
    if len(models) != 1:
        raise TypeError(f"{operation.operation_id}: expected one body model, got {models}")
    return models[0]


def _argument_name(name: str, location: str, accepted: Mapping[str, Any]) -> str:
    """The generated call's argument for parameter ``name``: openapi-python-client adds the
    location (``url`` becomes ``url_query``) to a name it keeps for itself.
    """
    python = snake_case(name)
    suffixed = f"{python}_{location}"
    return suffixed if python not in accepted and suffixed in accepted else python


def call_arguments(operation: Operation, request: ExampleRequest) -> dict[str, Any]:
    """The keyword arguments (without `client`) that make the generated call send `request`."""
    accepted = inspect.signature(operation.module()._get_kwargs).parameters
    arguments = {
        _argument_name(name, location, accepted): value
        for location, params in (
            ("path", request.path_params),
            ("query", request.query_params),
            ("header", request.header_params),
        )
        for name, value in params.items()
    }
    for name, value in arguments.items():
        # A date-time parameter's example is its text; the generated call takes a datetime.
        if isinstance(value, str) and "datetime" in str(accepted[name].annotation):
            arguments[name] = datetime.datetime.fromisoformat(value)
    if request.has_body:
        arguments["body"] = body_model(operation).from_dict(request.body)
    return arguments


@functools.cache
def _tls() -> ssl.SSLContext:
    # One TLS context for every test client: each new one would load the CA bundle again (24 ms,
    # 20 s of the suite's CPU over the operations' 700 cases), although respx answers before any
    # TLS is spoken. Made on first use, not when a worker imports this module.
    return ssl.create_default_context()


async def call_operation(
    operation: Operation, *, mode: Literal["sync", "async"], arguments: Mapping[str, Any]
) -> Response[Any]:
    """Call the operation's `sync_detailed` or `asyncio_detailed` with a fresh test client."""
    module = operation.module()
    client = generated.AuthenticatedClient(base_url=BASE_URL, token=TOKEN, verify_ssl=_tls())
    if mode == "sync":
        with client:
            response: Response[Any] = module.sync_detailed(client=client, **arguments)
            return response
    async with client:
        response = await module.asyncio_detailed(client=client, **arguments)
        return response


def canonical_json(spec: Mapping[str, Any], schema: Mapping[str, Any], value: Any) -> Any:
    """`value` with its `date-time` strings parsed, so `Z` and `+00:00` compare equal."""
    schema = resolve(spec, schema)
    if isinstance(value, str) and schema.get("format") == "date-time":
        return datetime.datetime.fromisoformat(value)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        fallback = extra if isinstance(extra, dict) else {}
        return {
            key: canonical_json(spec, properties.get(key, fallback), item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [canonical_json(spec, schema.get("items", {}), item) for item in value]
    return value


@dataclass(frozen=True)
class SchemaExample:
    """An example the spec gives for a named schema, with where it was found."""

    where: str
    schema_name: str
    example: Any

    @property
    def schema(self) -> dict[str, str]:
        """A reference to the named schema, for `canonical_json`."""
        return {"$ref": f"#/components/schemas/{self.schema_name}"}


def _named_schema(media_type: Mapping[str, Any]) -> str | None:
    reference = media_type.get("schema", {}).get("$ref", "")
    prefix = "#/components/schemas/"
    return reference[len(prefix) :] if reference.startswith(prefix) else None


def _body_media_types(spec: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    # Shared responses are named after their component and visited once, not once per use.
    seen: set[str] = set()
    for operation in operations(spec):
        bodies = []
        if operation.request_body is not None:
            bodies.append((f"{operation.operation_id}-request", operation.request_body))
        for status, response in operation.responses.items():
            reference = operation.raw["responses"][status].get("$ref", "")
            shared_name = reference.rsplit("/", 1)[-1]
            bodies.append((shared_name or f"{operation.operation_id}-{status}", response))
        for where, body in bodies:
            if where not in seen:
                seen.add(where)
                for media_type in body.get("content", {}).values():
                    yield where, media_type


def schema_examples(spec: Mapping[str, Any] | None = None) -> Iterator[SchemaExample]:
    """Every request and response example whose schema is a named component, each once."""
    for where, media_type in _body_media_types(load_spec() if spec is None else spec):
        name = _named_schema(media_type)
        if name is not None:
            yield SchemaExample(where, name, media_example(media_type, where=where))


def all_examples(spec: Mapping[str, Any] | None = None) -> Iterator[tuple[str, Any, Any]]:
    """(where, schema, example) for every example of a parameter, request body or response."""
    spec = load_spec() if spec is None else spec
    for operation in operations(spec):
        for parameter in operation.parameters:
            if "example" in parameter:
                where = f"{operation.operation_id}-{parameter['in']}-{parameter['name']}"
                yield where, parameter.get("schema", {}), parameter["example"]
    for where, media_type in _body_media_types(spec):
        if "example" in media_type:
            yield where, media_type.get("schema", {}), media_type["example"]
