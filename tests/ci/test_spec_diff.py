"""`make spec-diff` (`.ci/spec_diff.py`): each change to openapi.yaml classified as breaking,
compatible or documentation, and info.version's bump checked against the worst of them.

The changes are made to copies of the real document, so the rules are checked on the shapes the
spec has; the last tests run the script on a git repository of its own.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import tool_environment

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "spec_diff.py"
sys.path.insert(0, str(SCRIPT.parent))

import spec_diff  # noqa: E402
from spec_diff import Severity  # noqa: E402

Document = dict[str, Any]
Edit = Callable[[Document], None]

BREAKING, COMPATIBLE, DOCUMENTATION = Severity.BREAKING, Severity.COMPATIBLE, Severity.DOCUMENTATION


@pytest.fixture(scope="module")
def document() -> Document:
    return spec_diff.load_document(spec_diff.SPEC.read_text(encoding="utf-8"), "openapi.yaml")


def operation(document: Document, operation_id: str) -> dict[str, Any]:
    for item in document["paths"].values():
        for method, found in item.items():
            if method in ("get", "put", "post", "delete", "patch") and (
                found.get("operationId") == operation_id
            ):
                result: dict[str, Any] = found
                return result
    raise LookupError(operation_id)


def schema(document: Document, name: str) -> dict[str, Any]:
    found: dict[str, Any] = document["components"]["schemas"][name]
    return found


def rename(mapping: dict[str, Any], old: str, new: str) -> None:
    """Rename a key in place, keeping its place among the others."""
    items = [(new if key == old else key, value) for key, value in mapping.items()]
    mapping.clear()
    mapping.update(items)


def remove_delete_stream(document: Document) -> None:
    del document["paths"]["/v1/streams/{stream}"]["delete"]


def rename_get_stream(document: Document) -> None:
    operation(document, "getStream")["operationId"] = "describeStream"


def rename_response_field(document: Document) -> None:
    info = schema(document, "StreamInfo")
    rename(info["properties"], "length", "size")
    info["required"] = ["size" if name == "length" else name for name in info["required"]]


def rename_request_field(document: Document) -> None:
    rename(schema(document, "LeaseRequest")["properties"], "topics", "topic_names")


def require_count(document: Document) -> None:
    for parameter in operation(document, "rangeEntries")["parameters"]:
        if parameter.get("name") == "count":
            parameter["required"] = True


def remove_dead_state(document: Document) -> None:
    schema(document, "JobState")["enum"].remove("dead")


def add_paused_state(document: Document) -> None:
    schema(document, "JobState")["enum"].append("paused")


def add_error_code(document: Document) -> None:
    schema(document, "ErrorCode")["enum"].append("stream_sealed")


def narrow_length_type(document: Document) -> None:
    schema(document, "StreamInfo")["properties"]["length"]["type"] = "string"


def null_in_request(document: Document) -> None:
    schema(document, "LeaseRequest")["properties"]["max_jobs"]["type"] = ["integer", "null"]


def null_in_response(document: Document) -> None:
    schema(document, "StreamInfo")["properties"]["length"]["type"] = ["integer", "null"]


def relax_max_jobs(document: Document) -> None:
    schema(document, "LeaseRequest")["properties"]["max_jobs"]["maximum"] = 5000


def tighten_max_jobs(document: Document) -> None:
    schema(document, "LeaseRequest")["properties"]["max_jobs"]["maximum"] = 10


def change_permission(document: Document) -> None:
    operation(document, "deleteStream")["x-spool-permission"]["action"] = "publish"


def make_public(document: Document) -> None:
    operation(document, "deleteStream")["security"] = []


def change_scheme(document: Document) -> None:
    document["components"]["securitySchemes"]["bearerAuth"]["scheme"] = "basic"


def add_optional_field(document: Document) -> None:
    schema(document, "LeaseRequest")["properties"]["priority"] = {"type": "integer", "minimum": 0}


def add_required_field(document: Document) -> None:
    add_optional_field(document)
    schema(document, "LeaseRequest").setdefault("required", []).append("priority")


def add_response_field(document: Document) -> None:
    schema(document, "StreamInfo")["properties"]["bytes"] = {"type": "integer", "minimum": 0}


def add_operation(document: Document) -> None:
    copied = copy.deepcopy(operation(document, "getStream"))
    copied["operationId"] = "getStreamStats"
    document["paths"]["/v1/streams/{stream}/stats"] = {
        "parameters": [{"$ref": "#/components/parameters/StreamName"}],
        "get": copied,
    }


def change_success_status(document: Document) -> None:
    rename(operation(document, "deleteStream")["responses"], "204", "200")


def remove_error_response(document: Document) -> None:
    del operation(document, "deleteStream")["responses"]["404"]


def remove_response_header(document: Document) -> None:
    del operation(document, "appendEntry")["responses"]["201"]["headers"]["Idempotent-Replayed"]


def remove_component_header(document: Document) -> None:
    del document["components"]["responses"]["NotFound"]["headers"]["X-Request-Id"]


def reword(document: Document) -> None:
    operation(document, "getStream")["description"] = "Describe a stream."
    schema(document, "StreamInfo")["properties"]["length"]["description"] = "How many entries."
    document["info"]["description"] += "\nMore words."


CASES: list[tuple[Edit, Severity, str, str]] = [
    (
        remove_delete_stream,
        BREAKING,
        "DELETE /v1/streams/{stream} (deleteStream)",
        "operation removed",
    ),
    (
        rename_get_stream,
        BREAKING,
        "GET /v1/streams/{stream} (describeStream)",
        'operationId renamed from "getStream" to "describeStream"',
    ),
    (
        rename_response_field,
        BREAKING,
        "#/components/schemas/StreamInfo/properties/length",
        "property removed",
    ),
    (
        rename_request_field,
        BREAKING,
        "#/components/schemas/LeaseRequest/properties/topics",
        "property removed",
    ),
    (
        require_count,
        BREAKING,
        "GET /v1/streams/{stream}/entries (rangeEntries): parameters/query/count",
        "made required",
    ),
    (remove_dead_state, BREAKING, "#/components/schemas/JobState", 'enum values removed: "dead"'),
    (add_paused_state, BREAKING, "#/components/schemas/JobState", 'enum values added: "paused"'),
    (
        add_error_code,
        COMPATIBLE,
        "#/components/schemas/ErrorCode",
        'enum values added: "stream_sealed"',
    ),
    (
        narrow_length_type,
        BREAKING,
        "#/components/schemas/StreamInfo/properties/length",
        'type changed from "integer" to "string"',
    ),
    (
        null_in_request,
        COMPATIBLE,
        "#/components/schemas/LeaseRequest/properties/max_jobs",
        'type changed from "integer" to ["integer", "null"]',
    ),
    (
        null_in_response,
        BREAKING,
        "#/components/schemas/StreamInfo/properties/length",
        'type changed from "integer" to ["integer", "null"]',
    ),
    (
        relax_max_jobs,
        COMPATIBLE,
        "#/components/schemas/LeaseRequest/properties/max_jobs",
        "maximum raised from 1000 to 5000",
    ),
    (
        tighten_max_jobs,
        BREAKING,
        "#/components/schemas/LeaseRequest/properties/max_jobs",
        "maximum lowered from 1000 to 10",
    ),
    (
        change_permission,
        BREAKING,
        "DELETE /v1/streams/{stream} (deleteStream)",
        "x-spool-permission changed from"
        ' {"action": "admin", "resource": "stream", "scope": "path"}'
        ' to {"action": "publish", "resource": "stream", "scope": "path"}',
    ),
    (
        make_public,
        BREAKING,
        "DELETE /v1/streams/{stream} (deleteStream)",
        'security changed from [{"bearerAuth": []}] to []',
    ),
    (
        change_scheme,
        BREAKING,
        "#/components/securitySchemes/bearerAuth",
        'scheme changed from "bearer" to "basic"',
    ),
    (
        add_optional_field,
        COMPATIBLE,
        "#/components/schemas/LeaseRequest/properties/priority",
        "optional property added",
    ),
    (
        add_required_field,
        BREAKING,
        "#/components/schemas/LeaseRequest/properties/priority",
        "required property added",
    ),
    (
        add_response_field,
        COMPATIBLE,
        "#/components/schemas/StreamInfo/properties/bytes",
        "optional property added",
    ),
    (
        add_operation,
        COMPATIBLE,
        "GET /v1/streams/{stream}/stats (getStreamStats)",
        "operation added",
    ),
    (
        change_success_status,
        BREAKING,
        "DELETE /v1/streams/{stream} (deleteStream): responses/204",
        "success response removed",
    ),
    (
        remove_error_response,
        BREAKING,
        "DELETE /v1/streams/{stream} (deleteStream): responses/404",
        "error response removed",
    ),
    (
        remove_response_header,
        BREAKING,
        "POST /v1/streams/{stream}/entries (appendEntry): responses/201/headers/Idempotent-Replayed",
        "response header removed",
    ),
    (
        remove_component_header,
        BREAKING,
        "#/components/responses/NotFound/headers/X-Request-Id",
        "response header removed",
    ),
    (reword, DOCUMENTATION, "GET /v1/streams/{stream} (getStream)", "description changed"),
]


def _bumps(version: str) -> dict[Severity, tuple[str, str]]:
    """For each kind, the smallest bump that is too small and the smallest that is enough."""
    major, minor, patch = spec_diff.parse_version(version)
    return {
        BREAKING: (f"{major}.{minor + 1}.0", f"{major + 1}.0.0"),
        COMPATIBLE: (f"{major}.{minor}.{patch + 1}", f"{major}.{minor + 1}.0"),
    }


@pytest.mark.parametrize(
    ("edit", "severity", "location", "message"), CASES, ids=[case[0].__name__ for case in CASES]
)
def test_each_change_is_classified_and_needs_its_bump(
    document: Document, edit: Edit, severity: Severity, location: str, message: str
) -> None:
    """The change is reported where it is, the worst change decides, and info.version must
    move at least as far as the worst change asks.
    """
    edited = copy.deepcopy(document)
    edit(edited)
    report = spec_diff.compare(document, edited)
    found = {(entry.location, entry.message): entry.severity for entry in report.entries}
    assert found.get((location, message)) is severity, "\n".join(map(str, report.entries))
    assert report.worst is severity
    version = document["info"]["version"]
    if severity is DOCUMENTATION:
        assert spec_diff.version_problem(version, version, report.worst) is None
        return
    too_small, enough = _bumps(version)[severity]
    assert spec_diff.version_problem(version, version, report.worst) is not None
    assert spec_diff.version_problem(version, too_small, report.worst) is not None
    assert spec_diff.version_problem(version, enough, report.worst) is None


def test_the_same_document_has_no_change(document: Document) -> None:
    report = spec_diff.compare(document, copy.deepcopy(document))
    assert report.entries == []
    assert report.worst is None


def test_a_change_in_a_component_names_the_operations_that_reach_it(document: Document) -> None:
    """A field renamed in a shared schema is reported once, at the schema, with each operation
    and the direction it reaches the schema in.
    """
    edited = copy.deepcopy(document)
    rename_response_field(edited)
    [removed] = [
        entry
        for entry in spec_diff.compare(document, edited).entries
        if entry.location == "#/components/schemas/StreamInfo/properties/length"
    ]
    assert removed.used_by == {"getStream": ["response 200"]}
    assert str(removed).endswith("property removed (in getStream response 200)")

    edited = copy.deepcopy(document)
    remove_dead_state(edited)
    [narrowed] = spec_diff.compare(document, edited).entries
    assert narrowed.used_by["listJobs"] == ["parameter query state", "response 200"]
    assert narrowed.used_by["getJob"] == ["response 200"]


def test_a_removed_operation_whose_id_moved_says_where(document: Document) -> None:
    edited = copy.deepcopy(document)
    item = edited["paths"].pop("/v1/streams/{stream}")
    edited["paths"]["/v1/stream/{stream}"] = item
    messages = {entry.message for entry in spec_diff.compare(document, edited).of(BREAKING)}
    assert (
        "operation removed; its operationId is now DELETE /v1/stream/{stream} (deleteStream)"
        in (messages)
    )


def _tiny(request_enum: list[str], response_enum: list[str]) -> Document:
    """A document with one operation whose request and response each have an enum of their own."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1.0.0"},
        "paths": {
            "/things": {
                "post": {
                    "operationId": "makeThing",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"kind": {"enum": request_enum}},
                                }
                            }
                        },
                    },
                    "responses": {
                        "201": {
                            "description": "made",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"state": {"enum": response_enum}},
                                    }
                                }
                            },
                        }
                    },
                }
            }
        },
    }


