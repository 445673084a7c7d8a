"""The Redis store's clients, standalone or cluster, as redis-py ships them: their connection
limits, timeouts, and the wait for a free connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import SSLConnection, parse_url
from redis.driver_info import DriverInfo
from redis.exceptions import TimeoutError as RedisTimeoutError

from .gate import Gate

__all__ = [
    "BLOCKED_READ_GRACE_SECONDS",
    "Client",
    "Connections",
    "PassGate",
    "connect",
    "require_redis_7",
    "within",
]

Client = aioredis.Redis | RedisCluster
# What each command and pipeline of a client runs in: ``async with gate():``.
PassGate = Callable[[], contextlib.AbstractAsyncContextManager[None]]
_T = TypeVar("_T")

# The defaults of options a URL may set itself (its own value wins). A command waits this long for a
# free connection rather than failing at once; it outlasts the longest long poll (30 s), which
# holds a connection of the blocked reads' pool throughout.
_POOL_WAIT_SECONDS = 35.0
_MAX_CONNECTIONS = 100
# redis-py waits for a TCP connection as long as the OS does (minutes for an address that drops
# packets).
_CONNECT_TIMEOUT_SECONDS = 5.0
_SOCKET_TIMEOUT_SECONDS = 5.0
# A blocked read may outlast any socket timeout, so its connections have none; instead the read is
# abandoned this long after its BLOCK should have ended.
BLOCKED_READ_GRACE_SECONDS = 10.0


@dataclasses.dataclass(frozen=True, slots=True)
class Connections:
    """A client, and the gate each of its commands and pipelines runs in: on a cluster it makes
    a burst wait for a free connection, as the standalone pool does by itself, and bounds a
    command's retries by the socket timeout, as the standalone client's take none.
    """

    client: Client
    gate: PassGate


def connect(
    redis_url: str, *, cluster_nodes: Sequence[tuple[str, int]] | None, blocked_reads: bool = False
) -> Connections:
    """A client of ``redis_url`` (with ``cluster_nodes``, of the cluster; the URL then gives only
    the nodes' connection options); for ``blocked_reads`` its reads wait as long as Redis does.
    """
    options: dict[str, Any] = {
        "max_connections": _MAX_CONNECTIONS,
        "timeout": _POOL_WAIT_SECONDS,
        "socket_connect_timeout": _CONNECT_TIMEOUT_SECONDS,
        "socket_timeout": _SOCKET_TIMEOUT_SECONDS,
    }
    # As redis-py's own from_url does: what the URL says wins over these defaults.
    options.update(parse_url(redis_url))
    if blocked_reads:
        options["socket_timeout"] = None
    options.update(decode_responses=True, driver_info=_driver_info())
    if cluster_nodes is None:
        pool = aioredis.BlockingConnectionPool(**options)
        return Connections(aioredis.Redis.from_pool(pool), contextlib.nullcontext)
    # A cluster client keeps connections per node, not a pool: the blocking pool's two options
    # become the gate's.
    size, wait = options.pop("max_connections"), options.pop("timeout")
    del options["host"], options["port"]
    if options.pop("connection_class", None) is SSLConnection:
        options["ssl"] = True
    client = RedisCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in cluster_nodes],
        max_connections=size,
        **options,
    )
    gate = Gate(size, wait_seconds=wait, deadline_seconds=options["socket_timeout"])
    return Connections(client, gate)


@functools.cache
def _driver_info() -> DriverInfo:
    # What every connection sends with CLIENT SETINFO. Without one given, redis-py builds it for
    # each new connection, reading its own version from the installed package's metadata: half
    # of a connection's setup. It cannot change while the process runs, and nothing here adds to it.
    return DriverInfo()


async def require_redis_7(client: Client) -> None:
    """Refuse older servers: before 7.0, XAUTOCLAIM does not report (or drop) trimmed entries.
    On a cluster every master is asked, as any of them may serve a stream.
    """
    if isinstance(client, RedisCluster):
        answers = await client.info("server", target_nodes=RedisCluster.PRIMARIES)
        versions = [str(info["redis_version"]) for info in answers.values()]
    else:
        versions = [str((await client.info("server"))["redis_version"])]
    for version in versions:
        if int(version.split(".")[0]) < 7:
            raise RuntimeError(
                f"the Redis store needs Redis 7.0 or later; this server is {version}"
            )


async def within(read: Awaitable[_T], *, seconds: float) -> _T:
    """Await a blocked read, failing as redis-py does when Redis stays silent past ``seconds``."""
    try:
        return await asyncio.wait_for(read, timeout=seconds)
    except TimeoutError as exc:
        raise RedisTimeoutError(f"Redis did not answer a blocked read within {seconds} s") from exc
