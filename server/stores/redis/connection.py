"""The Redis store's clients: standalone or cluster, their connection limits and timeouts."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

import hiredis
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import (
    AbstractConnection,
    Connection,
    SSLConnection,
    UnixDomainSocketConnection,
    parse_url,
)
from redis.driver_info import DriverInfo
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
# A blocked read may outlast any socket timeout, so its connections have none; instead the read is
# abandoned this long after its BLOCK should have ended.
BLOCKED_READ_GRACE_SECONDS = 10.0
# redis-py's default socket timeout; a URL's own socket_timeout wins over it. The clients' turns
# apply it (see turns.py), so their connections have no socket timeout of their own.
_SOCKET_TIMEOUT_SECONDS = 5.0


def new_client(
    redis_url: str, *, cluster_nodes: Sequence[tuple[str, int]] | None, read_timeout: bool = True
) -> Client:
    """A client of ``redis_url`` (with ``cluster_nodes``, of the cluster; the URL then gives only
    the nodes' connection options); without ``read_timeout`` its reads wait as long as Redis does.
    """
    if cluster_nodes is not None:
        return _new_cluster_client(redis_url, cluster_nodes, read_timeout=read_timeout)
    # The turns keep the pool within its size, so it never refuses for want of a connection.
    pool = _TurnTakingPool.from_url(
        redis_url,
        decode_responses=True,
        max_connections=MAX_CONNECTIONS,
        socket_connect_timeout=_CONNECT_TIMEOUT_SECONDS,
    )
    pool.connection_class = _PACKING_CLASSES.get(pool.connection_class, pool.connection_class)
    pool.connection_kwargs["driver_info"] = _driver_info()
    # Set after from_url because the URL's own socket_timeout would win over an argument.
    deadline = pool.connection_kwargs.pop("socket_timeout", _SOCKET_TIMEOUT_SECONDS)
    pool.connection_kwargs["socket_timeout"] = None
    turns = Turns(
        MAX_CONNECTIONS,
        wait_seconds=_POOL_WAIT_SECONDS,
        deadline_seconds=deadline if read_timeout else None,
    )
    return TurnTakingRedis.owning(pool, turns=turns)


class _TurnTakingPool(aioredis.ConnectionPool):
    """redis-py's pool without what a pool under turns does not need: the turns already bound
    how many connections are in use, and one task takes or gives back a connection without
    awaiting in between, so no lock; and Spool uses neither redis-py's OpenTelemetry metrics nor
    its re-authentication events, which the pool records and dispatches on every command (five
    awaits and a pool name built anew each time; with the lock, a fifth of what the Redis client
    spent on a single publish, cProfile).

    A connection taken is still connected if it is not, and one marked for reconnection is still
    closed when it comes back.
    """

    async def get_connection(self) -> AbstractConnection:  # type: ignore[override]
        """A connected connection, idle or new."""
        # redis-py leaves these unannotated.
        connection: AbstractConnection = self.get_available_connection()  # type: ignore[no-untyped-call]
        try:
            # What ensure_connection does with a connected connection while redis-py's
            # maintenance notifications are on ("auto" by default): nothing, after connecting it
            # again through its retry wrapper, a third of what a taken connection cost (py-spy).
            if not (connection.is_connected and self.maint_notifications_enabled()):  # type: ignore[no-untyped-call]
                await self.ensure_connection(connection)
        except BaseException:
            await self.release(connection)
            raise
        return connection

    async def release(self, connection: AbstractConnection) -> None:
        """Take ``connection`` back, closing it first if it is marked for reconnection."""
        self._in_use_connections.remove(connection)
        if connection.should_reconnect():  # type: ignore[no-untyped-call]
            await connection.disconnect()
        self._available_connections.append(connection)


class _HiredisPacking(AbstractConnection):
    """A connection whose commands are packed by hiredis's C packer, as redis-py's own
    synchronous client does when hiredis is installed; its asyncio client packs in Python,
    one ``encode`` call and one bytes join per argument (about a tenth of a single publish's
    time in the service, cProfile).
    """

    def pack_command(self, *args: Any) -> list[bytes]:
        """The RESP bytes of ``args``, exactly as redis-py packs them."""
        command = args[0]
        # redis-py sends a command named in words ("XINFO STREAM") as one argument a word.
        if (" " if isinstance(command, str) else b" ") in command:
            args = (*command.split(), *args[1:])
        try:
            return [hiredis.pack_command(args)]
        except TypeError:
            # What hiredis cannot pack (a bool, None), redis-py refuses with its own DataError.
            return super().pack_command(*args)


class _PackingConnection(_HiredisPacking, Connection):
    """A TCP connection packing with hiredis."""


class _PackingSSLConnection(_HiredisPacking, SSLConnection):
    """A TLS connection packing with hiredis."""


class _PackingUnixConnection(_HiredisPacking, UnixDomainSocketConnection):
    """A unix socket connection packing with hiredis."""


_PACKING_CLASSES: dict[type[AbstractConnection], type[AbstractConnection]] = {
    Connection: _PackingConnection,
    SSLConnection: _PackingSSLConnection,
    UnixDomainSocketConnection: _PackingUnixConnection,
}


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
    deadline = options.pop("socket_timeout", _SOCKET_TIMEOUT_SECONDS)
    return TurnTakingCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in nodes],
        decode_responses=True,
        max_connections=MAX_CONNECTIONS,
        wait_seconds=_POOL_WAIT_SECONDS,
        deadline_seconds=deadline if read_timeout else None,
        socket_timeout=None,
        driver_info=_driver_info(),
        **options,
    )


@functools.cache
def _driver_info() -> DriverInfo:
    # What every connection sends with CLIENT SETINFO. Without one given, redis-py builds it for
    # each new connection, reading its own version from the installed package's metadata: half
    # of a connection's setup (1.9 ms of CPU, 1.0 ms with this). It cannot change while the
    # process runs, and nothing here adds to it.
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