def test_a_new_enum_value_breaks_responses_but_not_requests() -> None:
    """Clients refuse a response value they were not generated with; the service taking one
    more value from them is compatible.
    """
    base = _tiny(["a"], ["x"])
    report = spec_diff.compare(base, _tiny(["a", "b"], ["x"]))
    assert [(entry.severity, entry.message) for entry in report.entries] == [
        (COMPATIBLE, 'enum values added: "b"')
    ]
    report = spec_diff.compare(base, _tiny(["a"], ["x", "y"]))
    assert [(entry.severity, entry.location) for entry in report.entries] == [
        (
            BREAKING,
            "POST /things (makeThing): responses/201/content/application/json/schema"
            "/properties/state",
        )
    ]


@pytest.mark.parametrize(
    "child",
    [
        {"$ref": "#/components/schemas/Node"},
        {"$ref": "#/components/schemas/Node", "description": "The next node."},
    ],
    ids=["reference", "reference-with-siblings"],
)
def test_a_recursive_schema_is_compared_to_its_end(child: dict[str, str]) -> None:
    """A schema that contains itself is compared once around the loop, however it names itself."""
    base = _tiny(["a"], ["x"])
    node = {"type": "object", "properties": {"child": child}}
    base["components"] = {"schemas": {"Node": node}}
    response = base["paths"]["/things"]["post"]["responses"]["201"]["content"]["application/json"]
    response["schema"] = {"$ref": "#/components/schemas/Node"}
    edited = copy.deepcopy(base)
    edited["components"]["schemas"]["Node"]["properties"]["name"] = {"type": "string"}
    [added] = spec_diff.compare(base, edited).entries
    assert (added.severity, added.location, added.message) == (
        COMPATIBLE,
        "#/components/schemas/Node/properties/name",
        "optional property added",
    )


