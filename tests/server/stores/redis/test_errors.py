"""Which Redis store methods turn an outage into ``StoreUnavailableError``."""

from __future__ import annotations

import inspect

from server.stores.base import Store
from server.stores.redis import RedisStore


def test_every_public_coroutine_of_every_resource_is_wrapped() -> None:
    """The store is composed of one class per resource; each one's public coroutines are wrapped,
    which covers every coroutine a ``Store`` has.
    """
    coroutines = {
        name
        for name in dir(RedisStore)
        if not name.startswith("_") and inspect.iscoroutinefunction(getattr(RedisStore, name))
    }
    abstract = {
        name
        for name in dir(Store)
        if not name.startswith("_") and inspect.iscoroutinefunction(getattr(Store, name))
    }
    assert abstract <= coroutines
    unwrapped = {
        name for name in coroutines if not hasattr(getattr(RedisStore, name), "__wrapped__")
    }
    assert unwrapped == set()
