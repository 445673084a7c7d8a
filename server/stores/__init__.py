"""Stores, chosen by URL scheme: ``sqlite:///path/to/file.db`` (embedded default), ``redis://…``
or, on Redis Cluster, ``redis+cluster://host:port,host:port/``.

Backends are imported only when their scheme is used, so the SQLite store needs nothing beyond the
standard library.
"""

from __future__ import annotations

import importlib
from urllib.parse import urlsplit

from .base import Store

__all__ = ["BACKENDS", "InvalidStoreURL", "store_from_url"]

BACKENDS: dict[str, str] = {
    "sqlite": "server.stores.sqlite:SQLiteStore",
    "redis": "server.stores.redis:RedisStore",
    "rediss": "server.stores.redis:RedisStore",
    "unix": "server.stores.redis:RedisStore",
    "redis+cluster": "server.stores.redis:RedisStore",
    "rediss+cluster": "server.stores.redis:RedisStore",
}


class InvalidStoreURL(ValueError):
    """The store URL has a scheme no backend serves."""


def store_from_url(url: str) -> Store:
    """Build (but do not open) the store a URL names."""
    scheme = urlsplit(url).scheme
    target = BACKENDS.get(scheme)
    if target is None:
        known = ", ".join(f"{name}://" for name in sorted(BACKENDS))
        raise InvalidStoreURL(f"unsupported store URL {url!r}: expected one of {known}")
    module_name, class_name = target.split(":")
    store_class = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(store_class, type) and issubclass(store_class, Store)):
        raise TypeError(f"{target} is not a Store")
    return store_class.from_url(url)
