"""The default codec: odd values become strings, pydantic models their JSON; NaN is refused."""

from __future__ import annotations

import dataclasses
import math
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pydantic
import pytest

import sdk
from sdk._codec import encode_body


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


def test_encoding_failures_become_publish_errors_with_the_cause() -> None:
    """A body that cannot be encoded is a PublishError chained to the encoding error."""
    circular: list[Any] = []
    circular.append(circular)
    with pytest.raises(sdk.PublishError, match="could not publish to events: body could not") as e:
        encode_body(sdk.JsonCodec(), circular, target="events")
    assert isinstance(e.value.__cause__, ValueError)


class Bytes:
    """A custom codec returning something that is not a JSON value."""

    def encode(self, value: Any) -> Any:
        """bytes: not JSON."""
        return b"raw"

    def decode(self, value: Any) -> Any:
        """Unchanged."""
        return value


def test_a_custom_codecs_output_is_checked() -> None:
    """A custom codec that returns a non-JSON value fails the publish, not httpx later."""
    assert isinstance(Bytes(), sdk.Codec)
    with pytest.raises(sdk.PublishError) as raised:
        encode_body(Bytes(), "x", target="events")
    assert isinstance(raised.value.__cause__, TypeError)
