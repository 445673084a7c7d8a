"""Request bodies (server/routes/_body.py): media types, depth, whole floats, nulls, non-finite
numbers, and the problems bodies get, as they got them from the walks this module once had.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

import generated.pydantic_models as models
from server.problems import ProblemError
from server.routes._body import may_hold_non_finite, parse_body
from server.validation import SchemaModel
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
def test_every_request_model_holds_the_null_rule(model: type[BaseModel]) -> None:
    """Every request body's model derives from server.validation's SchemaModel (as .ci/generate
    has datamodel-codegen write them), so each body is validated in one pass by pydantic.
    """
    assert issubclass(model, SchemaModel)


def _outcome(raw: bytes, model: type[BaseModel]) -> Any:
    """The body's model as JSON (``5`` an integer, ``5.0`` a float), or its problem."""
    try:
        return parse_body(raw, model).model_dump_json(exclude_unset=True)
    except ProblemError as error:
        issues = [(issue.location, issue.message) for issue in error.errors]
        return (error.status, error.code, error.detail, issues)


_NULL = "Input should not be null"
_NOT_INT = "Input should be a valid integer"


@pytest.mark.parametrize(
    ("model", "raw", "outcome"),
    [
        (models.AppendEntryRequest, b'{"body": 1}', '{"body":1}'),
        (models.AppendEntryRequest, b'{"body": null, "maxlen": 5.0}', '{"body":null,"maxlen":5}'),
        (
            models.AppendEntryRequest,
            b'{"body": 1.0, "maxlen": 5.5}',
            (422, "validation_failed", "1 field is invalid", [("body.maxlen", _NOT_INT)]),
        ),
        (
            models.AppendEntryRequest,
            b'{"body": 1, "maxlen": "5"}',
            (422, "validation_failed", "1 field is invalid", [("body.maxlen", _NOT_INT)]),
        ),
        (
            models.AppendEntryRequest,
            b'{"body": 1, "maxlen": null, "minid": null}',
            (
                422,
                "validation_failed",
                "2 fields are invalid",
                [("body.maxlen", _NULL), ("body.minid", _NULL)],
            ),
        ),
        (
            models.AppendEntryRequest,
            b'{"body": 1, "maxlen": null, "surprise": 1}',
            (422, "validation_failed", "1 field is invalid", [("body.maxlen", _NULL)]),
        ),
        (
            models.AppendEntryRequest,
            b'{"body": 1, "maxlen": 1e300}',
            (
                422,
                "validation_failed",
                "1 field is invalid",
                [("body.maxlen", "Input should be less than or equal to 1000000000")],
            ),
        ),
        (
            models.AppendEntryRequest,
            b'{"body": NaN, "maxlen": NaN}',
            (422, "validation_failed", "1 field is invalid", [("body.maxlen", _NOT_INT)]),
        ),
        (
            models.AppendEntryRequest,
            b'{"body": 1, "nomkstream": null}',
            (422, "validation_failed", "1 field is invalid", [("body.nomkstream", _NULL)]),
        ),
        (
            models.AppendEntryRequest,
            b'{"body": 1, "approximate": 1.0}',
            (
                422,
                "validation_failed",
                "1 field is invalid",
                [("body.approximate", "Input should be a valid boolean")],
            ),
        ),
        (
            models.AppendEntryRequest,
            b'{"body": 1,',
            (
                400,
                "malformed_request",
                "Invalid JSON: EOF while parsing a value at line 1 column 11",
                [],
            ),
        ),
        (
            models.AppendEntryRequest,
            b"[]",
            (
                422,
                "validation_failed",
                "1 field is invalid",
                [("body", "Input should be an object")],
            ),
        ),
        (
            models.AppendEntriesRequest,
            b'{"entries": [{"body": {"a": null, "b": 2.0}}], "maxlen": 0.0}',
            '{"entries":[{"body":{"a":null,"b":2.0}}],"maxlen":0}',
        ),
        (
            models.AppendEntriesRequest,
            b'{"entries": [{"body": 1}, null]}',
            (
                422,
                "validation_failed",
                "1 field is invalid",
                [("body.entries.1", "Input should be an object")],
            ),
        ),
        (
            models.AppendEntriesRequest,
            b'{"entries": [], "maxlen": null}',
            (422, "validation_failed", "1 field is invalid", [("body.maxlen", _NULL)]),
        ),
        (
            models.PublishJobsRequest,
            b'{"jobs": [{"topic": "t", "payload": 2.0, "delay": 3.0}]}',
            '{"jobs":[{"topic":"t","payload":2.0,"delay":3}]}',
        ),
        (
            models.PublishJobsRequest,
            b'{"jobs": [{"topic": "t", "payload": 1, "deduplication_id": null}]}',
            (
                422,
                "validation_failed",
                "1 field is invalid",
                [("body.jobs.0.deduplication_id", _NULL)],
            ),
        ),
        (
            models.PublishJobsRequest,
            b'{"jobs": [{"topic": null, "payload": 1, "delay": 1.5}]}',
            (422, "validation_failed", "1 field is invalid", [("body.jobs.0.topic", _NULL)]),
        ),
        (
            models.PublishMessagesRequest,
            b'{"messages": [{"url": "https://a.example.com/", "body": 1, "timeout": 5.0, "headers": {"x": "y"}}]}',
            '{"messages":[{"url":"https://a.example.com/","body":1,"headers":{"x":"y"},"timeout":5}]}',
        ),
        (
            models.PublishMessagesRequest,
            b'{"messages": [{"url": "https://a.example.com/", "body": 1, "headers": null}]}',
            (
                422,
                "validation_failed",
                "1 field is invalid",
                [("body.messages.0.headers", _NULL)],
            ),
        ),
        (models.QueueSettings, b'{"lease_seconds": 90.0}', '{"lease_seconds":90}'),
        (
            models.ReadGroupRequest,
            b'{"consumer": "c", "count": 10.0, "wait_ms": -0.0}',
            '{"consumer":"c","count":10,"wait_ms":0}',
        ),
    ],
)
def test_bodies_get_the_outcome_the_walks_gave(
    model: type[BaseModel], raw: bytes, outcome: Any
) -> None:
    """Each body gets the model, or the problem (status, code, detail and issues in order), that
    it got when this module validated the long way, walking the document once per rule.
    """
    assert _outcome(raw, model) == outcome


