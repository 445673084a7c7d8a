"""Request bodies (server/routes/_body.py): media types, depth, whole floats, nulls, non-finite
numbers, and the one-pass validation that agrees with the walks.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

import generated.pydantic_models as models
from server.problems import ProblemError
from server.routes._body import (
    _one_pass_validator,
    _parse_with_walks,
    may_hold_non_finite,
    parse_body,
)
from tests.conftest import RunningApp, assert_problem


@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/problem+json",
    ],
)
async def test_json_bodies_are_read_as_json_or_without_a_content_type(
    api: RunningApp, content_type: str | None
) -> None:
    """JSON types (any parameters, any case, ``+json``) and no Content-Type at all are read."""
    headers = {} if content_type is None else {"Content-Type": content_type}
    response = await api.client.post(
        "/v1/streams/events/entries", content=b'{"body": 1}', headers=headers
    )
    assert response.status_code == 201


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", ""])
async def test_a_body_sent_as_another_media_type_is_415(api: RunningApp, content_type: str) -> None:
    """A Content-Type that is not JSON is refused before the body is read, and nothing is written."""
    response = await api.client.post(
        "/v1/streams/events/entries", content=b'{"body": 1}', headers={"Content-Type": content_type}
    )
    assert_problem(response, 415, "unsupported_media_type")
    assert f"Content-Type {content_type!r} is not JSON" in response.json()["detail"]
    assert_problem(await api.client.get("/v1/streams/events"), 404, "stream_not_found")


async def test_json_nested_past_the_documented_depth_is_400(api: RunningApp) -> None:
    """openapi.yaml's limits table: 200 levels inside ``body`` are read, 201 are refused."""
    deepest = "[" * 200 + "]" * 200
    accepted = await api.client.post(
        "/v1/streams/events/entries", content=f'{{"body": {deepest}}}'.encode()
    )
    assert accepted.status_code == 201
    too_deep = await api.client.post(
        "/v1/streams/events/entries", content=f'{{"body": [{deepest}]}}'.encode()
    )
    assert_problem(too_deep, 400, "malformed_request")


async def test_whole_floats_are_integers(api: RunningApp) -> None:
    """As in JSON Schema, ``90.0`` is an integer (Python clients send it), also in a field whose
    schema is shared by ``$ref`` (``MaxDeliveries``); ``90.5`` is not.
    """
    created = await api.client.put("/v1/queues/jobs", content=b'{"lease_seconds": 90.0}')
    assert created.status_code == 201
    assert created.json()["lease_seconds"] == 90
    fraction = await api.client.put("/v1/queues/jobs", content=b'{"lease_seconds": 90.5}')
    assert_problem(fraction, 422, "validation_failed")
    shared = await api.client.post(
        "/v1/streams/events/groups",
        content=b'{"group": "g", "mkstream": true, "max_deliveries": 258.0}',
    )
    assert shared.status_code == 201
    assert shared.json()["max_deliveries"] == 258
    nested = await api.client.post(
        "/v1/queues/jobs/batch", content=b'{"jobs": [{"topic": "t", "payload": 2.0, "delay": 1.0}]}'
    )
    assert nested.status_code == 202
    job_id = nested.json()["receipts"][0]["job_id"]
    job = (await api.client.get(f"/v1/queues/jobs/jobs/{job_id}")).json()
    assert job["payload"] == 2.0


async def test_null_is_not_a_value_for_typed_optional_fields(api: RunningApp) -> None:
    """``null`` for an optional typed field is 422; for an any-JSON field it is a value."""
    response = await api.client.post(
        "/v1/streams/events/batch", json={"entries": [{"body": None}], "minid": None}
    )
    problem = assert_problem(response, 422, "validation_failed")
    assert [error["location"] for error in problem["errors"]] == ["body.minid"]
    nested = await api.client.post(
        "/v1/messages/batch",
        json={"messages": [{"url": "https://example.com/", "body": None, "headers": None}]},
    )
    problem = assert_problem(nested, 422, "validation_failed")
    assert problem["errors"][0]["location"] == "body.messages.0.headers"
    accepted = await api.client.post("/v1/streams/events/entries", json={"body": None})
    assert accepted.status_code == 201


async def test_other_methods_on_the_batch_path_are_405(api: RunningApp) -> None:
    """/v1/messages/batch takes only POST; GET there is 405, not an invalid message id."""
    response = await api.client.get("/v1/messages/batch")
    assert_problem(response, 405, "method_not_allowed")
    assert response.headers["allow"] == "POST"


