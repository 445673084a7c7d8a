"""Opening a store for a test: the one ``opened``."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TypeVar

from server.stores.base import Store

__all__ = ["opened"]

StoreT = TypeVar("StoreT", bound=Store)


@contextlib.asynccontextmanager
async def opened(store: StoreT) -> AsyncIterator[StoreT]:
    """``store``, opened, and closed afterwards whatever happens."""
    await store.open()
    try:
        yield store
    finally:
        await store.close()
