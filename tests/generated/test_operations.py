"""Every operation of openapi.yaml, called through generated/ with its own examples.

The cases come from the spec, so an operation added to openapi.yaml is tested here without
editing this file, and one added without examples fails (MissingExample) instead of being skipped.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Literal

import httpx
import pytest
import respx

import generated.models
from generated.models import Problem
from tests.generated._spec import (
    BASE_URL,
    HTTP_METHODS,
    TOKEN,
    ExampleRequest,
    MissingExample,
    Operation,
    call_arguments,
    call_operation,
    canonical_json,
    example_request,
    load_spec,
    operations,
    response_example,
    wire_string,
)

OPERATIONS = operations()
MODES: tuple[Literal["sync", "async"], ...] = ("sync", "async")
ERROR_CASES = [
    (operation, status) for operation in OPERATIONS for status in operation.error_statuses
]


def _answer(content_type: str, example: Any, *, status: int) -> httpx.Response:
    content = example if isinstance(example, str) else json.dumps(example)
    return httpx.Response(status, content=content.encode(), headers={"Content-Type": content_type})


def _assert_sent_as_documented(
    sent: httpx.Request, operation: Operation, request: ExampleRequest
) -> None:
    assert sent.method == operation.method.upper()
    assert sent.url.raw_path.split(b"?")[0].decode() == request.path
    # An array parameter (style form, exploded) goes as the parameter repeated, once per item.
    assert {name: sent.url.params.get_list(name) for name in sent.url.params} == {
        k: [wire_string(item) for item in v] if isinstance(v, list) else [wire_string(v)]
        for k, v in request.query_params.items()
    }
    if operation.security:
        assert sent.headers["Authorization"] == f"Bearer {TOKEN}"
    for name, value in request.header_params.items():
        assert sent.headers[name] == wire_string(value)
    if request.has_body:
        assert sent.headers["Content-Type"] == "application/json"
        assert json.loads(sent.content) == request.body
    else:
        assert sent.content == b""


def _assert_parsed_as_documented(parsed: Any, operation: Operation, status: str) -> None:
    documented = response_example(operation, status)
    if documented is None:
        assert parsed is None
        return
    content_type, example = documented
    schema = operation.responses[status]["content"][content_type]["schema"]
    if "$ref" not in schema:
        assert parsed == example
        return
    assert isinstance(parsed, getattr(generated.models, schema["$ref"].rsplit("/", 1)[-1]))
    spec = load_spec()
    assert canonical_json(spec, schema, parsed.to_dict()) == canonical_json(spec, schema, example)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("operation", OPERATIONS, ids=[o.operation_id for o in OPERATIONS])
async def test_operation_sends_its_examples_and_parses_its_answer(
    operation: Operation, mode: Literal["sync", "async"]
) -> None:
    """The example call goes out as documented and each success example parses into its model."""
    request = example_request(operation)
    assert operation.success_statuses, f"{operation.operation_id} documents no 2xx response"
    for status in operation.success_statuses:
        documented = response_example(operation, status)
        answer = (
            httpx.Response(int(status))
            if documented is None
            else _answer(*documented, status=int(status))
        )
        with respx.mock(base_url=BASE_URL, assert_all_called=True) as router:
            route = router.request(operation.method.upper(), request.path).mock(answer)
            response = await call_operation(
                operation, mode=mode, arguments=call_arguments(operation, request)
            )
        _assert_sent_as_documented(route.calls.last.request, operation, request)
        assert response.status_code == int(status)
        _assert_parsed_as_documented(response.parsed, operation, status)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("operation", "status"),
    ERROR_CASES,
    ids=[f"{operation.operation_id}-{status}" for operation, status in ERROR_CASES],
)
async def test_documented_error_parses_into_a_problem(
    operation: Operation, status: str, mode: Literal["sync", "async"]
) -> None:
    """A documented 4xx/5xx answer comes back as a Problem carrying the example's code."""
    request = example_request(operation)
    documented = response_example(operation, status)
    assert documented is not None, f"{operation.operation_id} {status} has no problem body"
    content_type, example = documented
    assert content_type == "application/problem+json"
    with respx.mock(base_url=BASE_URL, assert_all_called=True) as router:
        router.request(operation.method.upper(), request.path).mock(
            _answer(content_type, example, status=int(status))
        )
        response = await call_operation(
            operation, mode=mode, arguments=call_arguments(operation, request)
        )
    assert response.status_code == int(status)
    assert isinstance(response.parsed, Problem)
    assert response.parsed.code == example["code"]
    assert response.parsed.to_dict() == example


def test_every_operation_in_the_spec_is_collected() -> None:
    """The parametrised cases cover every method of every path in openapi.yaml."""
    paths = load_spec()["paths"]
    documented = sum(
        1 for path_item in paths.values() for method in HTTP_METHODS if method in path_item
    )
    assert len(OPERATIONS) == documented
    assert len({operation.operation_id for operation in OPERATIONS}) == documented


SYNTHETIC_SPEC: dict[str, Any] = {
    "paths": {
        "/v1/widgets/{widget}": {
            "parameters": [{"name": "widget", "in": "path", "required": True, "example": "w1"}],
            "post": {
                "operationId": "makeWidget",
                "tags": ["system"],
                "parameters": [{"name": "dry_run", "in": "query", "example": True}],
                "requestBody": {
                    "content": {"application/json": {"example": {"size": 3}}},
                },
                "responses": {
                    "201": {
                        "description": "Made.",
                        "content": {"application/json": {"example": {"id": "w1"}}},
                    }
                },
            },
        }
    }
}


def _synthetic_operation(*, without: str | None = None) -> Operation:
    spec = copy.deepcopy(SYNTHETIC_SPEC)
    item = spec["paths"]["/v1/widgets/{widget}"]
    example_holders = {
        "path parameter": item["parameters"][0],
        "query parameter": item["post"]["parameters"][0],
        "request body": item["post"]["requestBody"]["content"]["application/json"],
        "response": item["post"]["responses"]["201"]["content"]["application/json"],
    }
    if without is not None:
        del example_holders[without]["example"]
    (operation,) = operations(spec)
    return operation


def test_builder_uses_a_complete_synthetic_operation() -> None:
    """With every example present, the builder produces the documented request and answer."""
    operation = _synthetic_operation()
    request = example_request(operation)
    assert (request.path, dict(request.query_params), request.body) == (
        "/v1/widgets/w1",
        {"dry_run": True},
        {"size": 3},
    )
    assert response_example(operation, "201") == ("application/json", {"id": "w1"})


@pytest.mark.parametrize("missing", ["path parameter", "query parameter", "request body"])
def test_operation_without_a_request_example_fails(missing: str) -> None:
    """Adding an operation whose parameter or body lacks an example fails with MissingExample."""
    with pytest.raises(MissingExample, match="makeWidget"):
        example_request(_synthetic_operation(without=missing))


def test_operation_without_a_response_example_fails() -> None:
    """Adding an operation whose response body lacks an example fails with MissingExample."""
    with pytest.raises(MissingExample, match="makeWidget: response 201"):
        response_example(_synthetic_operation(without="response"), "201")
