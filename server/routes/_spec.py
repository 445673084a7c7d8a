"""Facts the routes take from openapi.yaml, so the document stays the one place they are written.

Path parameter patterns, the reserved topic prefix, the Idempotency-Key pattern, how far ahead a
message may be scheduled and the permission every operation needs (its ``x-spool-permission``) are
read from the document at startup; the document's exact bytes are what ``GET /openapi.yaml``
serves.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path
from typing import Any, Literal

import yaml

from ..config import Action, Resource

__all__ = [
    "PermissionScope",
    "RequiredPermission",
    "SpecError",
    "SpecFacts",
    "SpecOperation",
    "load_spec_facts",
]

PermissionScope = Literal["path", "destination", "message", "listed", "every", "token"]

_HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
_PERMISSION_KEYS = {"resource", "action", "scope"}
# The kinds a token's permission may name, without the "*" that covers them all.
_RESOURCES: dict[str, Resource] = {
    "stream": "stream",
    "queue": "queue",
    "message": "message",
    "url_group": "url_group",
    "schedule": "schedule",
}
# "any" is some action, whichever: None.
_ACTIONS: dict[str, Action | None] = {
    "publish": "publish",
    "consume": "consume",
    "admin": "admin",
    "any": None,
}
# libyaml's parser reads the document about seven times faster than PyYAML's own, and every
# service process (and every app a test makes) reads it at startup; PyYAML built without libyaml
# has only its own.
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SCOPES: dict[str, PermissionScope] = {
    "path": "path",
    "destination": "destination",
    "message": "message",
    "listed": "listed",
    "every": "every",
    "token": "token",
}


class SpecError(ValueError):
    """The API document lacks something the service needs, or disagrees with what it serves."""


@dataclasses.dataclass(frozen=True, slots=True)
class RequiredPermission:
    """An operation's ``x-spool-permission``: the action (None for ``any``) it needs on resources
    of a kind, and which of them the scope checks (see "Permissions" in the document).
    """

    resource: Resource
    action: Action | None
    scope: PermissionScope


@dataclasses.dataclass(frozen=True, slots=True)
class SpecOperation:
    """One operation of the document: its id, the permission it needs (None when its
    ``security`` is empty, so it needs no token at all) and the names of its query parameters.
    """

    operation_id: str
    permission: RequiredPermission | None
    query_names: frozenset[str] = frozenset()


@dataclasses.dataclass(frozen=True, slots=True)
class SpecFacts:
    """What the service needs from openapi.yaml, read once."""

    source: Path
    document: bytes
    version: str
    path_patterns: dict[str, re.Pattern[str]]
    reserved_topic_prefix: str
    idempotency_key_pattern: re.Pattern[str]
    # The latest a message's not_before may be, in seconds from now: as far as its delay goes.
    schedule_horizon_seconds: int
    # By upper-case method and path template, as in ("GET", "/v1/streams/{stream}").
    operations: dict[tuple[str, str], SpecOperation]


def load_spec_facts(path: Path) -> SpecFacts:
    """Read the document at ``path`` and pick out the facts; KeyError names a missing one, and
    SpecError an operation whose permission is missing or cannot be applied.
    """
    return _facts_of(path.read_bytes(), path)


# A process that makes several apps (a test suite does, one per test) reads an unchanged document
# once; the facts are never modified after they are read.
@functools.lru_cache(maxsize=4)
def _facts_of(document: bytes, path: Path) -> SpecFacts:
    spec: dict[str, Any] = yaml.load(document, Loader=_SAFE_LOADER)
    components = spec["components"]
    path_patterns: dict[str, re.Pattern[str]] = {}
    for parameter in components["parameters"].values():
        if parameter["in"] != "path":
            continue
        schema = _resolve(spec, parameter["schema"])
        path_patterns[parameter["name"]] = re.compile(schema["pattern"])
    idempotency_schema = _resolve(spec, components["parameters"]["IdempotencyKey"]["schema"])
    delay_schema = components["schemas"]["PublishMessageRequest"]["properties"]["delay"]
    return SpecFacts(
        source=path,
        document=document,
        version=str(spec["info"]["version"]),
        path_patterns=path_patterns,
        reserved_topic_prefix=str(components["schemas"]["Topic"]["x-spool-reserved-prefix"]),
        idempotency_key_pattern=re.compile(idempotency_schema["pattern"]),
        schedule_horizon_seconds=int(delay_schema["maximum"]),
        operations=_operations(spec, path),
    )


def _operations(spec: dict[str, Any], source: Path) -> dict[tuple[str, str], SpecOperation]:
    default_security = spec.get("security", [])
    found: dict[tuple[str, str], SpecOperation] = {}
    for template, item in spec["paths"].items():
        for method in _HTTP_METHODS:
            if method not in item:
                continue
            operation = item[method]
            operation_id = str(operation["operationId"])
            where = f"{source}: {operation_id} ({method.upper()} {template})"
            permission = None
            if operation.get("security", default_security) != []:
                permission = _required_permission(operation.get("x-spool-permission"), where)
                if permission.scope == "path" and f"{{{permission.resource}}}" not in template:
                    raise SpecError(
                        f"{where}: scope path checks the {permission.resource} named in the path, "
                        f"but the path has no {{{permission.resource}}} parameter"
                    )
            parameters = [*item.get("parameters", []), *operation.get("parameters", [])]
            query_names = frozenset(
                str(parameter["name"])
                for parameter in (_resolve(spec, node) for node in parameters)
                if parameter["in"] == "query"
            )
            found[(method.upper(), template)] = SpecOperation(operation_id, permission, query_names)
    return found


def _required_permission(stated: Any, where: str) -> RequiredPermission:
    if stated is None:
        raise SpecError(f"{where} needs a token but states no x-spool-permission")
    if not isinstance(stated, dict) or set(stated) != _PERMISSION_KEYS:
        raise SpecError(
            f"{where}: x-spool-permission must have exactly resource, action and scope, "
            f"not {stated!r}"
        )
    resource, action, scope = stated["resource"], stated["action"], stated["scope"]
    if scope == "token":
        # The caller's own token, which every token may read: no kind or action to check.
        if resource != "*" or action != "any":
            raise SpecError(f"{where}: scope token needs resource '*' and action any")
        return RequiredPermission("*", None, "token")
    for name, value, allowed in (
        ("resource", resource, _RESOURCES),
        ("action", action, _ACTIONS),
        ("scope", scope, _SCOPES),
    ):
        if value not in allowed:
            raise SpecError(
                f"{where}: x-spool-permission {name} {value!r} is not one of {', '.join(allowed)}"
            )
    if scope == "every" and action == "any":
        raise SpecError(f"{where}: scope every needs an action, not any")
    return RequiredPermission(_RESOURCES[resource], _ACTIONS[action], _SCOPES[scope])


def _resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node
