"""How the Redis store writes values into script arguments."""

from __future__ import annotations

__all__ = ["number_text", "optional_argument"]


def number_text(value: float) -> str:
    """A float as text that reads back as exactly the same float (in Python and in Lua)."""
    return repr(float(value))


def optional_argument(value: str | int | None) -> str:
    """A script argument that tells None (``''``) from any value, the empty string included."""
    return "" if value is None else f"={value}"
