"""openapi.yaml follows the house rules, and generated/ has a module for each of its operations."""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from tests.generated._spec import (
    Operation,
    all_examples,
    load_spec,
    operations,
    resolve,
    snake_case,
)

TAGS = {"streams", "queues", "messages", "system"}
PUBLIC_OPERATIONS = {"getHealth", "getOpenapiDocument", "getApiReference"}
PUBLISH_OPERATIONS = {
    "appendEntry",
    "appendEntries",
    "publishJob",
    "publishJobs",
    "publishMessage",
    "publishMessages",
}
GENERATED_FUNCTIONS = ("sync", "sync_detailed", "asyncio", "asyncio_detailed")

OPERATIONS = operations()
by_operation_id = pytest.mark.parametrize(
    "operation", OPERATIONS, ids=[operation.operation_id for operation in OPERATIONS]
)


def test_spec_is_a_valid_openapi_document() -> None:
    """openapi-spec-validator accepts the document."""
    validate(load_spec())


def test_operation_ids_are_unique() -> None:
    """No two operations share an operationId, so each gets its own generated module."""
    operation_ids = [operation.operation_id for operation in OPERATIONS]
    assert len(operation_ids) == len(set(operation_ids))


@by_operation_id
def test_operation_is_documented(operation: Operation) -> None:
    """The operation has an operationId, exactly one known tag, a summary and a description."""
    assert operation.operation_id, f"{operation.method.upper()} {operation.path} has no operationId"
    assert len(operation.tags) == 1 and operation.tags[0] in TAGS, operation.tags
    assert operation.raw.get("summary", "").strip()
    assert operation.raw.get("description", "").strip()


EXAMPLES = list(all_examples())


@pytest.mark.parametrize(
    ("where", "schema", "example"), EXAMPLES, ids=[where for where, _, _ in EXAMPLES]
)
def test_example_matches_its_schema(where: str, schema: Any, example: Any) -> None:
    """Each example obeys its schema (JSON Schema 2020-12, as OpenAPI 3.1), formats included."""
    rooted = {**schema, "components": load_spec()["components"]}
    validator = Draft202012Validator(rooted, format_checker=Draft202012Validator.FORMAT_CHECKER)
    problems = [
        f"{list(error.absolute_path)}: {error.message}" for error in validator.iter_errors(example)
    ]
    assert not problems, problems


@by_operation_id
def test_request_body_has_an_example(operation: Operation) -> None:
    """Each content type of the operation's request body, when it has one, carries an example."""
    if operation.request_body is None:
        return
    for content_type, media_type in operation.request_body["content"].items():
        assert "example" in media_type, f"request body {content_type} has no example"


@by_operation_id
def test_every_parameter_has_an_example(operation: Operation) -> None:
    """Path, query and header parameters (inherited from the path item too) carry an example."""
    for parameter in operation.parameters:
        assert "example" in parameter, f"parameter {parameter['name']!r} has no example"


@by_operation_id
def test_every_response_with_content_has_an_example(operation: Operation) -> None:
    """Each response with a body, shared error responses included, carries an example."""
    for status, response in operation.responses.items():
        for content_type, media_type in response.get("content", {}).items():
            assert "example" in media_type, f"response {status} {content_type} has no example"


@pytest.mark.parametrize("name", sorted(load_spec()["components"]["responses"]))
def test_shared_error_response_example_matches_its_status(name: str) -> None:
    """Wherever a shared error response is used, its HTTP status is the `status` of its example."""
    reference = f"#/components/responses/{name}"
    used_under = {
        status
        for operation in OPERATIONS
        for status, response in operation.raw["responses"].items()
        if response.get("$ref") == reference
    }
    example = load_spec()["components"]["responses"][name]["content"]["application/problem+json"]
    assert {str(example["example"]["status"])} >= used_under


@pytest.mark.parametrize("operation_id", sorted(PUBLISH_OPERATIONS))
def test_publish_operation_accepts_an_idempotency_key(operation_id: str) -> None:
    """Every publish operation takes the optional `Idempotency-Key` header."""
    (operation,) = [o for o in OPERATIONS if o.operation_id == operation_id]
    (key,) = [
        p for p in operation.parameters if (p["in"], p["name"]) == ("header", "Idempotency-Key")
    ]
    assert key.get("required", False) is False, "the key must stay optional"


def test_bearer_authentication_is_the_default() -> None:
    """The document's global security is the bearer scheme, declared under securitySchemes."""
    spec = load_spec()
    assert spec["security"] == [{"bearerAuth": []}]
    scheme = spec["components"]["securitySchemes"]["bearerAuth"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")


@by_operation_id
def test_only_health_and_document_skip_the_token(operation: Operation) -> None:
    """Health, the document and its reference declare `security: []`; every other operation
    inherits bearer.
    """
    if operation.operation_id in PUBLIC_OPERATIONS:
        assert operation.raw.get("security") == []
    else:
        assert "security" not in operation.raw
        assert operation.security == ({"bearerAuth": []},)


@pytest.mark.parametrize(
    "code", resolve(load_spec(), {"$ref": "#/components/schemas/ErrorCode"})["enum"]
)
def test_error_code_is_described_by_a_response(code: str) -> None:
    """Each ErrorCode value is named, as a whole word, in a shared response's description."""
    descriptions = " ".join(
        response["description"] for response in load_spec()["components"]["responses"].values()
    )
    assert re.search(rf"\b{re.escape(code)}\b", descriptions), f"no response describes {code!r}"


@by_operation_id
def test_generated_module_covers_the_operation(operation: Operation) -> None:
    """generated/api/<tag>/<snake_case(operationId)>.py exists with all four call styles."""
    module = importlib.import_module(
        f"generated.api.{operation.tag}.{snake_case(operation.operation_id)}"
    )
    missing = [name for name in GENERATED_FUNCTIONS if not callable(getattr(module, name, None))]
    assert not missing, f"{module.__name__} lacks {missing}"


PERMISSION_RESOURCES = {"stream", "queue", "message", "url_group", "schedule"}
PERMISSION_ACTIONS = {"publish", "consume", "admin", "any"}
PERMISSION_SCOPES = {"path", "destination", "message", "listed", "every"}


@by_operation_id
def test_every_secured_operation_states_its_permission(operation: Operation) -> None:
    """Each operation that needs a token says which permission in `x-spool-permission`, and its
    description says the same in words.
    """
    permission = operation.raw.get("x-spool-permission")
    if operation.operation_id in PUBLIC_OPERATIONS:
        assert permission is None
        return
    assert permission is not None, f"{operation.operation_id} has no x-spool-permission"
    assert set(permission) == {"resource", "action", "scope"}
    if permission["scope"] == "token":
        # The caller's own token, which every token may read, whatever its permissions.
        assert (permission["resource"], permission["action"]) == ("*", "any")
        assert "Any token may read itself" in " ".join(operation.raw["description"].split())
        return
    assert permission["resource"] in PERMISSION_RESOURCES
    assert permission["action"] in PERMISSION_ACTIONS
    assert permission["scope"] in PERMISSION_SCOPES
    if permission["scope"] == "path":
        names = {p["name"] for p in operation.parameters if p["in"] == "path"}
        assert permission["resource"] in names
    words = "any permission" if permission["action"] == "any" else f"`{permission['action']}`"
    description = " ".join(operation.raw["description"].split())
    assert f"Needs {words}" in description or "Needs some permission" in description
