"""The default codec: odd values become strings, pydantic models their JSON; NaN is refused."""

from __future__ import annotations

import dataclasses
import json
import math
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pydantic
import pytest

import sdk
from sdk._codec import encode_body, encode_document


@dataclasses.dataclass
class Order:
    """A dataclass with no JSON form of its own."""

    id: int


class Invoice(pydantic.BaseModel):
    """A pydantic model: encoded through its own JSON."""

    order: int
    issued: date
    amount: Decimal


def test_plain_json_values_pass_through() -> None:
    """dicts, lists, strings, numbers, booleans and None are unchanged."""
    value = {"a": [1, 2.5, "x", True, None], "b": {"c": False}}
    assert sdk.JsonCodec().encode(value) == value


def test_unusual_values_become_strings() -> None:
    """Dates, UUIDs, decimals and dataclasses become str(value) instead of raising."""
    when = datetime(2026, 11, 29, 12, tzinfo=UTC)
    key = uuid.UUID("12345678-1234-5678-1234-567812345678")
    encoded = sdk.JsonCodec().encode(
        {"when": when, "key": key, "amount": Decimal("1.10"), "order": Order(7)}
    )
    assert encoded == {
        "when": str(when),
        "key": str(key),
        "amount": "1.10",
        "order": "Order(id=7)",
    }


def test_pydantic_models_use_their_own_json() -> None:
    """A model, top-level or nested, is encoded as model_dump(mode='json')."""
    invoice = Invoice(order=7, issued=date(2026, 11, 29), amount=Decimal("9.50"))
    expected = {"order": 7, "issued": "2026-11-29", "amount": "9.50"}
    assert sdk.JsonCodec().encode(invoice) == expected
    assert sdk.JsonCodec().encode({"invoices": [invoice]}) == {"invoices": [expected]}


@pytest.mark.parametrize("value", [math.nan, math.inf, {"x": -math.inf}])
def test_values_json_cannot_carry_raise(value: Any) -> None:
    """NaN and infinities are refused rather than sent as invalid JSON."""
    with pytest.raises(ValueError):
        sdk.JsonCodec().encode(value)


def test_decode_is_the_identity() -> None:
    """Handlers get the delivered JSON value as it is."""
    value = {"a": 1}
    assert sdk.JsonCodec().decode(value) is value


def _encoded(codec: sdk.Codec, body: Any, target: str = "events") -> Any:
    """`body` as the JSON value the service receives inside a request document."""
    document = {"body": encode_body(codec, body, target=target)}
    return json.loads(encode_document(codec, document, target=target))["body"]


def test_a_request_carries_what_the_codec_encodes() -> None:
    """Encoding the document once gives the JSON value `encode` gives, rich values included."""
    invoice = Invoice(order=7, issued=date(2026, 11, 29), amount=Decimal("9.50"))
    body = {"when": datetime(2026, 11, 29, 12, tzinfo=UTC), "invoice": invoice, "n": (1, 2)}
    assert _encoded(sdk.JsonCodec(), body) == sdk.JsonCodec().encode(body)


def test_a_json_codec_body_is_encoded_once_with_its_request() -> None:
    """The default codec leaves the body to the request's single encoding: no copy is made."""
    body = {"a": [1, 2]}
    assert encode_body(sdk.JsonCodec(), body, target="events") is body


def test_the_document_is_compact_utf8_like_httpx_json() -> None:
    """Non-ASCII text is sent as UTF-8, without spaces, as httpx's own `json=` sends it."""
    content = encode_document(sdk.JsonCodec(), {"body": {"city": "Zürich"}}, target="events")
    assert content == '{"body":{"city":"Zürich"}}'.encode()


@pytest.mark.parametrize(
    "body",
    [
        pytest.param([math.nan], id="nan"),
        pytest.param({"x": "\ud800"}, id="lone-surrogate"),
        pytest.param("circular", id="circular"),
    ],
)
def test_encoding_failures_become_publish_errors_with_the_cause(body: Any) -> None:
    """A body that cannot be encoded is a PublishError chained to the encoding error."""
    if body == "circular":
        body = []
        body.append(body)
    with pytest.raises(sdk.PublishError, match="could not publish to events: body could not") as e:
        _encoded(sdk.JsonCodec(), body)
    assert isinstance(e.value.__cause__, ValueError)


def test_a_failing_target_is_described_only_on_failure() -> None:
    """A target given as a function is called only to name a failure."""
    described: list[str] = []

    def target() -> str:
        described.append("x")
        return "https://example.com/hook"

    encode_document(sdk.JsonCodec(), {"body": {"ok": 1}}, target=target)
    assert described == []
    with pytest.raises(sdk.PublishError, match="could not publish to https://example.com/hook"):
        encode_document(sdk.JsonCodec(), {"body": [math.inf]}, target=target)
    assert described == ["x"]


class Bytes:
    """A custom codec returning something that is not a JSON value."""

    def encode(self, value: Any) -> Any:
        """bytes: not JSON."""
        return b"raw"

    def decode(self, value: Any) -> Any:
        """Unchanged."""
        return value


class Failing:
    """A custom codec that cannot encode anything."""

    def encode(self, value: Any) -> Any:
        """Raises."""
        raise RuntimeError("no")

    def decode(self, value: Any) -> Any:
        """Unchanged."""
        return value


def test_a_custom_codecs_output_is_checked() -> None:
    """A custom codec that returns a non-JSON value fails the publish, not httpx later; the
    default codec's rules (strings for odd values) do not cover it.
    """
    assert isinstance(Bytes(), sdk.Codec)
    with pytest.raises(sdk.PublishError) as raised:
        _encoded(Bytes(), "x")
    assert isinstance(raised.value.__cause__, TypeError)


def test_a_custom_codec_that_raises_fails_at_once() -> None:
    """The custom codec runs when the body is given, so its failure names the target."""
    with pytest.raises(sdk.PublishError, match="could not publish to jobs/email") as raised:
        encode_body(Failing(), {"a": 1}, target="jobs/email")
    assert isinstance(raised.value.__cause__, RuntimeError)