async def test_whole_floats_are_integers_in_nested_batch_items(api: RunningApp) -> None:
    """``1.0`` is an integer in every item of a batch, not only at the top of a body."""
    jobs = b'{"jobs": [{"topic": "t", "payload": 1, "delay": 0.0}, {"topic": "t", "payload": 1.0}]}'
    await api.client.put("/v1/queues/jobs", json={})
    published = await api.client.post("/v1/queues/jobs/batch", content=jobs)
    assert published.status_code == 202, published.text
    messages = b'{"messages": [{"url": "https://example.com/", "body": 1, "retries": 2.0}]}'
    sent = await api.client.post("/v1/messages/batch", content=messages)
    assert sent.status_code == 202, sent.text
    message_id = sent.json()["results"][0]["messages"][0]["message_id"]
    message = (await api.client.get(f"/v1/messages/{message_id}")).json()
    assert message["retries"] == 2
    fraction = (
        b'{"jobs": [{"topic": "t", "payload": 1}, {"topic": "t", "payload": 1, "delay": 0.5}]}'
    )
    problem = assert_problem(
        await api.client.post("/v1/queues/jobs/batch", content=fraction), 422, "validation_failed"
    )
    assert [error["location"] for error in problem["errors"]] == ["body.jobs.1.delay"]


async def test_null_is_refused_in_nested_optional_fields(api: RunningApp) -> None:
    """``null`` for a typed field of a batch item is 422 at that item; a null payload is a value."""
    await api.client.put("/v1/queues/jobs", json={})
    jobs = {"jobs": [{"topic": "t", "payload": None}, {"topic": "t", "payload": 1, "delay": None}]}
    problem = assert_problem(
        await api.client.post("/v1/queues/jobs/batch", json=jobs), 422, "validation_failed"
    )
    assert problem["errors"] == [
        {"location": "body.jobs.1.delay", "message": "Input should not be null"}
    ]
    accepted = await api.client.post("/v1/queues/jobs/batch", json={"jobs": jobs["jobs"][:1]})
    assert accepted.status_code == 202, accepted.text


@pytest.mark.parametrize(
    ("path", "raw", "location"),
    [
        (
            "/v1/streams/events/batch",
            b'{"entries": [{"body": 1}, {"body": {"x": [NaN]}}]}',
            "body.entries.1.body",
        ),
        ("/v1/streams/events/entries", b'{"body": [1, -Infinity]}', "body.body"),
        (
            "/v1/queues/jobs/batch",
            b'{"jobs": [{"topic": "t", "payload": 1E+400}]}',
            "body.jobs.0.payload",
        ),
        (
            "/v1/messages/batch",
            b'{"messages": [{"url": "https://example.com/", "body": Infinity}]}',
            "body.messages.0.body",
        ),
    ],
)
async def test_non_finite_numbers_are_refused_where_they_are(
    api: RunningApp, path: str, raw: bytes, location: str
) -> None:
    """NaN and infinities are 422 at the value that holds them, in single and batch publishes."""
    await api.client.put("/v1/queues/jobs", json={})
    problem = assert_problem(await api.client.post(path, content=raw), 422, "validation_failed")
    assert problem["errors"][0]["location"].startswith(location)
    assert_problem(await api.client.get("/v1/streams/events"), 404, "stream_not_found")


@pytest.mark.parametrize(
    "raw",
    [
        b"NaN",
        b"[1, -Infinity]",
        b'{"a": Infinity}',
        b"1e400",
        b"1E+400",
        b"-1e0400",
        b"1" + b"0" * 250 + b"e60",
        b"1" + b"0" * 400 + b".5",
    ],
)
def test_bytes_that_may_parse_as_non_finite_are_found(raw: bytes) -> None:
    """Every spelling JSON parsing turns into NaN or an infinity is caught by the byte scan."""
    from pydantic_core import from_json

    assert may_hold_non_finite(raw)
    assert "nan" in repr(from_json(raw)) or "inf" in repr(from_json(raw))


def test_ordinary_bodies_skip_the_finite_walk() -> None:
    """Integers, decimals, small exponents and text hold no non-finite number."""
    bodies = [
        {"n": index, "price": 9.99, "big": 1.5e99, "text": "Never ending"} for index in range(50)
    ]
    assert not may_hold_non_finite(json.dumps({"entries": [{"body": b} for b in bodies]}).encode())


def _request_models() -> list[type[BaseModel]]:
    return [
        model
        for model in vars(models).values()
        if isinstance(model, type)
        and issubclass(model, BaseModel)
        and model.model_config.get("extra") == "forbid"
    ]


@pytest.mark.parametrize("model", _request_models(), ids=lambda model: model.__name__)
def test_every_request_model_validates_in_one_pass(model: type[BaseModel]) -> None:
    """The one-pass validator knows every request body's schema, so no body takes the long way
    unless it is invalid.
    """
    assert _one_pass_validator(model) is not None


