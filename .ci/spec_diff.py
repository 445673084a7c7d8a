"""Compare openapi.yaml with the document at a base and say whether each change breaks clients.

Every change is one of three kinds:

* breaking: a client written against the base may fail against the new document. An operation
  removed (its path and method, or its operationId renamed), a field removed or renamed, a type,
  format or pattern changed, a constraint tightened on what a client sends or loosened on what it
  reads, an enum value removed, a new required parameter or request field, a parameter or field
  made required, a success status added, removed or changed, a documented error response or
  response header removed, and any change to security (the requirement, a scheme, or
  `x-spool-permission`).
* compatible: new optional parameters and fields, new operations, error responses and headers,
  a constraint loosened on what a client sends. They need at least a minor bump.
* documentation: descriptions, summaries, titles, examples, tags, links and servers. They need
  no bump.

A new enum value in a response is breaking: the generated client checks a response's enum
values against the set it was generated with and raises on any other, as strict clients in most
generators do. The exception is an enum offered beside an open branch (`anyOf` with a plain
string, as `Problem.code` offers `ErrorCode`), which a client already reads as "maybe another
value". A new enum value in a request is compatible. A keyword this module does not know is
breaking whenever it changes, so a new kind of change is looked at rather than let through.

A change inside a component (`#/components/schemas/Job`, say) is reported once at its component
path, with the operations that reach it and in which direction; the same change can break a
request and be harmless in a response, and the worse one counts.

The version rule is semver's for 1.0.0 and later, applied to 0.x as well: breaking changes need a
major bump of `info.version`, other changes at least a minor one. Semver promises nothing before
1.0.0, and the usual 0.x reading (0.y as the major) would let a breaking change ship as 0.2.0,
which a pip pin `spool~=0.1` still accepts.

The base is `--base REF` when given; otherwise the newest commit whose openapi.yaml has another
`info.version` than the one checked (the last document of the previous version), so every change
made under a version, in however many commits, is held to that version's bump; when the version
never changed, the document as first committed. Exits 1 when the version does not follow the
changes, 2 when the comparison cannot be made.
"""

from __future__ import annotations

import argparse
import enum
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO, TypeVar

import yaml

__all__ = [
    "SPEC",
    "Base",
    "Direction",
    "Entry",
    "Location",
    "Report",
    "Severity",
    "SpecDiffError",
    "compare",
    "find_base",
    "load_document",
    "main",
    "parse_version",
    "version_problem",
]

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi.yaml"

_HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_DOCUMENTATION = frozenset(
    {"description", "summary", "title", "example", "examples", "externalDocs", "$comment"}
)
_LOWER_BOUNDS = frozenset(
    {"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"}
)
_UPPER_BOUNDS = frozenset(
    {"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"}
)
# Keywords whose values are schemas that this module compares keyword by keyword.
_SUBSCHEMAS = frozenset({"items", "allOf", "anyOf", "oneOf", "additionalProperties"})
_ALL_TYPES = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})
_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$"
)
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Key = TypeVar("_Key")


class SpecDiffError(Exception):
    """The comparison cannot be made: a git ref, a document or a version that does not read."""


class Severity(enum.IntEnum):
    """What a change means for a client written against the base, the worst last."""

    DOCUMENTATION = 0
    COMPATIBLE = 1
    BREAKING = 2


class Direction(enum.Enum):
    """Whether a schema describes what a client sends or what it reads."""

    REQUEST = "request"
    RESPONSE = "response"


class _Shift(enum.Enum):
    """How a constraint moved: fewer valid values, more, or neither."""

    TIGHTER = "tighter"
    LOOSER = "looser"
    OTHER = "other"


def _judge(direction: Direction, shift: _Shift) -> Severity:
    """A tighter request refuses what clients send; a looser response sends what they refuse."""
    if shift is _Shift.OTHER:
        return Severity.BREAKING
    if direction is Direction.REQUEST:
        return Severity.BREAKING if shift is _Shift.TIGHTER else Severity.COMPATIBLE
    return Severity.COMPATIBLE if shift is _Shift.TIGHTER else Severity.BREAKING


@dataclass(frozen=True)
class Location:
    """Where a change is: an operation or a component, and the keys below it."""

    anchor: str
    parts: tuple[str, ...] = ()
    component: bool = False

    def at(self, *parts: str) -> Location:
        """The location ``parts`` below this one."""
        return Location(self.anchor, self.parts + parts, self.component)

    def __str__(self) -> str:
        if not self.parts:
            return self.anchor
        return self.anchor + ("/" if self.component else ": ") + "/".join(self.parts)


@dataclass(frozen=True)
class _Change:
    severity: Severity
    location: Location
    message: str


@dataclass
class Entry:
    """One change as reported: the worst it is anywhere, and for a change in a component, the
    operations that reach it and where in each (``{"getJob": ["response 200"]}``).
    """

    severity: Severity
    location: str
    message: str
    used_by: dict[str, list[str]] = field(default_factory=dict)

    def __str__(self) -> str:
        text = f"{self.location}: {self.message}"
        if self.used_by and self.severity is not Severity.DOCUMENTATION:
            uses = [f"{name} {', '.join(places)}" for name, places in self.used_by.items()]
            more = f"; and {len(uses) - 3} more operations" if len(uses) > 3 else ""
            text += f" (in {'; '.join(uses[:3])}{more})"
        return text


