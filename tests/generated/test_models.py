"""Every schema example in openapi.yaml round-trips through the generated attrs and pydantic models."""

from __future__ import annotations

from typing import Any

import pytest

import generated.models
import generated.pydantic_models
from tests.generated._spec import SchemaExample, canonical_json, load_spec, schema_examples

EXAMPLES = list(schema_examples())
by_example = pytest.mark.parametrize(
    "case", EXAMPLES, ids=[f"{case.where}-{case.schema_name}" for case in EXAMPLES]
)

PROBLEM: dict[str, Any] = {
    "type": "https://spool.dev/problems/conflict",
    "title": "Conflict",
    "status": 409,
    "code": "conflict",
}


def test_examples_cover_requests_and_shared_responses() -> None:
    """The collection reaches request bodies, success bodies and the shared error responses."""
    places = {case.where for case in EXAMPLES}
    assert "appendEntry-request" in places
    assert "getHealth-200" in places
    assert set(load_spec()["components"]["responses"]) <= places


@by_example
def test_attrs_model_round_trips_the_example(case: SchemaExample) -> None:
    """`Model.from_dict(example).to_dict()` gives the example back (date-times compared as times)."""
    model = getattr(generated.models, case.schema_name)
    round_tripped = model.from_dict(case.example).to_dict()
    spec = load_spec()
    assert canonical_json(spec, case.schema, round_tripped) == canonical_json(
        spec, case.schema, case.example
    )


@by_example
def test_pydantic_model_validates_the_example(case: SchemaExample) -> None:
    """The pydantic model of the same name accepts the example, constraints included."""
    model = getattr(generated.pydantic_models, case.schema_name)
    model.model_validate(case.example)


def test_attrs_problem_keeps_an_unknown_error_code() -> None:
    """A code added by a newer service is read as a plain string, so an older client still gets
    the problem (and reads it by its status) instead of failing to parse it.
    """
    problem = generated.models.Problem.from_dict({**PROBLEM, "code": "added_later"})
    assert problem.code == "added_later"
    assert generated.models.Problem.from_dict(PROBLEM).code == PROBLEM["code"]


def test_attrs_model_refuses_an_unknown_nested_enum_value() -> None:
    """An unknown enum value deep inside a response (a job's state) raises TypeError as well."""
    job = {
        "job_id": "job_1",
        "queue": "jobs",
        "topic": "email-jobs",
        "payload": None,
        "state": "exploded",
        "attempts": 0,
        "max_attempts": 5,
        "published_at": "2026-11-29T12:00:00Z",
        "available_at": "2026-11-29T12:00:00Z",
    }
    with pytest.raises(TypeError, match="'exploded'"):
        generated.models.JobList.from_dict({"jobs": [job]})


def test_pydantic_problem_keeps_an_unknown_error_code() -> None:
    """The pydantic Problem accepts a code it does not know, as a string."""
    problem = generated.pydantic_models.Problem.model_validate({**PROBLEM, "code": "added_later"})
    assert problem.code == "added_later"