def _outcome(
    parse: Callable[[bytes, type[BaseModel]], BaseModel], raw: bytes, model: type[BaseModel]
) -> Any:
    try:
        return parse(raw, model)
    except ProblemError as error:
        return (error.status, error.code, error.detail, error.errors)


@pytest.mark.parametrize(
    ("model", "raw"),
    [
        (models.AppendEntryRequest, b'{"body": 1}'),
        (models.AppendEntryRequest, b'{"body": null, "maxlen": 5.0}'),
        (models.AppendEntryRequest, b'{"body": 1.0, "maxlen": 5.5}'),
        (models.AppendEntryRequest, b'{"body": 1, "maxlen": "5"}'),
        (models.AppendEntryRequest, b'{"body": 1, "maxlen": null, "minid": null}'),
        (models.AppendEntryRequest, b'{"body": 1, "maxlen": null, "surprise": 1}'),
        (models.AppendEntryRequest, b'{"body": 1, "maxlen": 1e300}'),
        (models.AppendEntryRequest, b'{"body": NaN, "maxlen": NaN}'),
        (models.AppendEntryRequest, b'{"body": 1, "nomkstream": null}'),
        (models.AppendEntryRequest, b'{"body": 1, "approximate": 1.0}'),
        (models.AppendEntryRequest, b'{"body": 1,'),
        (models.AppendEntryRequest, b"[]"),
        (
            models.AppendEntriesRequest,
            b'{"entries": [{"body": {"a": null, "b": 2.0}}], "maxlen": 0.0}',
        ),
        (models.AppendEntriesRequest, b'{"entries": [{"body": 1}, null]}'),
        (models.AppendEntriesRequest, b'{"entries": [], "maxlen": null}'),
        (models.PublishJobsRequest, b'{"jobs": [{"topic": "t", "payload": 2.0, "delay": 3.0}]}'),
        (
            models.PublishJobsRequest,
            b'{"jobs": [{"topic": "t", "payload": 1, "deduplication_id": null}]}',
        ),
        (models.PublishJobsRequest, b'{"jobs": [{"topic": null, "payload": 1, "delay": 1.5}]}'),
        (
            models.PublishMessagesRequest,
            b'{"messages": [{"url": "https://a.example.com/", "body": 1, "timeout": 5.0, "headers": {"x": "y"}}]}',
        ),
        (
            models.PublishMessagesRequest,
            b'{"messages": [{"url": "https://a.example.com/", "body": 1, "headers": null}]}',
        ),
        (models.QueueSettings, b'{"lease_seconds": 90.0}'),
        (models.ReadGroupRequest, b'{"consumer": "c", "count": 10.0, "wait_ms": -0.0}'),
    ],
)
def test_one_pass_parsing_agrees_with_the_walks(model: type[BaseModel], raw: bytes) -> None:
    """The one pass gives the same model, or the same problem, as walking the document does."""
    assert _outcome(parse_body, raw, model) == _outcome(_parse_with_walks, raw, model)


def test_the_one_pass_itself_holds_both_rules() -> None:
    """The compiled copy, not only the long way, refuses a nested null and takes a nested whole
    float as an integer (pydantic-core must not swap in the models' own validators).
    """
    validator = _one_pass_validator(models.PublishJobsRequest)
    assert validator is not None
    parsed = validator.validate_json(
        b'{"jobs": [{"topic": "t", "payload": 1.0, "delay": 2.0}]}', strict=True
    )
    assert isinstance(parsed, models.PublishJobsRequest)
    assert type(parsed.jobs[0].delay) is int and parsed.jobs[0].delay == 2
    assert type(parsed.jobs[0].payload) is float
    with pytest.raises(ValidationError):
        validator.validate_json(
            b'{"jobs": [{"topic": "t", "payload": 1, "deduplication_id": null}]}', strict=True
        )
    with pytest.raises(ValidationError):
        validator.validate_json(
            b'{"jobs": [{"topic": "t", "payload": 1, "delay": "2"}]}', strict=True
        )


class _Choice(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: int | str


def test_a_schema_the_one_pass_cannot_be_sure_of_takes_the_long_way() -> None:
    """A union (which the walks check against every member) gets no one-pass validator; its
    bodies are still parsed, by the walks.
    """
    assert _one_pass_validator(_Choice) is None
    assert parse_body(b'{"value": 2.0}', _Choice).value == 2
    with pytest.raises(ProblemError) as refused:
        parse_body(b'{"value": null}', _Choice)
    assert refused.value.errors[0].location == "body.value"
