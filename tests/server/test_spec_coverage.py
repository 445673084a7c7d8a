"""Every request field of openapi.yaml does something in the service (spec_coverage.toml).

A field the service ignores still validates, round-trips through the generated client and passes
schemathesis; only a test of its effect tells it apart from one that works. spec_coverage.toml
names such a test for every query, path and header parameter and every request body property, and
these tests keep it complete, current and pointing at tests that exist and send the field.
"""

from __future__ import annotations

import ast
import copy
import functools
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tests.conftest import ROOT
from tests.generated._spec import load_spec, operations, resolve

TABLE_PATH = Path(__file__).with_name("spec_coverage.toml")
TABLE_NAME = TABLE_PATH.relative_to(ROOT).as_posix()

Field = tuple[str, str]


def _body_fields(
    spec: Mapping[str, Any], schema: Mapping[str, Any], prefix: str, refs: frozenset[str]
) -> Iterator[str]:
    reference = schema.get("$ref")
    if reference is not None:
        # A schema that contains itself had its fields listed on the way in.
        if reference in refs:
            return
        refs |= {reference}
        schema = resolve(spec, schema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for variant in schema.get(keyword, ()):
            yield from _body_fields(spec, variant, prefix, refs)
    if isinstance(schema.get("items"), dict):
        yield from _body_fields(spec, schema["items"], f"{prefix}[]", refs)
    if isinstance(schema.get("additionalProperties"), dict):
        yield from _body_fields(spec, schema["additionalProperties"], f"{prefix}.*", refs)
    for name, property_schema in schema.get("properties", {}).items():
        yield f"{prefix}.{name}"
        yield from _body_fields(spec, property_schema, f"{prefix}.{name}", refs)


def request_fields(spec: Mapping[str, Any]) -> list[Field]:
    """(operationId, field) for every parameter (``query.count``, ``header.Idempotency-Key``) and
    every request body property (``body.entries[].body``) of ``spec``, in document order.
    """
    fields: dict[Field, None] = {}
    for operation in operations(spec):
        for parameter in operation.parameters:
            fields[operation.operation_id, f"{parameter['in']}.{parameter['name']}"] = None
        if operation.request_body is not None:
            for media_type in operation.request_body["content"].values():
                for name in _body_fields(spec, media_type.get("schema", {}), "body", frozenset()):
                    fields[operation.operation_id, name] = None
    return list(fields)


def load_table(text: str) -> dict[Field, list[str] | str]:
    """The table: for each field, its tests' node ids, or (a string) why it has no behaviour."""
    table: dict[Field, list[str] | str] = {}
    for operation_id, fields in tomllib.loads(text).items():
        for name, value in fields.items():
            match value:
                case [str(), *_] if all(isinstance(node, str) for node in value):
                    table[operation_id, name] = list(value)
                case {"gap": str(reason)} if len(value) == 1 and reason.strip():
                    table[operation_id, name] = reason
                case _:
                    raise ValueError(
                        f"{TABLE_NAME}: [{operation_id}] {name!r} must be a list of test node ids "
                        f'or {{ gap = "why it has no behaviour" }}, not {value!r}'
                    )
    return table


@functools.cache
def checked_in_table() -> dict[Field, list[str] | str]:
    """The table as checked in next to this file."""
    return load_table(TABLE_PATH.read_text(encoding="utf-8"))


def uncovered(spec: Mapping[str, Any], table: Mapping[Field, object]) -> list[str]:
    """One message for each field of ``spec`` the table does not list."""
    return [
        f"openapi.yaml: {operation_id} {name} has no behaviour test: write a test that sends it "
        f"and asserts its effect on the service, then list it under [{operation_id}] in "
        f"{TABLE_NAME}"
        for operation_id, name in request_fields(spec)
        if (operation_id, name) not in table
    ]


def _words(text: str) -> str:
    # `Idempotency-Key` in the spec is `idempotency_key` in the SDK and a header in a test.
    return text.lower().replace("-", "_")


@functools.cache
def _module(path: Path) -> tuple[str, ast.Module]:
    source = path.read_text(encoding="utf-8")
    return source, ast.parse(source)


def _test_text(node_id: str) -> str:
    """The source of the test ``node_id`` names and of the module-level helpers and constants it
    uses; ValueError saying what is wrong when there is no such test function.
    """
    path, _, qualified_name = node_id.partition("::")
    if not qualified_name or "[" in node_id:
        raise ValueError("name a test function as file::function or file::Class::function")
    file = ROOT / path
    if not file.is_file():
        raise ValueError(f"there is no file {path}")
    source, module = _module(file)
    scope: list[ast.stmt] = module.body
    found: ast.stmt | None = None
    for name in qualified_name.split("::"):
        found = next((s for s in scope if getattr(s, "name", None) == name), None)
        if found is None:
            raise ValueError(f"{path} has no {qualified_name}")
        scope = getattr(found, "body", [])
    if not (
        isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) and found.name.startswith("test")
    ):
        raise ValueError(f"{qualified_name} is not a test function")
    defined: dict[str, ast.stmt] = {}
    for statement in module.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined[statement.name] = statement
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            defined.update((t.id, statement) for t in targets if isinstance(t, ast.Name))
    used = {node.id for node in ast.walk(found) if isinstance(node, ast.Name)}
    parts = [found, *found.decorator_list, *(defined[name] for name in used & defined.keys())]
    return "\n".join(ast.get_source_segment(source, part) or "" for part in parts)


