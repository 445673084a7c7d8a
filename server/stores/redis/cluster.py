"""Redis Cluster: its store URL."""

from __future__ import annotations

import dataclasses
from urllib.parse import urlencode, urlsplit, urlunsplit

from .. import InvalidStoreURL
from .keys import split_prefix

__all__ = ["CLUSTER_SCHEMES", "ClusterURL", "parse_cluster_url"]

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