@pytest.mark.parametrize(
    ("model", "raw", "locations"),
    [
        (
            models.AppendEntryRequest,
            b'{"minid": null, "body": 1, "maxlen": null}',
            ["body.minid", "body.maxlen"],
        ),
        (
            models.PublishJobsRequest,
            b'{"jobs": [{"topic": "t", "payload": 1, "delay": null},'
            b' {"delay": null, "topic": null, "payload": null, "surprise": 1}]}',
            ["body.jobs.0.delay", "body.jobs.1.delay", "body.jobs.1.topic"],
        ),
        (
            models.AppendEntriesRequest,
            b'{"maxlen": 1.5, "entries": null, "minid": null}',
            ["body.entries", "body.minid"],
        ),
    ],
)
def test_nulls_come_back_alone_in_document_order(
    model: type[BaseModel], raw: bytes, locations: list[str]
) -> None:
    """A body with refused nulls gets those back, in the order the document has them, and
    nothing else; also those in an object whose other fields are invalid.
    """
    status, code, _, issues = _outcome(raw, model)
    assert (status, code) == (422, "validation_failed")
    assert issues == [(location, _NULL) for location in locations]


def test_whole_floats_are_integers_and_the_rest_is_read_as_json() -> None:
    """A body read again for its whole floats keeps the rest as it was: a float payload stays a
    float, and a date-time text is still a date-time (strict mode takes one only in JSON).
    """
    raw = (
        b'{"messages": [{"url": "https://a.example.com/", "body": 1.0, "retries": 2.0,'
        b' "not_before": "2030-01-01T00:00:00Z"}]}'
    )
    [message] = parse_body(raw, models.PublishMessagesRequest).messages
    assert type(message.retries) is int and message.retries == 2
    assert type(message.body) is float
    assert message.not_before is not None and message.not_before.year == 2030


def test_a_null_in_a_mapping_is_no_missing_field() -> None:
    """A null among a mapping's values (message headers) is refused by the value's type, as any
    other wrong value there; only a model's fields are refused as null.
    """
    raw = b'{"url": "https://a.example.com/", "body": 1, "headers": {"x": null}, "delay": 1.0}'
    assert _outcome(raw, models.PublishMessageRequest) == (
        422,
        "validation_failed",
        "1 field is invalid",
        [("body.headers.x", "Input should be a valid string")],
    )


class _Choice(SchemaModel):
    model_config = ConfigDict(extra="forbid")
    value: int | str


def test_a_union_takes_whole_floats_and_refuses_null_once() -> None:
    """A field whose type is a union takes a whole float as its integer member and refuses null
    as one issue, although pydantic refuses it once per member.
    """
    assert parse_body(b'{"value": 2.0}', _Choice).value == 2
    assert parse_body(b'{"value": "2.0"}', _Choice).value == "2.0"
    with pytest.raises(ProblemError) as refused:
        parse_body(b'{"value": null}', _Choice)
    assert [(issue.location, issue.message) for issue in refused.value.errors] == [
        ("body.value", _NULL)
    ]


def test_nulls_in_a_batch_over_the_limit_are_named_too() -> None:
    """Past 1000 items pydantic names only the batch's size; the refused nulls inside its items
    come back instead, as from any other body holding them.
    """
    jobs = [{"topic": "t", "payload": 1}] * 1000 + [{"topic": "t", "payload": 1, "delay": None}]
    status, code, detail, issues = _outcome(
        json.dumps({"jobs": jobs}).encode(), models.PublishJobsRequest
    )
    assert (status, code, detail) == (422, "validation_failed", "1 field is invalid")
    assert issues == [("body.jobs.1000.delay", _NULL)]
    too_long = _outcome(json.dumps({"jobs": jobs[:1] * 1001}).encode(), models.PublishJobsRequest)
    assert too_long[3] == [
        ("body.jobs", "List should have at most 1000 items after validation, not 1001")
    ]
