"""What the SQLite store's modules share: the shape of a transaction's work and input checks."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import TypeVar

from ..base import JSON, StoreError

__all__ = ["PURGE_BATCH", "Work", "check_count", "dump_json"]

# Expired rows deleted per write, so the clean-up never makes one call slow.
PURGE_BATCH = 500

_T = TypeVar("_T")
# A transaction's work: it runs inside the transaction, given the connection and the store's time.
Work = Callable[[sqlite3.Connection, float], _T]


def dump_json(value: JSON, *, what: str) -> str:
    """``value`` as compact JSON text; ``validation_failed`` naming ``what`` if it is not JSON."""
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise StoreError("validation_failed", f"{what} is not a JSON value: {error}") from error


def check_count(count: int, *, name: str = "count") -> None:
    """Refuse (``validation_failed``) a ``count`` below 1, naming it ``name``."""
    if count < 1:
        raise StoreError("validation_failed", f"{name} must be at least 1: {count}")
