"""How the Redis store writes values into script arguments, and the checks it makes first."""

from __future__ import annotations

import json

from ..base import JSON, StoreError

__all__ = ["check_at_least_one", "dump_json", "number_text", "optional_argument"]


def number_text(value: float) -> str:
    """A float as text that reads back as exactly the same float (in Python and in Lua)."""
    return repr(float(value))


def dump_json(value: JSON, *, what: str) -> str:
    """``value`` as compact JSON text; ``validation_failed`` naming ``what`` when it is not JSON."""
    try:
        # ASCII keeps lone surrogates (legal in JSON text) from failing the UTF-8 encoding.
        return json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreError("validation_failed", f"{what} is not JSON: {exc}") from exc


def optional_argument(value: str | int | None) -> str:
    """A script argument that tells None (``''``) from any value, the empty string included."""
    return "" if value is None else f"={value}"


def check_at_least_one(value: int, *, name: str) -> None:
    """Refuse a count, limit or length below 1."""
    if value < 1:
        raise StoreError("validation_failed", f"{name} must be at least 1: {value}")
