"""The Redis store's clients: standalone or cluster, their connection limits and timeouts."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import SSLConnection, parse_url
from redis.exceptions import TimeoutError as RedisTimeoutError

from .cluster import TurnTakingCluster
from .turns import Turns, TurnTakingRedis

__all__ = [
    "BLOCKED_READ_GRACE_SECONDS",
    "MAX_CONNECTIONS",
    "Client",
    "new_client",
    "require_redis_7",
    "within",
]

Client = aioredis.Redis | RedisCluster
_T = TypeVar("_T")

# Each client waits this long for a free connection (a turn) before failing, rather than failing at once; it
# outlasts the longest long poll (30 s), which holds a connection of the waiting pool throughout.
_POOL_WAIT_SECONDS = 35.0
MAX_CONNECTIONS = 100
# redis-py waits for a TCP connection as long as the OS does (minutes for an address that drops
# packets); a URL's own socket_connect_timeout still wins over this.
_CONNECT_TIMEOUT_SECONDS = 5.0
# A blocked read may outlast any socket timeout (redis-py's default is 5 s), so its connections have
# none; instead the read is abandoned this long after its BLOCK should have ended.
BLOCKED_READ_GRACE_SECONDS = 10.0


def new_client(
    redis_url: str, *, cluster_nodes: Sequence[tuple[str, int]] | None, read_timeout: bool = True
) -> Client:
    """A client of ``redis_url`` (with ``cluster_nodes``, of the cluster; the URL then gives only
    the nodes' connection options); without ``read_timeout`` its reads wait as long as Redis does.
    """
    if cluster_nodes is not None:
        return _new_cluster_client(redis_url, cluster_nodes, read_timeout=read_timeout)
    # The turns keep the pool within its size, so it never refuses for want of a connection.
    pool = aioredis.ConnectionPool.from_url(
        redis_url,
        decode_responses=True,
        max_connections=MAX_CONNECTIONS,
        socket_connect_timeout=_CONNECT_TIMEOUT_SECONDS,
    )
    if not read_timeout:
        # Set after from_url because the URL's own socket_timeout would win over an argument.
        pool.connection_kwargs["socket_timeout"] = None
    return TurnTakingRedis.owning(
        pool, turns=Turns(MAX_CONNECTIONS, wait_seconds=_POOL_WAIT_SECONDS)
    )


def _new_cluster_client(
    redis_url: str, nodes: Sequence[tuple[str, int]], *, read_timeout: bool
) -> TurnTakingCluster:
    # A cluster client keeps a connection list per node, not a pool to pass in; it takes the
    # same connection options, read from the one-node URL as redis-py's own from_url does.
    options: dict[str, Any] = {"socket_connect_timeout": _CONNECT_TIMEOUT_SECONDS}
    options.update(parse_url(redis_url))
    del options["host"], options["port"]
    if options.pop("connection_class", None) is SSLConnection:
        options["ssl"] = True
    if not read_timeout:
        options["socket_timeout"] = None
    return TurnTakingCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in nodes],
        decode_responses=True,
        max_connections=MAX_CONNECTIONS,
        wait_seconds=_POOL_WAIT_SECONDS,
        **options,
    )


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