def listed_test_problems(table: Mapping[Field, list[str] | str]) -> list[str]:
    """One message for each listed test that does not exist or never names its field."""
    problems = []
    for (operation_id, name), tests in table.items():
        if isinstance(tests, str):
            continue
        word = _words(name.rsplit(".", 1)[-1])
        for node_id in tests:
            where = f"{TABLE_NAME}: [{operation_id}] {name!r} lists {node_id}"
            try:
                text = _test_text(node_id)
            except ValueError as error:
                problems.append(f"{where}: {error}")
                continue
            if word not in _words(text):
                problems.append(f"{where}, which never sends {word!r}")
    return problems


def test_every_request_field_has_a_behaviour_test() -> None:
    """Each parameter and request body property of openapi.yaml is listed in the table."""
    problems = uncovered(load_spec(), checked_in_table())
    assert not problems, "\n".join(problems)


def test_the_table_lists_only_fields_of_the_document() -> None:
    """An entry for a field openapi.yaml no longer has is removed, not left to mislead."""
    fields = set(request_fields(load_spec()))
    stale = [
        f"{TABLE_NAME}: [{operation_id}] {name!r} is not a request field of openapi.yaml: "
        "remove it (or fix its operationId or name)"
        for operation_id, name in checked_in_table()
        if (operation_id, name) not in fields
    ]
    assert not stale, "\n".join(stale)


def test_every_listed_test_exists_and_names_its_field() -> None:
    """Each node id is a test function that exists, and it (or a helper or constant it uses)
    names the field, so a test of something else cannot stand in for it.
    """
    problems = listed_test_problems(checked_in_table())
    assert not problems, "\n".join(problems)


def test_a_test_of_something_else_cannot_stand_in_for_a_field() -> None:
    """A test that never names the field, or that does not exist, is reported."""
    streams = "tests/server/test_routes_streams.py"
    table: dict[Field, list[str] | str] = {
        ("appendEntry", "body.trace_id"): [
            f"{streams}::test_append_entry_trims_exactly_with_maxlen"
        ],
        ("appendEntry", "body.maxlen"): [
            f"{streams}::test_gone",
            f"{streams}::test_delete_stream[x]",
        ],
    }
    where = f"{TABLE_NAME}: [appendEntry] 'body.maxlen' lists {streams}"
    assert listed_test_problems(table) == [
        f"{TABLE_NAME}: [appendEntry] 'body.trace_id' lists {streams}::"
        "test_append_entry_trims_exactly_with_maxlen, which never sends 'trace_id'",
        f"{where}::test_gone: {streams} has no test_gone",
        f"{where}::test_delete_stream[x]: name a test function as file::function or "
        "file::Class::function",
    ]


def test_a_field_the_service_ignores_fails_the_check() -> None:
    """The guarantee itself: a new optional body field and a new query parameter, which the
    service would ignore, are each reported until a behaviour test is listed for them.
    """
    spec = copy.deepcopy(load_spec())
    append_entry = spec["components"]["schemas"]["AppendEntryRequest"]
    append_entry["properties"]["trace_id"] = {"type": "string", "maxLength": 64}
    list_jobs = spec["paths"]["/v1/queues/{queue}/jobs"]["get"]
    list_jobs.setdefault("parameters", []).append(
        {"name": "topic", "in": "query", "schema": {"$ref": "#/components/schemas/Topic"}}
    )
    assert uncovered(spec, checked_in_table()) == [
        "openapi.yaml: appendEntry body.trace_id has no behaviour test: write a test that sends "
        "it and asserts its effect on the service, then list it under [appendEntry] in "
        "tests/server/spec_coverage.toml",
        "openapi.yaml: listJobs query.topic has no behaviour test: write a test that sends it "
        "and asserts its effect on the service, then list it under [listJobs] in "
        "tests/server/spec_coverage.toml",
        # A schedule's stream destination is an appendEntry body, so the field is its too.
        "openapi.yaml: putSchedule body.destination.entry.trace_id has no behaviour test: write a "
        "test that sends it and asserts its effect on the service, then list it under "
        "[putSchedule] in tests/server/spec_coverage.toml",
    ]