@pytest.mark.parametrize(
    ("old", "new", "worst", "passes"),
    [
        ("0.1.0", "0.1.0", None, True),
        ("0.1.0", "0.1.0", DOCUMENTATION, True),
        ("0.1.0", "0.1.1", COMPATIBLE, False),
        ("0.1.0", "0.2.0", COMPATIBLE, True),
        ("0.1.0", "0.2.0", BREAKING, False),
        ("0.1.0", "1.0.0", BREAKING, True),
        ("1.2.3", "1.3.0", BREAKING, False),
        ("1.2.3", "2.0.0", BREAKING, True),
        ("1.2.3", "2.0.0-rc.1", BREAKING, True),
        ("0.2.0", "0.1.0", None, False),
    ],
)
def test_the_version_rule(old: str, new: str, worst: Severity | None, passes: bool) -> None:
    """Semver's rule, applied to 0.x too: breaking needs a major bump, compatible a minor one."""
    assert (spec_diff.version_problem(old, new, worst) is None) is passes


@pytest.mark.parametrize("version", ["1.0", 1.0, "v1.0.0", None, "01.0.0"])
def test_a_version_that_is_not_semver_is_refused(version: object) -> None:
    with pytest.raises(spec_diff.SpecDiffError, match="not a semver version"):
        spec_diff.version_problem("0.1.0", version, None)


