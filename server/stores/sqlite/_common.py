"""What the SQLite store's modules share: the shape of a transaction's work."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

__all__ = ["PURGE_BATCH", "Work"]

# Expired rows deleted per write, so the clean-up never makes one call slow.
PURGE_BATCH = 500

_T = TypeVar("_T")
# A transaction's work: it runs inside the transaction, given the connection and the store's time.
Work = Callable[[sqlite3.Connection, float], _T]
