"""JSON responses: timestamps as RFC 3339 and documents without their absent fields."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from starlette.responses import Response

from ..encoding import json_bytes

__all__ = ["json_response", "rfc3339", "without_none"]


def rfc3339(timestamp: float) -> str:
    """Seconds since the epoch as an RFC 3339 UTC time with milliseconds and a ``Z``."""
    moment = datetime.fromtimestamp(timestamp, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def without_none(document: Mapping[str, Any]) -> dict[str, Any]:
    """``document`` without the optional fields that are absent (the spec omits, never nulls)."""
    return {key: value for key, value in document.items() if value is not None}


def json_response(document: Any, status: int = 200) -> Response:
    """A compact JSON response."""
    return Response(json_bytes(document), status_code=status, media_type="application/json")