class Report:
    """Every change between two documents, each once, in the order the documents list them."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], Entry] = {}

    def add(self, change: _Change, usage: tuple[str, str] | None = None) -> None:
        """Record ``change``, reached through ``usage``: an operation and where in it."""
        key = (str(change.location), change.message)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = Entry(change.severity, *key)
        entry.severity = max(entry.severity, change.severity)
        if usage is not None and change.location.component:
            places = entry.used_by.setdefault(usage[0], [])
            if usage[1] not in places:
                places.append(usage[1])

    @property
    def entries(self) -> list[Entry]:
        """Every change, worst first, each kind in document order."""
        return sorted(self._entries.values(), key=lambda entry: -entry.severity)

    def of(self, severity: Severity) -> list[Entry]:
        """The changes of one kind."""
        return [entry for entry in self.entries if entry.severity is severity]

    @property
    def worst(self) -> Severity | None:
        """The worst kind of change, or None when nothing changed."""
        return max((entry.severity for entry in self._entries.values()), default=None)


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _show(value: object) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _pointer(document: Mapping[str, Any], reference: str) -> Any:
    """The node a local ``$ref`` names."""
    if not reference.startswith("#/"):
        raise SpecDiffError(f"only local $refs are followed, not {reference!r}")
    node: Any = document
    for raw in reference[2:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            raise SpecDiffError(f"$ref {reference!r} names nothing in the document")
    return node


def _resolve(document: Mapping[str, Any], node: Any) -> Any:
    """``node`` with its ``$ref``s followed; keys beside a ``$ref`` apply on top, as in 3.1."""
    seen: set[str] = set()
    while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
        reference = node["$ref"]
        if reference in seen:
            raise SpecDiffError(f"$ref {reference!r} refers to itself")
        seen.add(reference)
        target = _pointer(document, reference)
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        node = {**target, **siblings} if siblings and isinstance(target, Mapping) else target
    return node


def _expand(document: Mapping[str, Any], node: Any, seen: frozenset[str] = frozenset()) -> Any:
    """``node`` with the components it names written in, each once along a path."""
    if isinstance(node, Mapping):
        reference = _reference(node)
        if reference is not None and reference not in seen:
            return _expand(document, _resolve(document, node), seen | {reference})
        return {key: _expand(document, value, seen) for key, value in node.items()}
    if isinstance(node, list):
        return [_expand(document, value, seen) for value in node]
    return node


def _pure_reference(node: Any) -> str | None:
    if isinstance(node, Mapping) and set(node) == {"$ref"} and isinstance(node["$ref"], str):
        return str(node["$ref"])
    return None


def _reference(node: Any) -> str | None:
    if isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
        return str(node["$ref"])
    return None


def _mapping(node: Any) -> Mapping[str, Any]:
    return node if isinstance(node, Mapping) else {}


def _keys(old: Mapping[_Key, Any], new: Mapping[_Key, Any]) -> list[_Key]:
    """The keys of both, the old one's order first."""
    return [*old, *(key for key in new if key not in old)]


_Compare = Callable[[Any, Any, Location], list[_Change]]