def test_a_document_that_does_not_read_is_refused() -> None:
    with pytest.raises(spec_diff.SpecDiffError, match="is not YAML"):
        spec_diff.load_document("a: [", "broken.yaml")
    with pytest.raises(spec_diff.SpecDiffError, match="not an OpenAPI document"):
        spec_diff.load_document("- 1\n", "list.yaml")


# The script on a repository of its own.


def _git(repository: Path, *arguments: str) -> str:
    environment = {
        **tool_environment(),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "spec-diff test",
        "GIT_AUTHOR_EMAIL": "spec-diff@example.invalid",
        "GIT_COMMITTER_NAME": "spec-diff test",
        "GIT_COMMITTER_EMAIL": "spec-diff@example.invalid",
    }
    done = subprocess.run(
        ["git", "-C", str(repository), *arguments],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _spec_diff(repository: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--spec", str(repository / "openapi.yaml"), *arguments],
        env=tool_environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def _write(path: Path, document: Document) -> None:
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")


@pytest.mark.slow
def test_the_script_checks_every_change_since_the_previous_version(
    tmp_path: Path, document: Document
) -> None:
    """The base is the newest commit of another version than the file's (the document as first
    committed while there is none), however many commits changed the spec since; BASE overrides.
    """
    repository = tmp_path / "repository"
    repository.mkdir()
    spec = repository / "openapi.yaml"
    _git(repository, "init", "--quiet")
    _write(spec, document)
    _git(repository, "add", "openapi.yaml")
    _git(repository, "commit", "--quiet", "-m", "The first spec")
    first = _git(repository, "rev-parse", "HEAD").strip()

    result = _spec_diff(repository)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"against {first[:12]} (" in result.stdout.splitlines()[0]
    assert "spec-diff: passed (0 breaking, 0 compatible, 0 documentation)" in result.stdout

    removed = copy.deepcopy(document)
    remove_delete_stream(removed)
    _write(spec, removed)
    _git(repository, "commit", "--quiet", "-m", "Remove deleteStream", "--", "openapi.yaml")
    (repository / "notes.txt").write_text("a later commit that leaves the spec alone\n")
    _git(repository, "add", "notes.txt")
    _git(repository, "commit", "--quiet", "-m", "Notes")

    removal = _git(repository, "rev-parse", "HEAD~1").strip()
    result = _spec_diff(repository)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"against {first[:12]} (" in result.stdout.splitlines()[0]
    assert "  DELETE /v1/streams/{stream} (deleteStream): operation removed" in result.stdout
    assert "spec-diff: FAILED: breaking changes need a major bump of info.version" in result.stdout

    major = spec_diff.parse_version(document["info"]["version"])[0]
    removed["info"]["version"] = f"{major + 1}.0.0"
    _write(spec, removed)
    result = _spec_diff(repository)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"against {removal[:12]} (" in result.stdout.splitlines()[0]
    _git(repository, "commit", "--quiet", "-m", "Version 2", "--", "openapi.yaml")

    added = copy.deepcopy(removed)
    added["paths"]["/v1/extra"] = copy.deepcopy(document["paths"]["/v1/health"])
    added["paths"]["/v1/extra"]["get"]["operationId"] = "getExtra"
    _write(spec, added)
    _git(
        repository, "commit", "--quiet", "-m", "An operation under version 2", "--", "openapi.yaml"
    )
    result = _spec_diff(repository)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"against {removal[:12]} (" in result.stdout.splitlines()[0]
    assert "spec-diff: passed (0 breaking, 1 compatible, 0 documentation)" in result.stdout

    result = _spec_diff(repository, "--base", first)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "operation removed" in result.stdout
    assert "spec-diff: passed (1 breaking, 1 compatible, 0 documentation)" in result.stdout

    result = _spec_diff(repository, "--base", "no-such-ref")
    assert (result.returncode, result.stderr.strip()) == (
        2,
        "spec-diff: the base 'no-such-ref' names no commit",
    )


@pytest.mark.slow
def test_make_runs_it_before_lint_with_the_base_it_is_given() -> None:
    """`make spec-diff BASE=...` hands the ref on, and `make checks` runs the check before lint."""

    def dry_run(*arguments: str) -> list[str]:
        shown = subprocess.run(
            ["make", "-n", "--no-print-directory", *arguments],
            cwd=ROOT,
            env={**tool_environment(), "MAKEFLAGS": ""},
            capture_output=True,
            text=True,
            check=True,
        )
        return [line.strip() for line in shown.stdout.splitlines()]

    assert ".venv/bin/python .ci/spec_diff.py --base 'v1.2.3'" in dry_run(
        "spec-diff", "BASE=v1.2.3"
    )
    checks = dry_run("checks", "BASE=")
    assert checks.index(".venv/bin/python .ci/spec_diff.py") < checks.index(
        ".venv/bin/ruff check ."
    )
