"""Redis Cluster: its store URL, and a cluster client whose commands wait for a free connection."""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from redis.asyncio.cluster import ClusterPipeline, RedisCluster

from .. import InvalidStoreURL
from .keys import split_prefix
from .turns import Turns

__all__ = ["CLUSTER_SCHEMES", "ClusterURL", "TurnTakingCluster", "parse_cluster_url"]

# A cluster URL's scheme, and the scheme of its nodes: TCP or TLS (a cluster has no unix sockets).
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
_DEFAULT_PORT = 6379


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterURL:
    """What a ``redis+cluster://`` URL says: the nodes' options, the key prefix, the nodes."""

    node_url: str
    prefix: str
    nodes: list[tuple[str, int]]


def parse_cluster_url(url: str) -> ClusterURL:
    """``redis+cluster://host:port[,host:port...]/?prefix=spool`` (``rediss+cluster://`` for TLS);
    Redis Cluster has only database 0.
    """
    parts = urlsplit(url)
    credentials, _, hosts = parts.netloc.rpartition("@")
    nodes: list[tuple[str, int]] = []
    for address in hosts.split(","):
        try:
            node = urlsplit(f"//{address}")
            host, port = node.hostname, node.port or _DEFAULT_PORT
        except ValueError as exc:
            raise InvalidStoreURL(f"{url!r}: {address!r} is not a host:port") from exc
        if not host:
            raise InvalidStoreURL(f"{url!r}: {address!r} is not a host:port")
        nodes.append((host, port))
    if parts.path not in ("", "/", "/0"):
        raise InvalidStoreURL(f"{url!r}: Redis Cluster has only database 0")
    prefix, rest = split_prefix(url, parts.query)
    # The nodes' options (credentials, TLS, timeouts) are read from a one-node URL.
    first = hosts.split(",")[0]
    netloc = f"{credentials}@{first}" if credentials else first
    node_url = urlunsplit((CLUSTER_SCHEMES[parts.scheme], netloc, "", urlencode(rest), ""))
    return ClusterURL(node_url=node_url, prefix=prefix, nodes=nodes)


class TurnTakingCluster(RedisCluster):
    """A cluster client whose commands wait for a free connection (up to ``wait_seconds``), as the
    standalone client's do (see ``turns.py``), where redis-py's cluster client fails at once once
    a node has ``max_connections`` in use.

    A command or a pipeline holds one of ``max_connections`` turns while it runs, and uses at
    most one connection of each node it reaches, so no node ever needs more connections than that.
    What a command or pipeline runs on its own behalf (redis-py sends a pipeline's redirected
    commands again one by one) runs in the turn it already holds.
    """

    def __init__(
        self,
        *,
        max_connections: int,
        wait_seconds: float,
        deadline_seconds: float | None,
        **options: Any,
    ) -> None:
        super().__init__(max_connections=max_connections, **options)
        self.turns = Turns(
            max_connections, wait_seconds=wait_seconds, deadline_seconds=deadline_seconds
        )

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command in a turn."""
        async with self.turns.one():
            return await super().execute_command(*args, **kwargs)

    def pipeline(
        self, transaction: Any | None = None, shard_hint: Any | None = None
    ) -> ClusterPipeline:
        """A pipeline that runs in one turn."""
        if shard_hint:
            return super().pipeline(transaction, shard_hint)
        # redis-py's typing protocol declares an _event_dispatcher that ClusterPipeline never has.
        return _TurnTakingPipeline(self, transaction)  # type: ignore[abstract]


class _TurnTakingPipeline(ClusterPipeline):
    """A cluster pipeline (or MULTI/EXEC) that runs in one turn of its client."""

    def __init__(self, client: TurnTakingCluster, transaction: Any) -> None:
        super().__init__(client, transaction)
        self.turns = client.turns

    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> Any:
        """Run the pipeline in a turn."""
        async with self.turns.one():
            return await super().execute(raise_on_error, allow_redirections)