class _Comparer:
    """Walks two documents side by side, following their references."""

    def __init__(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        self.old = old
        self.new = new
        self._components: dict[tuple[str, str], list[_Change]] = {}
        self._walking: set[tuple[str, str | None, str | None]] = set()

    def nested(
        self, kind: str, old: Any, new: Any, where: Location, compare: _Compare
    ) -> list[_Change]:
        """Compare two nodes that may be references. A component both name is compared once for
        each kind and reported at its own path, and the keys beside the references where they
        are; a reference cycle stops where it comes back.
        """
        old_reference, new_reference = _reference(old), _reference(new)
        if old_reference is not None and old_reference == new_reference:
            key = (kind, old_reference)
            if key not in self._components:
                self._components[key] = []
                self._components[key] = compare(
                    _resolve(self.old, {"$ref": old_reference}),
                    _resolve(self.new, {"$ref": new_reference}),
                    Location(old_reference, component=True),
                )
            siblings = [
                {key: value for key, value in node.items() if key != "$ref"} for node in (old, new)
            ]
            beside = compare(siblings[0], siblings[1], where) if any(siblings) else []
            return beside + self._components[key]
        walking = (kind, old_reference, new_reference)
        if walking[1:] != (None, None):
            if walking in self._walking:
                return []
            self._walking.add(walking)
        try:
            return compare(_resolve(self.old, old), _resolve(self.new, new), where)
        finally:
            self._walking.discard(walking)

    def same(self, old: Any, new: Any) -> bool:
        """Whether two nodes say the same, the components they name included."""
        return _canonical(_expand(self.old, old)) == _canonical(_expand(self.new, new))

    # Schemas.

    def schema(
        self, old: Any, new: Any, where: Location, direction: Direction, open_enum: bool = False
    ) -> list[_Change]:
        """The changes between two schemas read in ``direction``."""
        kind = f"schema {direction.value}{' open' if open_enum else ''}"
        return self.nested(
            kind,
            old,
            new,
            where,
            lambda old, new, where: self._schema(old, new, where, direction, open_enum),
        )

    def _schema(
        self, old: Any, new: Any, where: Location, direction: Direction, open_enum: bool
    ) -> list[_Change]:
        if not isinstance(old, Mapping) or not isinstance(new, Mapping):
            if _canonical(old) == _canonical(new):
                return []
            return [
                _Change(
                    Severity.BREAKING, where, f"schema changed from {_show(old)} to {_show(new)}"
                )
            ]
        changes: list[_Change] = []
        for key in _keys(old, new):
            before, after = old.get(key), new.get(key)
            if key in ("properties", "required"):
                continue
            if key not in _SUBSCHEMAS and self.same(before, after):
                continue
            if key in _DOCUMENTATION:
                changes.append(_Change(Severity.DOCUMENTATION, where, f"{key} changed"))
            elif key == "type":
                changes += _types(old, new, where, direction)
            elif key == "enum":
                changes += _enum(before, after, where, direction, open_enum)
            elif key in _LOWER_BOUNDS or key in _UPPER_BOUNDS:
                changes += _bound(key, before, after, where, direction)
            elif key == "default":
                changes += _default(before, after, where, direction)
            elif key == "deprecated":
                changes.append(
                    _Change(Severity.COMPATIBLE, where, f"deprecated set to {_show(after)}")
                )
            elif key == "additionalProperties":
                changes += self._additional(before, after, where, direction)
            elif key == "items" and before is not None and after is not None:
                changes += self.schema(before, after, where.at("items"), direction)
            elif key in ("anyOf", "oneOf") and isinstance(before, list) and isinstance(after, list):
                changes += self._branches(key, before, after, where, direction)
            elif (
                key == "allOf"
                and isinstance(before, list)
                and isinstance(after, list)
                and len(before) == len(after)
            ):
                for index, (one, other) in enumerate(zip(before, after, strict=True)):
                    changes += self.schema(one, other, where.at("allOf", str(index)), direction)
            elif not self.same(before, after):
                changes.append(_keyword(key, before, after, where, direction))
        changes += self._properties(old, new, where, direction)
        return changes

    def _properties(
        self, old: Mapping[str, Any], new: Mapping[str, Any], where: Location, direction: Direction
    ) -> list[_Change]:
        changes: list[_Change] = []
        old_properties, new_properties = (
            _mapping(old.get("properties")),
            _mapping(new.get("properties")),
        )
        old_required = set(old.get("required") or ())
        new_required = set(new.get("required") or ())
        for name in old_properties:
            at = where.at("properties", name)
            if name not in new_properties:
                changes.append(_Change(Severity.BREAKING, at, "property removed"))
            else:
                changes += self.schema(old_properties[name], new_properties[name], at, direction)
        for name in new_properties:
            if name in old_properties:
                continue
            at = where.at("properties", name)
            if name in new_required:
                severity = _judge(direction, _Shift.TIGHTER)
                changes.append(_Change(severity, at, "required property added"))
            else:
                changes.append(_Change(Severity.COMPATIBLE, at, "optional property added"))
        both = set(old_properties) & set(new_properties)
        alone = (set(old_properties) | set(new_properties)) - both
        names = [*(old.get("required") or ()), *(new.get("required") or ())]
        for name in dict.fromkeys(names):
            if name in alone or (name in old_required) == (name in new_required):
                continue
            at = where.at("properties", name) if name in both else where.at("required")
            if name in new_required:
                severity = _judge(direction, _Shift.TIGHTER)
                changes.append(_Change(severity, at, f"{name!r} made required"))
            else:
                severity = _judge(direction, _Shift.LOOSER)
                changes.append(_Change(severity, at, f"{name!r} no longer required"))
        return changes

    def _additional(
        self, before: Any, after: Any, where: Location, direction: Direction
    ) -> list[_Change]:
        at = where.at("additionalProperties")
        if isinstance(before, Mapping) and isinstance(after, Mapping):
            return self.schema(before, after, at, direction)

        def openness(value: Any) -> int:
            return 0 if value is False else 1 if isinstance(value, Mapping) else 2

        if openness(before) == openness(after):
            return []
        message = f"additionalProperties changed from {_show(before)} to {_show(after)}"
        if direction is Direction.RESPONSE:
            # Clients read unknown fields of a response as extra data, and a new property of a
            # response is compatible too: which ones the service may add is no promise.
            return [_Change(Severity.COMPATIBLE, at, message)]
        shift = _Shift.TIGHTER if openness(after) < openness(before) else _Shift.LOOSER
        return [_Change(_judge(direction, shift), at, message)]

    def _branches(
        self, key: str, before: list[Any], after: list[Any], where: Location, direction: Direction
    ) -> list[_Change]:
        """Branches match by the component they name, the others by their place among those
        naming none.
        """
        open_enum = any(_is_open(_resolve(self.new, branch)) for branch in after)
        unmatched = dict(enumerate(after))
        changes: list[_Change] = []
        for index, branch in enumerate(before):
            match = _match_branch(branch, unmatched)
            if match is None:
                severity = _judge(direction, _Shift.TIGHTER)
                changes.append(_Change(severity, where.at(key, str(index)), "branch removed"))
                continue
            changes += self.schema(
                branch, unmatched.pop(match), where.at(key, str(match)), direction, open_enum
            )
        for index in unmatched:
            severity = _judge(direction, _Shift.LOOSER)
            changes.append(_Change(severity, where.at(key, str(index)), "branch added"))
        return changes

    # Operations.

    def parameter(self, old: Any, new: Any, where: Location) -> list[_Change]:
        return self.nested("parameter", old, new, where, self._parameter)

    def _parameter(self, old: Any, new: Any, where: Location) -> list[_Change]:
        old, new = _mapping(old), _mapping(new)
        changes: list[_Change] = []
        for key in _keys(old, new):
            before, after = old.get(key), new.get(key)
            if key in ("name", "in"):
                continue
            if key == "schema" and before is not None and after is not None:
                changes += self.schema(before, after, where.at("schema"), Direction.REQUEST)
            elif key == "content":
                changes += self.content(before, after, where.at("content"), Direction.REQUEST)
            elif key == "required":
                changes += _required(bool(before), bool(after), where, Direction.REQUEST)
            elif _canonical(before) == _canonical(after):
                continue
            elif key in _DOCUMENTATION:
                changes.append(_Change(Severity.DOCUMENTATION, where, f"{key} changed"))
            elif key == "deprecated":
                changes.append(
                    _Change(Severity.COMPATIBLE, where, f"deprecated set to {_show(after)}")
                )
            else:
                changes.append(
                    _Change(
                        Severity.BREAKING,
                        where,
                        f"{key} changed from {_show(before)} to {_show(after)}",
                    )
                )
        return changes

    def request_body(self, old: Any, new: Any, where: Location) -> list[_Change]:
        return self.nested("requestBody", old, new, where, self._request_body)

    def _request_body(self, old: Any, new: Any, where: Location) -> list[_Change]:
        old, new = _mapping(old), _mapping(new)
        changes = _required(
            bool(old.get("required")), bool(new.get("required")), where, Direction.REQUEST
        )
        if old.get("description") != new.get("description"):
            changes.append(_Change(Severity.DOCUMENTATION, where, "description changed"))
        return changes + self.content(
            old.get("content"), new.get("content"), where.at("content"), Direction.REQUEST
        )

    def content(self, old: Any, new: Any, where: Location, direction: Direction) -> list[_Change]:
        """The changes between two `content` maps, media type by media type."""
        old_types = {name.lower(): value for name, value in _mapping(old).items()}
        new_types = {name.lower(): value for name, value in _mapping(new).items()}
        changes: list[_Change] = []
        for name in _keys(old_types, new_types):
            at = where.at(name)
            if name not in new_types:
                changes.append(_Change(Severity.BREAKING, at, "media type removed"))
                continue
            if name not in old_types:
                changes.append(_Change(Severity.COMPATIBLE, at, "media type added"))
                continue
            before, after = _mapping(old_types[name]), _mapping(new_types[name])
            for key in _keys(before, after):
                if key == "schema" and key in before and key in after:
                    changes += self.schema(before[key], after[key], at.at("schema"), direction)
                elif _canonical(before.get(key)) == _canonical(after.get(key)):
                    continue
                elif key in _DOCUMENTATION:
                    changes.append(_Change(Severity.DOCUMENTATION, at, f"{key} changed"))
                else:
                    changes.append(_Change(Severity.BREAKING, at, f"{key} changed"))
        return changes

    def response(self, old: Any, new: Any, where: Location) -> list[_Change]:
        return self.nested("response", old, new, where, self._response)

    def _response(self, old: Any, new: Any, where: Location) -> list[_Change]:
        old, new = _mapping(old), _mapping(new)
        changes: list[_Change] = []
        for key in _keys(old, new):
            before, after = old.get(key), new.get(key)
            if key == "content":
                changes += self.content(before, after, where.at("content"), Direction.RESPONSE)
            elif key == "headers":
                changes += self._headers(_mapping(before), _mapping(after), where.at("headers"))
            elif _canonical(before) == _canonical(after):
                continue
            elif key in _DOCUMENTATION or key == "links":
                changes.append(_Change(Severity.DOCUMENTATION, where, f"{key} changed"))
            else:
                changes.append(_Change(Severity.BREAKING, where, f"{key} changed"))
        return changes

    def _headers(
        self, old: Mapping[str, Any], new: Mapping[str, Any], where: Location
    ) -> list[_Change]:
        old_headers = {name.lower(): (name, value) for name, value in old.items()}
        new_headers = {name.lower(): (name, value) for name, value in new.items()}
        changes: list[_Change] = []
        for key in _keys(old_headers, new_headers):
            name = (new_headers.get(key) or old_headers[key])[0]
            if key not in new_headers:
                changes.append(
                    _Change(Severity.BREAKING, where.at(name), "response header removed")
                )
            elif key not in old_headers:
                changes.append(
                    _Change(Severity.COMPATIBLE, where.at(name), "response header added")
                )
            else:
                changes += self.nested(
                    "header", old_headers[key][1], new_headers[key][1], where.at(name), self._header
                )
        return changes

    def _header(self, old: Any, new: Any, where: Location) -> list[_Change]:
        old, new = _mapping(old), _mapping(new)
        changes: list[_Change] = []
        for key in _keys(old, new):
            before, after = old.get(key), new.get(key)
            if key == "schema" and before is not None and after is not None:
                changes += self.schema(before, after, where.at("schema"), Direction.RESPONSE)
            elif key == "required":
                changes += _required(bool(before), bool(after), where, Direction.RESPONSE)
            elif _canonical(before) == _canonical(after):
                continue
            elif key in _DOCUMENTATION:
                changes.append(_Change(Severity.DOCUMENTATION, where, f"{key} changed"))
            elif key == "deprecated":
                changes.append(
                    _Change(Severity.COMPATIBLE, where, f"deprecated set to {_show(after)}")
                )
            else:
                changes.append(_Change(Severity.BREAKING, where, f"{key} changed"))
        return changes


def _types(
    old: Mapping[str, Any], new: Mapping[str, Any], where: Location, direction: Direction
) -> list[_Change]:
    def names(schema: Mapping[str, Any]) -> frozenset[str]:
        declared = schema.get("type")
        if declared is None:
            return _ALL_TYPES
        found = {declared} if isinstance(declared, str) else set(declared)
        if "number" in found:
            found.add("integer")
        return frozenset(found)

    before, after = names(old), names(new)
    if before == after:
        return []
    shift = _Shift.TIGHTER if after < before else _Shift.LOOSER if after > before else _Shift.OTHER
    message = (
        f"type changed from {_show(old.get('type', 'any'))} to {_show(new.get('type', 'any'))}"
    )
    return [_Change(_judge(direction, shift), where, message)]


def _enum(
    before: Any, after: Any, where: Location, direction: Direction, open_enum: bool
) -> list[_Change]:
    if before is None or after is None:
        shift = _Shift.TIGHTER if before is None else _Shift.LOOSER
        message = f"enum {_show(after)} added" if before is None else "enum removed"
        return [_Change(_judge(direction, shift), where, message)]
    old_values = {_canonical(value): value for value in before}
    new_values = {_canonical(value): value for value in after}
    changes: list[_Change] = []
    removed = [value for key, value in old_values.items() if key not in new_values]
    added = [value for key, value in new_values.items() if key not in old_values]
    if removed:
        changes.append(
            _Change(Severity.BREAKING, where, f"enum values removed: {_values(removed)}")
        )
    if added:
        # Clients generated from the base refuse a response value they do not know.
        closed = direction is Direction.RESPONSE and not open_enum
        severity = Severity.BREAKING if closed else Severity.COMPATIBLE
        changes.append(_Change(severity, where, f"enum values added: {_values(added)}"))
    return changes


def _values(values: list[Any]) -> str:
    return ", ".join(json.dumps(value, default=str) for value in values)


def _bound(
    key: str, before: Any, after: Any, where: Location, direction: Direction
) -> list[_Change]:
    lower = key in _LOWER_BOUNDS
    if before is None:
        shift, message = _Shift.TIGHTER, f"{key} {_show(after)} added"
    elif after is None:
        shift, message = _Shift.LOOSER, f"{key} {_show(before)} removed"
    elif isinstance(before, int | float) and isinstance(after, int | float):
        raised = after > before
        shift = _Shift.TIGHTER if raised == lower else _Shift.LOOSER
        message = f"{key} {'raised' if raised else 'lowered'} from {before} to {after}"
    else:
        shift, message = _Shift.OTHER, f"{key} changed from {_show(before)} to {_show(after)}"
    return [_Change(_judge(direction, shift), where, message)]


def _default(before: Any, after: Any, where: Location, direction: Direction) -> list[_Change]:
    message = f"default changed from {_show(before)} to {_show(after)}"
    if direction is Direction.RESPONSE or before is None:
        return [_Change(Severity.COMPATIBLE, where, message)]
    # A client that leaves the field out relied on the old default.
    return [_Change(Severity.BREAKING, where, message)]


def _keyword(key: str, before: Any, after: Any, where: Location, direction: Direction) -> _Change:
    """Any other keyword constrains more when it appears and less when it goes; an extension
    or a changed value is read as breaking, since its meaning is not known here.
    """
    if key.startswith("x-") or (before is not None and after is not None):
        shift, message = _Shift.OTHER, f"{key} changed from {_show(before)} to {_show(after)}"
    elif before is None:
        shift, message = _Shift.TIGHTER, f"{key} {_show(after)} added"
    else:
        shift, message = _Shift.LOOSER, f"{key} {_show(before)} removed"
    return _Change(_judge(direction, shift), where, message)


def _required(before: bool, after: bool, where: Location, direction: Direction) -> list[_Change]:
    if before == after:
        return []
    if after:
        return [_Change(_judge(direction, _Shift.TIGHTER), where, "made required")]
    return [_Change(_judge(direction, _Shift.LOOSER), where, "no longer required")]


def _is_open(branch: Any) -> bool:
    """A branch that takes other values than an enum's: a plain type, without enum or const."""
    return isinstance(branch, Mapping) and not {"enum", "const", "$ref"} & set(branch)


def _match_branch(branch: Any, candidates: Mapping[int, Any]) -> int | None:
    """The new branch naming the component ``branch`` names, or for a branch naming none, the
    first new branch naming none that is left: branches are matched in order.
    """
    reference = _pure_reference(branch)
    for at, other in candidates.items():
        if _pure_reference(other) == reference:
            return at
    return None


# The documents.


def _operations(
    document: Mapping[str, Any],
) -> Iterator[tuple[str, str, Mapping[str, Any], Mapping[str, Any]]]:
    """Each operation's path, method, path item and operation, in the document's order."""
    for path, item in _mapping(document.get("paths")).items():
        resolved = _mapping(_resolve(document, item))
        for method in resolved:
            if method in _HTTP_METHODS:
                yield path, method, resolved, _mapping(resolved[method])


def _label(method: str, path: str, operation: Mapping[str, Any]) -> str:
    identifier = operation.get("operationId")
    return f"{method.upper()} {path}" + (f" ({identifier})" if identifier else "")


def _parameters(
    document: Mapping[str, Any], item: Mapping[str, Any], operation: Mapping[str, Any]
) -> dict[tuple[str, str], Any]:
    """An operation's parameters by where they go and their name, its own over its path's."""
    found: dict[tuple[str, str], Any] = {}
    for node in [*(item.get("parameters") or ()), *(operation.get("parameters") or ())]:
        parameter = _mapping(_resolve(document, node))
        place, name = str(parameter.get("in")), str(parameter.get("name"))
        found[(place, name.lower() if place == "header" else name)] = node
    return found


def _security(document: Mapping[str, Any], operation: Mapping[str, Any]) -> str:
    requirements = operation.get("security", document.get("security", []))
    return _canonical(sorted(_canonical(requirement) for requirement in requirements or ()))


def _success(status: str) -> bool:
    return status.startswith("2")


def compare(old: Mapping[str, Any], new: Mapping[str, Any]) -> Report:
    """Every change from the document ``old`` to the document ``new``."""
    report = Report()
    comparer = _Comparer(old, new)
    _compare_top(old, new, report)
    _compare_schemes(old, new, report)
    old_operations = {(path, method): (item, op) for path, method, item, op in _operations(old)}
    new_operations = {(path, method): (item, op) for path, method, item, op in _operations(new)}
    moved = {
        op.get("operationId"): _label(method, path, op)
        for (path, method), (_, op) in new_operations.items()
    }
    for key in _keys(old_operations, new_operations):
        path, method = key
        if key not in new_operations:
            operation = old_operations[key][1]
            message = "operation removed"
            elsewhere = moved.get(operation.get("operationId"))
            if elsewhere is not None:
                message += f"; its operationId is now {elsewhere}"
            report.add(
                _Change(Severity.BREAKING, Location(_label(method, path, operation)), message)
            )
        elif key not in old_operations:
            operation = new_operations[key][1]
            report.add(
                _Change(
                    Severity.COMPATIBLE,
                    Location(_label(method, path, operation)),
                    "operation added",
                )
            )
        else:
            _compare_operation(comparer, report, key, old_operations[key], new_operations[key])
    return report


def _compare_top(old: Mapping[str, Any], new: Mapping[str, Any], report: Report) -> None:
    old_info, new_info = _mapping(old.get("info")), _mapping(new.get("info"))
    for key in _keys(old_info, new_info):
        if key != "version" and _canonical(old_info.get(key)) != _canonical(new_info.get(key)):
            report.add(_Change(Severity.DOCUMENTATION, Location(f"info/{key}"), "changed"))
    for key in _keys(old, new):
        if key in ("info", "paths", "components") or _canonical(old.get(key)) == _canonical(
            new.get(key)
        ):
            continue
        if key in ("openapi", "servers", "tags", "externalDocs", "security"):
            # The top-level security requirement is compared as each operation's own.
            severity = Severity.DOCUMENTATION
        else:
            severity = Severity.BREAKING
        report.add(_Change(severity, Location(key), "changed"))


def _compare_schemes(old: Mapping[str, Any], new: Mapping[str, Any], report: Report) -> None:
    old_schemes = _mapping(_mapping(old.get("components")).get("securitySchemes"))
    new_schemes = _mapping(_mapping(new.get("components")).get("securitySchemes"))
    for name in _keys(old_schemes, new_schemes):
        where = Location(f"#/components/securitySchemes/{name}", component=True)
        if name not in new_schemes:
            report.add(_Change(Severity.BREAKING, where, "security scheme removed"))
        elif name not in old_schemes:
            report.add(_Change(Severity.COMPATIBLE, where, "security scheme added"))
        else:
            before = _mapping(_resolve(old, old_schemes[name]))
            after = _mapping(_resolve(new, new_schemes[name]))
            for key in _keys(before, after):
                if _canonical(before.get(key)) == _canonical(after.get(key)):
                    continue
                severity = Severity.DOCUMENTATION if key in _DOCUMENTATION else Severity.BREAKING
                report.add(
                    _Change(
                        severity,
                        where,
                        f"{key} changed from {_show(before.get(key))} to {_show(after.get(key))}",
                    )
                )


def _compare_operation(
    comparer: _Comparer,
    report: Report,
    key: tuple[str, str],
    old: tuple[Mapping[str, Any], Mapping[str, Any]],
    new: tuple[Mapping[str, Any], Mapping[str, Any]],
) -> None:
    path, method = key
    (old_item, old_op), (new_item, new_op) = old, new
    where = Location(_label(method, path, new_op))
    name = str(new_op.get("operationId") or f"{method.upper()} {path}")

    def add(severity: Severity, message: str, at: Location = where) -> None:
        report.add(_Change(severity, at, message))

    if old_op.get("operationId") != new_op.get("operationId"):
        add(
            Severity.BREAKING,
            f"operationId renamed from {_show(old_op.get('operationId'))}"
            f" to {_show(new_op.get('operationId'))}",
        )
    if _security(comparer.old, old_op) != _security(comparer.new, new_op):
        add(
            Severity.BREAKING,
            f"security changed from {_show(old_op.get('security', comparer.old.get('security')))}"
            f" to {_show(new_op.get('security', comparer.new.get('security')))}",
        )
    for part in ("summary", "description"):
        for old_node, new_node, at in (
            (old_item, new_item, Location(path)),
            (old_op, new_op, where),
        ):
            if old_node.get(part) != new_node.get(part):
                add(Severity.DOCUMENTATION, f"{part} changed", at)
    for part in _keys(old_op, new_op):
        if part in (
            "operationId",
            "security",
            "summary",
            "description",
            "parameters",
            "requestBody",
            "responses",
        ):
            continue
        before, after = old_op.get(part), new_op.get(part)
        if _canonical(before) == _canonical(after):
            continue
        if part in ("tags", "externalDocs", "servers"):
            add(Severity.DOCUMENTATION, f"{part} changed")
        elif part == "deprecated":
            add(Severity.COMPATIBLE, f"deprecated set to {_show(after)}")
        else:
            # x-spool-permission among them: the service authorizes each request by it.
            add(Severity.BREAKING, f"{part} changed from {_show(before)} to {_show(after)}")

    old_parameters = _parameters(comparer.old, old_item, old_op)
    new_parameters = _parameters(comparer.new, new_item, new_op)
    for place, parameter in _keys(old_parameters, new_parameters):
        at = where.at("parameters", place, parameter)
        if (place, parameter) not in new_parameters:
            add(Severity.BREAKING, "parameter removed", at)
        elif (place, parameter) not in old_parameters:
            added = _mapping(_resolve(comparer.new, new_parameters[(place, parameter)]))
            if added.get("required"):
                add(Severity.BREAKING, "required parameter added", at)
            else:
                add(Severity.COMPATIBLE, "optional parameter added", at)
        else:
            usage = (name, f"parameter {place} {parameter}")
            for change in comparer.parameter(
                old_parameters[(place, parameter)], new_parameters[(place, parameter)], at
            ):
                report.add(change, usage)

    old_body, new_body = old_op.get("requestBody"), new_op.get("requestBody")
    at = where.at("requestBody")
    if old_body is None and new_body is not None:
        required = _mapping(_resolve(comparer.new, new_body)).get("required")
        add(
            Severity.BREAKING if required else Severity.COMPATIBLE,
            f"{'required' if required else 'optional'} request body added",
            at,
        )
    elif old_body is not None and new_body is None:
        add(Severity.BREAKING, "request body removed", at)
    elif old_body is not None:
        for change in comparer.request_body(old_body, new_body, at):
            report.add(change, (name, "request"))

    old_responses = {str(code): value for code, value in _mapping(old_op.get("responses")).items()}
    new_responses = {str(code): value for code, value in _mapping(new_op.get("responses")).items()}
    for status in _keys(old_responses, new_responses):
        at = where.at("responses", status)
        if status not in new_responses:
            add(
                Severity.BREAKING,
                "success response removed" if _success(status) else "error response removed",
                at,
            )
        elif status not in old_responses:
            if _success(status):
                # A client handles the success statuses it was written for and no others.
                add(Severity.BREAKING, "success response added", at)
            else:
                add(Severity.COMPATIBLE, "error response added", at)
        else:
            for change in comparer.response(old_responses[status], new_responses[status], at):
                report.add(change, (name, f"response {status}"))


# The version rule.


def parse_version(value: object) -> tuple[int, int, int]:
    """The major, minor and patch numbers of a semver version."""
    found = _SEMVER.match(value) if isinstance(value, str) else None
    if found is None:
        raise SpecDiffError(f"info.version {value!r} is not a semver version such as 1.2.3")
    return int(found[1]), int(found[2]), int(found[3])


def version_problem(old: object, new: object, worst: Severity | None) -> str | None:
    """Why ``new`` is the wrong info.version after ``old`` for changes as bad as ``worst``, or
    None when it is right.
    """
    before, after = parse_version(old), parse_version(new)
    if after < before:
        return f"info.version went down from {old} to {new}"
    if worst is Severity.BREAKING and after[0] <= before[0]:
        return (
            f"breaking changes need a major bump of info.version: {old} -> {before[0] + 1}.0.0"
            f" or later, not {new}"
        )
    if worst is Severity.COMPATIBLE and after[:2] <= before[:2]:
        return (
            f"compatible changes need at least a minor bump of info.version: {old} ->"
            f" {before[0]}.{before[1] + 1}.0 or later, not {new}"
        )
    return None


# Where the base comes from.


@dataclass(frozen=True)
class Base:
    """The document to compare with: the git ref it was read at, the commit it names."""

    ref: str
    commit: str
    text: str


def _git(directory: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", "-C", str(directory), *arguments], capture_output=True, text=True, check=False
        )
    except OSError as error:
        raise SpecDiffError(f"cannot run git: {error}") from error


def _git_out(directory: Path, *arguments: str) -> str:
    done = _git(directory, *arguments)
    if done.returncode != 0:
        raise SpecDiffError(f"git {' '.join(arguments)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def find_base(spec: Path, ref: str | None = None) -> Base | None:
    """The committed document ``spec`` is compared with: at ``ref`` when given; otherwise at the
    newest commit whose ``spec`` has another ``info.version`` than the file's, or, when the
    version never changed, as first committed. None when nothing of ``spec`` is committed.
    """
    directory = spec.resolve().parent
    top = Path(_git_out(directory, "rev-parse", "--show-toplevel")).resolve()
    name = spec.resolve().relative_to(top).as_posix()
    if ref is None:
        if _git(top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").returncode != 0:
            return None
        ref = _previous_version_commit(top, name, spec)
        if ref is None:
            return None
    named = _git(top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if named.returncode != 0:
        raise SpecDiffError(f"the base {ref!r} names no commit")
    commit = named.stdout.strip()
    shown = _git(top, "show", f"{commit}:{name}")
    if shown.returncode != 0:
        raise SpecDiffError(f"{name} is not in {ref}: {shown.stderr.strip()}")
    return Base(ref, commit, shown.stdout)


def _previous_version_commit(top: Path, name: str, spec: Path) -> str | None:
    """The newest commit changing ``name`` whose document is of another version than ``spec``'s;
    the oldest such commit when every one is of the same version; None when there is none.
    """
    try:
        current = load_document(spec.read_text(encoding="utf-8"), str(spec))["info"].get("version")
    except OSError as error:
        raise SpecDiffError(f"cannot read {spec}: {error}") from error
    commits = _git_out(top, "log", "--format=%H", "--", name).split()
    for commit in commits:
        text = _git_out(top, "show", f"{commit}:{name}")
        if load_document(text, f"{name} at {commit[:12]}")["info"].get("version") != current:
            return commit[:12]
    if not commits:
        return None
    oldest = commits[-1]
    parents = _git_out(top, "rev-list", "--parents", "-n", "1", oldest).split()[1:]
    if not parents and _git_out(top, "rev-parse", "--is-shallow-repository") == "true":
        raise SpecDiffError(
            f"{name} has version {current} as far back as this shallow clone goes"
            f" ({oldest[:12]}): fetch more history or give BASE"
        )
    return oldest[:12]


def load_document(text: str, source: str) -> dict[str, Any]:
    """The OpenAPI document in ``text``, read from ``source``."""
    try:
        document = yaml.load(text, Loader=_YAML_LOADER)
    except yaml.YAMLError as error:
        raise SpecDiffError(f"{source} is not YAML: {error}") from error
    if not isinstance(document, dict) or not isinstance(document.get("info"), dict):
        raise SpecDiffError(f"{source} is not an OpenAPI document with an info object")
    return document


def _write(stream: TextIO, text: str) -> None:
    stream.write(text + "\n")


def main(arguments: Sequence[str] | None = None) -> int:
    """Compare, print every change by kind, and answer the exit status."""
    parser = argparse.ArgumentParser(prog=".ci/spec_diff.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", help="the git ref to compare with (default: see above)")
    parser.add_argument(
        "--spec", type=Path, default=SPEC, help="the document (default: openapi.yaml)"
    )
    options = parser.parse_args(arguments)
    spec: Path = options.spec
    try:
        base = find_base(spec, options.base or None)
        if base is None:
            _write(sys.stdout, f"spec-diff: {spec.name} has no earlier version to compare with")
            return 0
        try:
            text = spec.read_text(encoding="utf-8")
        except OSError as error:
            raise SpecDiffError(f"cannot read {spec}: {error}") from error
        old = load_document(base.text, f"{spec.name} at {base.ref}")
        new = load_document(text, str(spec))
        report = compare(old, new)
        old_version, new_version = old["info"].get("version"), new["info"].get("version")
        problem = version_problem(old_version, new_version, report.worst)
    except SpecDiffError as error:
        _write(sys.stderr, f"spec-diff: {error}")
        return 2
    _write(
        sys.stdout,
        f"spec-diff: {spec.name} against {base.ref} ({base.commit[:12]}),"
        f" info.version {old_version} -> {new_version}",
    )
    headings = {
        Severity.BREAKING: "breaking (needs a major bump):",
        Severity.COMPATIBLE: "compatible (needs at least a minor bump):",
        Severity.DOCUMENTATION: "documentation:",
    }
    for severity, heading in headings.items():
        entries = report.of(severity)
        if entries:
            _write(sys.stdout, heading)
            for entry in entries:
                _write(sys.stdout, f"  {entry}")
    if problem is not None:
        _write(sys.stdout, f"spec-diff: FAILED: {problem}")
        return 1
    counts = ", ".join(
        f"{len(report.of(severity))} {severity.name.lower()}" for severity in headings
    )
    _write(sys.stdout, f"spec-diff: passed ({counts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
