"""What every part of the Redis store shares: its connections, life cycle and script runner."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Self
from urllib.parse import urlencode, urlsplit, urlunsplit

from redis.asyncio.client import Pipeline
from redis.commands.core import AsyncScript
from redis.exceptions import RedisClusterException, RedisError, ResponseError

from .. import InvalidStoreURL
from ..base import IdempotencyClaim, Store
from .arguments import number_text
from .cluster import CLUSTER_SCHEMES, parse_cluster_url
from .connection import (
    BLOCKED_READ_GRACE_SECONDS,
    Client,
    PassGate,
    connect,
    require_redis_7,
    within,
)
from .doorbell import Doorbells
from .errors import script_failure
from .indexes import backfill_listing_indexes
from .keys import DEFAULT_PREFIX, StoreKeys, split_prefix, valid_prefix
from .scripts import SCRIPTS

__all__ = ["RedisCore", "Write"]

_SCHEMES = frozenset({"redis", "rediss", "unix"})
# How long a lease long poll waits for a ring before it looks for jobs anyway (a delayed job coming
# due, a lease expiring, a doorbell reader that failed or was not started).
_LEASE_RECHECK_SECONDS = 0.05
# How long one read of a doorbell blocks; its reader ends after one that no lease waited for.
_DOORBELL_BLOCK_MS = 2000

# A write script's call: the idempotency record's key (or none) and the claim's arguments in.
Write = Callable[[list[str], list[str | int | float]], Awaitable[Any]]


class RedisCore(Store):
    """The connections, keys and script runner the Redis store's resources are built on."""

    def __init__(
        self,
        redis_url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        cluster_nodes: Sequence[tuple[str, int]] | None = None,
    ) -> None:
        """With ``cluster_nodes`` (the addresses the cluster client starts discovery from), the
        store runs on Redis Cluster and ``redis_url`` gives only the nodes' connection options.
        """
        if not valid_prefix(prefix):
            raise ValueError(f"a Redis key prefix must be non-empty and brace-free, not {prefix!r}")
        if cluster_nodes is not None and not cluster_nodes:
            raise ValueError("a Redis Cluster needs at least one node address")
        super().__init__()
        self._redis_url = redis_url
        self._prefix = prefix
        self._keys = StoreKeys(prefix)
        self._cluster_nodes = None if cluster_nodes is None else list(cluster_nodes)
        # Public: the store's only source of the time, which a test replaces to move every
        # timestamp the store writes or compares at once.
        self.clock: Callable[[], float] = time.time
        # Public too: how often a lease long poll looks again without being woken, which a test
        # lengthens to see a publish wake it.
        self.lease_recheck_seconds = _LEASE_RECHECK_SECONDS
        self._client: Client | None = None
        self._waiting_client: Client | None = None
        # What each command and pipeline of a client runs in (see connection.Connections); a
        # command before open() passes through to the RuntimeError of the client's property.
        self._gate: PassGate = contextlib.nullcontext
        self._waiting_gate: PassGate = contextlib.nullcontext
        self._scripts: dict[str, AsyncScript] = {}
        # The lease long polls that a write of this process wakes (see _notify).
        self._wakeups: set[asyncio.Future[None]] = set()
        self._doorbells = Doorbells(self._read_doorbell)

    @classmethod
    def from_url(cls, url: str) -> Self:
        """``redis://host:port/db?prefix=spool``: ``prefix`` is ours, the rest goes to redis-py.

        ``redis+cluster://host:port[,host:port...]/?prefix=spool`` (``rediss+cluster://`` for TLS)
        runs on Redis Cluster, which has only database 0.
        """
        parts = urlsplit(url)
        if parts.scheme in CLUSTER_SCHEMES:
            cluster = parse_cluster_url(url)
            return cls(cluster.node_url, prefix=cluster.prefix, cluster_nodes=cluster.nodes)
        if parts.scheme not in _SCHEMES:
            raise InvalidStoreURL(
                f"{url!r} is not a redis://, rediss://, unix://, redis+cluster:// or "
                "rediss+cluster:// URL"
            )
        prefix, rest = split_prefix(url, parts.query)
        return cls(urlunsplit(parts._replace(query=urlencode(rest))), prefix=prefix)

    @property
    def prefix(self) -> str:
        """The prefix every key of this store starts with."""
        return self._prefix

    @property
    def _redis(self) -> Client:
        if self._client is None:
            raise RuntimeError("the Redis store is not open (call open() first)")
        return self._client

    @property
    def _waiting_redis(self) -> Client:
        if self._waiting_client is None:
            raise RuntimeError("the Redis store is not open (call open() first)")
        return self._waiting_client

    def _wake_up(self) -> asyncio.Future[None]:
        """What a lease long poll waits on: resolved by ``_notify`` or its queue's doorbell."""
        wake = asyncio.get_running_loop().create_future()
        self._wakeups.add(wake)
        return wake

    def _notify(self) -> None:
        """Wake this process's lease long polls: a job may have become available."""
        wakeups, self._wakeups = self._wakeups, set()
        for wake in wakeups:
            if not wake.done():
                wake.set_result(None)

    async def _read_doorbell(self, doorbell: str, after: str) -> str | None:
        """XREAD BLOCK on the client of blocked reads: the id of the newest ring after ``after``."""

        async def read() -> Any:
            async with self._waiting_gate():
                return await self._waiting_redis.xread({doorbell: after}, block=_DOORBELL_BLOCK_MS)

        answer = await within(
            read(), seconds=_DOORBELL_BLOCK_MS / 1000 + BLOCKED_READ_GRACE_SECONDS
        )
        rings = [ring_id for _, entries in answer or [] for ring_id, _ in entries]
        return str(rings[-1]) if rings else None

    # Life cycle ----------------------------------------------------------------------------

    async def open(self) -> None:
        """Connect and load the scripts, so that a missing server fails here.

        Blocking reads (XREADGROUP BLOCK) get a pool of their own, so that many long polls can
        never take every connection the other commands need.
        """
        if self._client is not None:
            raise RuntimeError("the Redis store is already open")
        connections = connect(self._redis_url, cluster_nodes=self._cluster_nodes)
        waiting = connect(self._redis_url, cluster_nodes=self._cluster_nodes, blocked_reads=True)
        client, waiting_client = connections.client, waiting.client
        try:
            await require_redis_7(client)
            self._scripts = {name: client.register_script(text) for name, text in SCRIPTS.items()}
            await _load_missing(client, list(self._scripts.values()))
            await backfill_listing_indexes(client, self._keys)
        except BaseException:
            await client.aclose()
            await waiting_client.aclose()
            raise
        self._client, self._waiting_client = client, waiting_client
        self._gate, self._waiting_gate = connections.gate, waiting.gate

    async def close(self) -> None:
        """Stop the doorbell readers, then close both connection pools; closing twice is harmless."""
        await self._doorbells.close()
        clients = (self._client, self._waiting_client)
        self._client = self._waiting_client = None
        for client in clients:
            if client is not None:
                await client.aclose()

    async def ping(self) -> bool:
        """True when Redis answers PING (on a cluster, the node the client asks)."""
        try:
            async with self._gate():
                return bool(await self._redis.ping())
        except (RedisError, RedisClusterException, OSError, RuntimeError):
            return False

    # Scripts -------------------------------------------------------------------------------

    async def _run(
        self,
        name: str,
        keys: Sequence[str],
        args: Sequence[str | int | float],
        *,
        details: Mapping[str, str],
        client: Pipeline | None = None,
    ) -> Any:
        """Run a script (or, with a pipeline as ``client``, add it to the pipeline), turning its
        ``SPOOL <code>`` refusals into typed errors. redis-py's script loads itself again when
        Redis has forgotten it (SCRIPT FLUSH, a restart).
        """
        script = self._scripts[name]
        try:
            if client is not None:
                return await script(keys=keys, args=args, client=client)
            async with self._gate():
                return await script(keys=keys, args=args)
        except (ResponseError, UnicodeEncodeError) as exc:
            failure = script_failure(exc, details)
            if failure is exc:
                raise
            raise failure from exc

    async def _write_once(
        self,
        idempotency: IdempotencyClaim | None,
        record_base: str,
        write: Write,
        *,
        details: Mapping[str, str],
    ) -> tuple[bool, Any]:
        """Run a write script at most once per ``idempotency`` key: ``write`` gets the record's key
        (none for a plain write) and the request hash and ttl, and the script answers ``{replayed,
        result}`` (see ``lua/lib/idempotency.lua``). ``record_base`` names the write's slot.
        """
        if idempotency is None:
            replayed, result = await write([], ["", 0])
        else:
            record = f"{record_base}:idem:{idempotency.key}"
            if idempotency.replay_only:
                now = number_text(self.clock())
                replayed, result = await self._run(
                    "replay", [record], [now, idempotency.request_hash], details=details
                )
            else:
                claim_args: list[str | int | float] = [
                    idempotency.request_hash,
                    number_text(idempotency.ttl),
                ]
                replayed, result = await write([record], claim_args)
        return bool(replayed), result


async def _load_missing(client: Client, scripts: Sequence[AsyncScript]) -> None:
    """Load the scripts Redis does not hold yet (on a cluster, those some master lacks, onto
    every master). One SCRIPT EXISTS answers for all of them: a server that already holds them,
    as it does for every store opened after the first, costs one round trip instead of a SCRIPT
    LOAD of each script's whole text.
    """
    present = await client.script_exists(*(script.sha for script in scripts))
    for script, loaded in zip(scripts, present, strict=True):
        if not loaded:
            await client.script_load(script.script)
