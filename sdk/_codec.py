"""Turning bodies into the JSON values the API carries, and back for handlers."""

from __future__ import annotations

import json
from typing import Any, Protocol, runtime_checkable

from ._exceptions import PublishError

__all__ = ["Codec", "JsonCodec"]


@runtime_checkable
class Codec(Protocol):
    """Encodes bodies to JSON values (dict, list, str, number, bool, None) and decodes them back."""

    def encode(self, value: Any) -> Any:
        """The JSON value to send for `value`; raising makes the publish a PublishError."""
        ...

    def decode(self, value: Any) -> Any:
        """What a handler receives for the JSON value `value` that was delivered."""
        ...


class JsonCodec:
    """The default codec: `json.dumps(body, default=str)`, pydantic models as their own JSON.

    Dates, UUIDs, decimals and dataclasses become strings instead of raising; NaN and infinities,
    which JSON cannot carry, raise. Handlers receive the JSON value unchanged.
    """

    def encode(self, value: Any) -> Any:
        """`value` as a JSON value."""
        return json.loads(json.dumps(value, default=_json_default, allow_nan=False))

    def decode(self, value: Any) -> Any:
        """`value` unchanged."""
        return value

    def __repr__(self) -> str:
        return "JsonCodec()"


def _json_default(value: Any) -> Any:
    # Duck-typed so pydantic is imported only by applications that already use it.
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump) and not isinstance(value, type):
        return model_dump(mode="json")
    return str(value)


def encode_body(codec: Codec, body: Any, *, target: str) -> Any:
    """`codec.encode(body)`, or a PublishError for `target` chained to the encoding error."""
    try:
        encoded = codec.encode(body)
        if type(codec) is not JsonCodec:
            # A custom codec's result is checked here; otherwise it would fail later, inside httpx.
            json.dumps(encoded, allow_nan=False)
    except Exception as error:  # a codec is application code: any failure means "cannot encode"
        raise PublishError(
            target, f"body could not be encoded: {type(error).__name__}: {error}"
        ) from error
    return encoded
