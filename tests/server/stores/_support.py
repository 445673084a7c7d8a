"""Helpers shared by the store behaviour suite (no fixtures: those live in conftest.py)."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import pytest
import redis

from server.stores.base import DeliveryAttemptRecord, NewMessage, QueueSettings, Store
from server.stores.redis import RedisStore, core
from server.stores.redis.cluster import CLUSTER_SCHEMES, parse_cluster_url
from server.stores.redis.keys import split_prefix
from server.stores.redis.scripts import SCRIPTS

__all__ = [
    "ENTRY_ID",
    "FakeClock",
    "JOB_ID",
    "LEASE_ID",
    "MESSAGE_ID",
    "TRACEPARENT",
    "attempt",
    "connected_with",
    "entry_key",
    "make_queue",
    "new_message",
    "redis_client_of",
    "script_sha",
]

ENTRY_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
_ULID = "[0-9A-HJKMNP-TV-Z]{26}"
JOB_ID = re.compile(f"job_{_ULID}")
LEASE_ID = re.compile(f"lease_{_ULID}")
MESSAGE_ID = re.compile(f"msg_{_ULID}")
# A W3C traceparent, as a publisher sends it.
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


class FakeClock:
    """A clock that stands still until a test moves it; installed as a store's ``clock``."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forwards (or, with a negative number, back)."""
        self.now += seconds


def entry_key(entry_id: str) -> tuple[int, int]:
    """An entry id as a tuple that sorts the way ids do."""
    milliseconds, sequence = entry_id.split("-")
    return int(milliseconds), int(sequence)


async def make_queue(store: Store, name: str = "work", **settings: Any) -> str:
    """Create a queue with the given settings (openapi.yaml defaults otherwise); return its name."""
    await store.put_queue(name, QueueSettings(**settings))
    return name


def new_message(**fields: Any) -> NewMessage:
    """A message to https://example.com/hook with every required field; ``fields`` override."""
    base = NewMessage(
        url="https://example.com/hook",
        body=b'{"hello":"world"}',
        content_type="application/json",
        method="POST",
        headers={"X-Trace": "1"},
        not_before=0.0,
        retries=3,
        timeout=30,
    )
    return dataclasses.replace(base, **fields)


def attempt(number: int, **fields: Any) -> DeliveryAttemptRecord:
    """A delivery attempt record; ``fields`` override the defaults."""
    base = DeliveryAttemptRecord(attempt=number, started_at=1_800_000_000.0, duration_ms=12)
    return dataclasses.replace(base, **fields)


def script_sha(name: str) -> str:
    """The SHA1 Redis keeps the composed script ``name`` by, as EVALSHA names it."""
    return hashlib.sha1(SCRIPTS[name].encode()).hexdigest()


def redis_client_of(store_url: str) -> redis.Redis | redis.RedisCluster:
    """A redis-py client of the Redis (or Redis Cluster) a Redis store URL names, to see and
    change its keys beside the store's own connections.
    """
    parts = urlsplit(store_url)
    if parts.scheme in CLUSTER_SCHEMES:
        host, port = parse_cluster_url(store_url).nodes[0]
        return redis.RedisCluster(host=host, port=port, decode_responses=True)
    _, options = split_prefix(store_url, parts.query)
    return redis.Redis.from_url(
        urlunsplit(parts._replace(query=urlencode(options))), decode_responses=True
    )


class _Connected(Exception):
    """Ends ``open()`` once the store asked for its connections."""


async def connected_with(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, list[tuple[str, int]] | None]:
    """The Redis URL and cluster nodes ``store.open()`` asks its connections of, none made."""
    asked: list[tuple[str, list[tuple[str, int]] | None]] = []

    def recording(
        redis_url: str,
        *,
        cluster_nodes: Sequence[tuple[str, int]] | None,
        blocked_reads: bool = False,
    ) -> Any:
        asked.append((redis_url, None if cluster_nodes is None else list(cluster_nodes)))
        raise _Connected

    monkeypatch.setattr(core, "connect", recording)
    with pytest.raises(_Connected):
        await store.open()
    [first] = asked
    return first
