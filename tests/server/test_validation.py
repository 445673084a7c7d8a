"""The generated models' base class (server/validation.py): which nulls a request body may hold,
and where a null is refused.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import generated.pydantic_models as models
from server.validation import NULL_REFUSED, REQUEST_BODY, SchemaModel, refuses_null


def test_a_request_body_refuses_null_for_an_optional_typed_field() -> None:
    """Under the request-body context an explicit null in an optional field is an error of the
    object holding it; a field left out stays None, and an any-JSON field takes null.
    """
    with pytest.raises(ValidationError) as refused:
        models.PublishJobRequest.model_validate_json(
            b'{"topic": "t", "payload": 1, "deduplication_id": null}', context=REQUEST_BODY
        )
    [error] = refused.value.errors()
    assert (error["type"], error["loc"]) == (NULL_REFUSED, ())
    job = models.PublishJobRequest.model_validate_json(
        b'{"topic": "t", "payload": null}', context=REQUEST_BODY
    )
    assert job.payload is None and job.deduplication_id is None


def test_documents_are_read_with_their_nulls() -> None:
    """Without the context the models read what the service's documents hold, nulls included."""
    job = models.PublishJobRequest.model_validate_json(
        b'{"topic": "t", "payload": 1, "deduplication_id": null}'
    )
    assert job.deduplication_id is None


def test_a_required_field_whose_type_lists_null_takes_it() -> None:
    """``next_cursor`` is required and typed ``[string, "null"]``: null is its value."""
    page = models.StreamList.model_validate_json(
        b'{"streams": [], "next_cursor": null}', context=REQUEST_BODY
    )
    assert page.next_cursor is None


def test_every_generated_model_derives_from_the_base() -> None:
    """.ci/generate has datamodel-codegen derive each object schema's model from SchemaModel."""
    assert issubclass(models.AppendEntryRequest, SchemaModel)
    assert issubclass(models.Job, SchemaModel)


@pytest.mark.parametrize(
    ("model", "path", "refused"),
    [
        (models.AppendEntryRequest, ("maxlen",), True),
        (models.AppendEntryRequest, ("nomkstream",), True),
        (models.AppendEntryRequest, ("body",), False),
        (models.AppendEntryRequest, ("surprise",), False),
        (models.AppendEntriesRequest, ("entries",), True),
        (models.AppendEntriesRequest, ("entries", 0), False),
        (models.AppendEntriesRequest, ("entries", 0, "body"), False),
        (models.PublishJobsRequest, ("jobs", 3, "delay"), True),
        (models.PublishJobsRequest, ("jobs", 3, "topic"), True),
        (models.PublishMessageRequest, ("headers",), True),
        (models.PublishMessageRequest, ("headers", "x"), False),
        (models.CreateGroupRequest, ("max_deliveries",), True),
        (models.AckRequest, ("ids", 0), False),
        (models.StreamList, ("next_cursor",), False),
        (models.AppendEntryRequest, (), False),
    ],
)
def test_refuses_null_names_the_fields_of_models(
    model: type[SchemaModel], path: tuple[str | int, ...], refused: bool
) -> None:
    """A null is refused at a typed field of a model, through lists and optional models; not at
    an any-JSON field, an array item, a mapping's value, an unknown key or the body itself.
    """
    assert refuses_null(model, path) is refused
