"""Which Redis store methods turn an outage into ``StoreUnavailableError``."""

from __future__ import annotations

import inspect

from server.stores.base import Store
from server.stores.redis import RedisStore


def test_every_hook_and_public_coroutine_of_every_resource_is_wrapped() -> None:
    """The store is composed of one class per resource; each one's hooks (what ``Store``'s public
    methods call after their checks) and public coroutines are wrapped, which covers every call
    a ``Store`` makes of its backend.
    """
    coroutines = {
        name
        for name in dir(RedisStore)
        if inspect.iscoroutinefunction(getattr(RedisStore, name))
        and getattr(RedisStore, name) is not getattr(Store, name, None)
        and (not name.startswith("_") or name in Store.__abstractmethods__)
    }
    hooks = {
        name
        for name in Store.__abstractmethods__
        if inspect.iscoroutinefunction(getattr(Store, name))
    }
    assert hooks <= coroutines
    unwrapped = {
        name for name in coroutines if not hasattr(getattr(RedisStore, name), "__wrapped__")
    }
    assert unwrapped == set()


def test_every_public_coroutine_of_store_calls_a_wrapped_hook() -> None:
    """Every public coroutine a ``Store`` has is the contract's own, which reaches Redis only
    through its hook of the same name, or one the Redis store wraps itself.
    """
    public = {
        name
        for name in dir(Store)
        if not name.startswith("_") and inspect.iscoroutinefunction(getattr(Store, name))
    }
    for name in public:
        own = getattr(RedisStore, name)
        assert hasattr(own, "__wrapped__") or hasattr(
            getattr(RedisStore, f"_{name}"), "__wrapped__"
        )
