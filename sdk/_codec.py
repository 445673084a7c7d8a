"""Turning bodies into the JSON values the API carries, and back for handlers."""

from __future__ import annotations

import json
from typing import Any, Protocol, runtime_checkable

from ._exceptions import PublishError, PublishTarget, describe_target

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


def encode_body(codec: Codec, body: Any, *, target: PublishTarget) -> Any:
    """What to put in a request document for `body`.

    A JsonCodec body goes in as it is: `encode_document` applies the codec's rules while encoding
    the document, so the body is encoded once. A custom codec's output goes in, to be encoded as
    plain JSON; if the codec raises, the publish is a PublishError for `target`.
    """
    if type(codec) is JsonCodec:
        return body
    return json_value(codec, body, target=target)


def json_value(codec: Codec, body: Any, *, target: PublishTarget) -> Any:
    """`codec.encode(body)` now, or a PublishError for `target` chained to the encoding error."""
    try:
        return codec.encode(body)
    except Exception as error:  # a codec is application code: any failure means "cannot encode"
        raise _encoding_error(target, error) from error


def encode_document(codec: Codec, document: Any, *, target: PublishTarget) -> bytes:
    """A request document carrying bodies from `encode_body`, as the UTF-8 JSON to send.

    The JsonCodec's rules (strings for dates and the like, pydantic models as their own JSON)
    apply to the bodies in it; a custom codec's output must already be JSON. Any failure, such as
    NaN, a circular reference or a lone surrogate, is a PublishError for `target`: everything
    else in the document has been checked by then.
    """
    encoder = _JSON_CODEC_ENCODER if type(codec) is JsonCodec else PLAIN_ENCODER
    try:
        return encoder.encode(document).encode()
    except Exception as error:  # the JsonCodec's rules run application code (model_dump, str)
        raise _encoding_error(target, error) from error


# httpx's own encoding of `json=` (compact, UTF-8, no NaN), made once rather than per call.
PLAIN_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_JSON_CODEC_ENCODER = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_json_default
)


def _encoding_error(target: PublishTarget, error: Exception) -> PublishError:
    return PublishError(
        describe_target(target), f"body could not be encoded: {type(error).__name__}: {error}"
    )
