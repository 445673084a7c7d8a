"""The Redis store: real Redis Streams for streams, Lua-scripted structures for everything else.

URL: ``redis://host:port/db?prefix=spool`` (also ``rediss://`` and ``unix://``). ``prefix`` (default
``spool``, no braces) is the store's own parameter and is taken out; every other parameter goes to
redis-py. Several service processes may share one Redis: every change is one command or one Lua
script (``EVALSHA``), so it is atomic and safe against the other processes. A refused, lost or
timed-out connection raises ``StoreUnavailableError`` from any method; connecting gives up after
5 s unless the URL sets ``socket_connect_timeout``.

On Redis Cluster: ``redis+cluster://host:port[,host:port...]/?prefix=spool`` (``rediss+cluster://``
for TLS; database 0 only; the nodes listed are where discovery starts). The store then uses
redis-py's cluster client, and nothing else changes: every script and every MULTI touches keys of
one hash tag only (below), so each runs whole on the master of that slot, atomic as on one Redis.
Only these differ: listing queues runs their scripts side by side (a cluster pipeline refuses
EVALSHA); each client's commands wait for one of ``_MAX_CONNECTIONS`` turns (``_Turns``), since a
cluster node refuses a connection past its limit rather than waiting for one; a master that is
down, or a slot still moving once redis-py's retries end, raises ``StoreUnavailableError`` for the
keys it holds only.

Key scheme (``<p>`` is the prefix). A hash tag (``{…}``) puts everything one script touches in one
Redis Cluster slot: one stream, one queue, all messages, all URL groups. So streams and queues
spread over a cluster's masters, while all messages (their due index, dead letters, deduplication
keys and sequence) share one slot, and so one master; a quota counter and the queue name set are
keys of their own, each changed by one command or single-key script.

=================================================  ============================================
``<p>:s:{<stream>}``                               the stream itself (a Redis stream)
``<p>:s:{<stream>}:groups``                        hash: group -> ``max_deliveries`` (when set)
``<p>:s:{<stream>}.dead``                          the stream ``<stream>.dead`` (its dead letters)
``<p>:q:{<queue>}:meta``                           hash: settings, ``created_at``, job ``seq``
``<p>:q:{<queue>}:job:<job_id>``                   hash: one job
``<p>:q:{<queue>}:all``                            zset: every job, by publish sequence
``<p>:q:{<queue>}:avail``                          zset: ready jobs that are due, by sequence
``<p>:q:{<queue>}:delayed``                        zset: ready jobs not yet due, by ``available_at``
``<p>:q:{<queue>}:leased``                         zset: leased jobs, by lease expiry
``<p>:q:{<queue>}:done`` / ``:dead``               zsets: finished jobs, by when they finished
``<p>:q:{<queue>}:dedup`` / ``:dedup_exp``         hash ``deduplication_id -> job_id``, zset expiry
``<p>:queues``                                     set: queue names, for listing
``<p>:m:{messages}:msg:<message_id>``              hash: one message and its attempts
``<p>:m:{messages}:due``                           zset: scheduled/delivering messages, by next try
``<p>:m:{messages}:dead``                          zset: dead letters, by when they failed
``<p>:m:{messages}:dedup`` / ``:dedup_exp``        hash ``dedup_key -> created_at message_id``, zset
``<p>:m:{messages}:seq``                           counter: publish and failure order
``<p>:u:{url_groups}:groups``                      hash: name -> ``<updated_at> <endpoints JSON>``
``<p>:u:{url_groups}:created``                     hash: name -> creation time
``<p>:s:{<stream>}:idem:<key>``                    hash: an idempotent append's record (TTL)
``<p>:q:{<queue>}:idem:<key>``                     hash: an idempotent job publish's record (TTL)
``<p>:m:{messages}:idem:<key>``                    hash: an idempotent message publish's record
``<p>:quota:<token_id>``                           string: a token's message count
``<p>:rate:<key>``                                 hash: a rate-limit bucket (``tokens``, ``at``)
=================================================  ============================================

An idempotency record lives in the slot of what its write changes, so the write's own script
reads it and, for a new write, keeps the write's result in it (``lua/lib/idempotency.lua``): one
``EVALSHA`` either replays or writes and records. It holds ``request_hash``, ``expires_at`` (by the
store's clock, which decides) and ``result``, the script's answer as JSON; Redis drops it by its TTL.
Records outlive the stream or queue they were written to, as a repeat must not publish again.

Scripts derive job and message hash keys from ids they read; those keys carry the same hash tag as
the script's declared keys, so they are in the same slot. Listing queues crosses slots, so the
``<p>:queues`` set is updated around the (single-slot) queue scripts: a queue is listed after it is
created and unlisted after it is deleted (and listed again if a concurrent put recreated it);
listing skips names whose queue is gone.

Streams: entries are XADDed with ``*`` (Redis's ids, strictly increasing even when the clock steps
back) and hold one field, ``b``, the body's JSON text. An append is one script: XADD each body, then
XTRIM; ``trimmed`` is the length before plus the entries added minus the length after. ``MAXLEN ~
n`` keeps at least ``n`` entries and trims whole macro nodes only (``stream-node-max-entries``, 100
by default), so a stream of fewer entries than that is never trimmed approximately; ``MAXLEN = n``
keeps exactly ``n``. A claim reads a window of ``count``
pending entries with XPENDING, then lets XAUTOCLAIM act on exactly the entries of that window it
will claim or drop (XAUTOCLAIM alone would look at up to ten times ``count``); Redis 7 lists the
pending ids whose entries were trimmed away, which become ``deleted_ids``. Idle times are Redis's.
A group's ``max_deliveries`` lives beside the stream (a consumer group holds no settings of its own);
the claim script XACKs an entry that used them up and XADDs its dead letter to the stream
``<stream>.dead``, whose key (``<p>:s:{<stream>}.dead``) carries its stream's hash tag, so the
claim stays in one slot on a cluster too.

Rate limits: a bucket is refilled and taken from in one script by Redis's own ``TIME``, so every
process sharing the Redis shares the bucket whatever its own clock says; the key expires once the
bucket would be full again, which is the same as absent.

Queues: a job's ``max_attempts`` is its queue's current setting. Scripts first *settle* the queue to
``now``: due delayed jobs become available, ended leases become available (or dead without attempts
left), and finished jobs past their retention and deduplication ids past their window go (a
thousand of each per call). Reads compute a job's state at ``now`` from its hash, settled or not.

Messages: a message hash holds its fields, its attempts (``attempt:<n>``) and, while it is
delivering, its ``lease_id``. A hash written before the store counted retry budgets has no
``retries_used``; it counts as ``attempt_count % (retries + 1)`` (the delivery engine's earlier
rule) until its next recorded attempt writes the field.

Time: the store reads the time only through ``self._clock`` (``time.time``; tests replace it) and
passes ``now`` into every script, so leases, delays, deduplication windows and idempotency records
follow that clock rather than Redis's; long polls wait on the monotonic clock. Settling is not
undone when the clock steps back, except that a job made available too early is not leased but
returned to the delayed set. Numbers a script computes are written with ``%.17g``, which
round-trips a double exactly (Redis would round a Lua number to 14 digits).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import dataclasses
import functools
import importlib.resources
import inspect
import json
import math
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any, Literal, ParamSpec, TypeVar, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.asyncio.connection import SSLConnection, parse_url
from redis.commands.core import AsyncScript
from redis.exceptions import (
    ClusterDownError,
    ConnectionError as RedisConnectionError,
    RedisClusterException,
    RedisError,
    ResponseError,
    SlotNotCoveredError,
    TimeoutError as RedisTimeoutError,
    TryAgainError,
)

from ..ids import new_id
from . import InvalidStoreURL
from .base import (
    DEAD_LETTER_SUFFIX,
    JSON,
    AppendResult,
    ClaimResult,
    ConflictError,
    DeadLetterRecord,
    DeliveredEntry,
    DeliveryAttemptRecord,
    Entry,
    GroupInfo,
    IdempotencyClaim,
    JobReceipt,
    JobRecord,
    JobState,
    LeasedJob,
    MessageLease,
    MessageReceipt,
    MessageRecord,
    MessageState,
    NewJob,
    NewMessage,
    NotFoundError,
    PendingEntry,
    QueueRecord,
    QueueSettings,
    QueueStats,
    Store,
    StoreError,
    StoreUnavailableError,
    StreamInfo,
    Trim,
    TrimResult,
    UrlEndpoint,
    UrlGroupRecord,
    check_max_deliveries,
    check_queue_settings,
    check_token_bucket,
    dead_letter_stream,
    entry_id_parts,
)

__all__ = ["DEFAULT_PREFIX", "RedisStore"]

DEFAULT_PREFIX = "spool"
_SCHEMES = frozenset({"redis", "rediss", "unix"})
# A cluster URL's scheme, and the scheme of its nodes: TCP or TLS (a cluster has no unix sockets).
_CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
_DEFAULT_PORT = 6379

_Client = aioredis.Redis | RedisCluster
_T = TypeVar("_T")
_P = ParamSpec("_P")
_Class = TypeVar("_Class", bound=type)

# A lease long-poll looks again this often (sooner when this process publishes): Redis has no
# blocking pop for a scored set of jobs, and other processes cannot wake this one.
_LEASE_POLL_SECONDS = 0.05
_FIRST_LEASE_BATCH = 16
# Each pool waits this long for a free connection before failing, rather than failing at once; it
# outlasts the longest long poll (30 s), which holds a connection of the waiting pool throughout.
_POOL_WAIT_SECONDS = 35.0
_MAX_CONNECTIONS = 100
# How many queues' scripts listing them runs at once on a cluster, well within a node's connections.
_CLUSTER_LISTING_CONCURRENCY = 16
# redis-py waits for a TCP connection as long as the OS does (minutes for an address that drops
# packets); a URL's own socket_connect_timeout still wins over this.
_CONNECT_TIMEOUT_SECONDS = 5.0
# A blocked read may outlast any socket timeout (redis-py's default is 5 s), so its connections have
# none; instead the read is abandoned this long after its BLOCK should have ended.
_BLOCKED_READ_GRACE_SECONDS = 10.0

_NOT_FOUND_CODES = frozenset(
    {
        "stream_not_found",
        "group_not_found",
        "queue_not_found",
        "job_not_found",
        "message_not_found",
        "url_group_not_found",
        "dead_letter_not_found",
        "idempotency_record_not_found",
    }
)
_CONFLICT_CODES = frozenset({"conflict", "group_exists", "lease_expired", "invalid_state"})
_SCRIPT_ERROR_PREFIX = "SPOOL "

# Scripts ---------------------------------------------------------------------------------------
#
# Each script is a file in lua/ (its KEYS and ARGV described at its top), whose first line names
# the libraries of lua/lib/ it is run with, in order: ``-- uses: common, idempotency, trim``.
# Redis runs the libraries' text followed by the script's as one script.

_LUA = importlib.resources.files(__package__).joinpath("lua")
_USES = re.compile(r"\A-- uses: ([\w, ]+)\n")


def _script_text(name: str) -> str:
    text = _LUA.joinpath(f"{name}.lua").read_text(encoding="utf-8")
    uses = _USES.match(text)
    if uses is None:
        raise RuntimeError(f"lua/{name}.lua does not start with its '-- uses: ...' line")
    libraries = [library.strip() for library in uses.group(1).split(",")]
    return (
        "".join(
            _LUA.joinpath("lib", f"{library}.lua").read_text(encoding="utf-8")
            for library in libraries
        )
        + text
    )


_SCRIPTS: dict[str, str] = {
    entry.name.removesuffix(".lua"): _script_text(entry.name.removesuffix(".lua"))
    for entry in sorted(_LUA.iterdir(), key=lambda entry: entry.name)
    if entry.name.endswith(".lua")
}


# Keys ------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class _QueueKeys:
    """The keys of one queue, all in the slot of the hash tag ``{<queue>}``."""

    base: str

    @property
    def meta(self) -> str:
        return f"{self.base}:meta"

    @property
    def job_prefix(self) -> str:
        return f"{self.base}:job:"

    def declared(self) -> list[str]:
        """The keys every queue script declares, in the order ``_LUA_QUEUE`` unpacks them."""
        names = ("meta", "all", "avail", "delayed", "leased", "dead", "done", "dedup", "dedup_exp")
        return [f"{self.base}:{name}" for name in names]


@dataclasses.dataclass(frozen=True, slots=True)
class _MessageKeys:
    """The keys of every message, all in the slot of the hash tag ``{messages}``."""

    base: str

    @property
    def message_prefix(self) -> str:
        return f"{self.base}:msg:"

    def declared(self) -> list[str]:
        """The keys every message script declares, in the order ``_LUA_MESSAGES`` unpacks them."""
        return [f"{self.base}:{name}" for name in ("due", "dead", "dedup", "dedup_exp", "seq")]


# Conversions -----------------------------------------------------------------------------------


def _number_text(value: float) -> str:
    """A float as text that reads back as exactly the same float (in Python and in Lua)."""
    return repr(float(value))


def _dump_json(value: JSON, *, what: str) -> str:
    try:
        # ASCII keeps lone surrogates (legal in JSON text) from failing the UTF-8 encoding.
        return json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreError("validation_failed", f"{what} is not JSON: {exc}") from exc


def _pairs(flat: Sequence[Any]) -> dict[str, str]:
    return {str(flat[index]): str(flat[index + 1]) for index in range(0, len(flat), 2)}


def _optional_float(fields: Mapping[str, str], name: str) -> float | None:
    value = fields.get(name)
    return None if value is None else float(value)


def _optional_int(fields: Mapping[str, str], name: str) -> int | None:
    value = fields.get(name)
    return None if value is None else int(value)


def _store_error(code: str, detail: str) -> StoreError:
    if code in _NOT_FOUND_CODES:
        return NotFoundError(code, detail)
    if code in _CONFLICT_CODES:
        return ConflictError(code, detail)
    return StoreError(code, detail)


def _job_state(fields: Mapping[str, str], now: float) -> JobState:
    """The state a job has at ``now``, whether or not a script has settled the queue since."""
    state = fields["state"]
    if state == "ready":
        return "delayed" if float(fields["available_at"]) > now else "ready"
    if state == "leased":
        if float(fields["lease_expires_at"]) > now:
            return "leased"
        return "dead" if int(fields["attempts"]) >= int(fields["max_attempts"]) else "ready"
    if state == "succeeded":
        return "succeeded"
    return "dead"


def _job_record(queue: str, fields: Mapping[str, str], now: float) -> JobRecord:
    state = _job_state(fields, now)
    return JobRecord(
        job_id=fields["id"],
        queue=queue,
        topic=fields["topic"],
        payload=json.loads(fields["payload"]),
        state=state,
        attempts=int(fields["attempts"]),
        max_attempts=int(fields["max_attempts"]),
        published_at=float(fields["published_at"]),
        available_at=float(fields["available_at"]),
        lease_expires_at=float(fields["lease_expires_at"]) if state == "leased" else None,
        # An anonymous lease stores its consumer as "".
        leased_by=(fields.get("consumer") or None) if state == "leased" else None,
        last_error=fields.get("last_error"),
        deduplication_id=fields.get("deduplication_id"),
    )


def _queue_record(name: str, answer: Sequence[Any]) -> QueueRecord:
    meta = _pairs(answer[0])
    return QueueRecord(
        name=name,
        settings=QueueSettings(
            max_attempts=int(meta["max_attempts"]),
            lease_seconds=int(meta["lease_seconds"]),
            retention_seconds=int(meta["retention_seconds"]),
            deduplication_window_seconds=int(meta["deduplication_window_seconds"]),
        ),
        created_at=float(meta["created_at"]),
        stats=QueueStats(
            ready=int(answer[1]), delayed=int(answer[2]), leased=int(answer[3]), dead=int(answer[4])
        ),
    )


_MESSAGE_OPTIONAL_TEXT = (
    "url_group",
    "retry_delay",
    "callback",
    "failure_callback",
    "deduplication_id",
)


def _message_fields(message_id: str, message: NewMessage, *, now: float) -> list[str]:
    """A new message as the field/value items of its hash."""
    fields: dict[str, str] = {
        "message_id": message_id,
        "url": message.url,
        "body": base64.b64encode(message.body).decode("ascii"),
        "content_type": message.content_type,
        "method": message.method,
        "headers": _dump_json(message.headers, what="message headers"),
        "state": "scheduled",
        "retries": str(message.retries),
        "timeout": str(message.timeout),
        "created_at": _number_text(now),
        "not_before": _number_text(message.not_before),
        "next_attempt_at": _number_text(message.not_before),
        "attempt_count": "0",
        "retries_used": "0",
    }
    for name in _MESSAGE_OPTIONAL_TEXT:
        value = getattr(message, name)
        if value is not None:
            fields[name] = value
    return [item for pair in fields.items() for item in pair]


def _optional_argument(value: str | int | None) -> str:
    """A script argument that tells None (``''``) from any value, the empty string included."""
    return "" if value is None else f"={value}"


def _attempt_json(attempt: DeliveryAttemptRecord) -> str:
    return json.dumps(dataclasses.asdict(attempt), separators=(",", ":"))


def _message_record(fields: Mapping[str, str]) -> MessageRecord:
    attempts = [
        DeliveryAttemptRecord(**json.loads(fields[f"attempt:{number}"]))
        for number in range(1, int(fields["attempt_count"]) + 1)
    ]
    state = cast(MessageState, fields["state"])
    retries = int(fields["retries"])
    # A message published before the store counted its budget: see legacy_retries_used (Lua).
    retries_used = fields.get("retries_used", len(attempts) % (retries + 1))
    return MessageRecord(
        message_id=fields["message_id"],
        url=fields["url"],
        body=base64.b64decode(fields["body"]),
        content_type=fields["content_type"],
        method=fields["method"],
        headers=json.loads(fields["headers"]),
        state=state,
        retries=retries,
        timeout=int(fields["timeout"]),
        created_at=float(fields["created_at"]),
        not_before=float(fields["not_before"]),
        attempts=attempts,
        retries_used=int(retries_used),
        next_attempt_at=_optional_float(fields, "next_attempt_at"),
        url_group=fields.get("url_group"),
        retry_delay=fields.get("retry_delay"),
        callback=fields.get("callback"),
        failure_callback=fields.get("failure_callback"),
        deduplication_id=fields.get("deduplication_id"),
        lease_id=fields.get("lease_id"),
    )


def _trim_steps(trim: Trim | None) -> list[str]:
    """``_LUA_TRIM``'s arguments: how many XTRIM calls, then strategy, ``~``/``=``, threshold."""
    if trim is None:
        return ["0"]
    steps: list[str] = []
    approximation = "~" if trim.approximate else "="
    if trim.maxlen is not None:
        if trim.maxlen < 0:
            raise StoreError("validation_failed", f"maxlen must not be negative: {trim.maxlen}")
        steps += ["MAXLEN", approximation, str(trim.maxlen)]
    if trim.minid is not None:
        steps += ["MINID", approximation, _entry_id(trim.minid)]
    return [str(len(steps) // 3), *steps]


def _valid_prefix(prefix: str) -> bool:
    # A brace would start a hash tag in the prefix and put every key in one cluster slot.
    return bool(prefix) and "{" not in prefix and "}" not in prefix


def _split_prefix(url: str, query_text: str) -> tuple[str, list[tuple[str, str]]]:
    """A store URL's ``prefix`` (ours) and the query parameters left for redis-py."""
    query = parse_qsl(query_text, keep_blank_values=True)
    prefixes = [value for name, value in query if name == "prefix"]
    if len(prefixes) > 1:
        raise InvalidStoreURL(f"{url!r} gives prefix more than once")
    prefix = prefixes[0] if prefixes else DEFAULT_PREFIX
    if not _valid_prefix(prefix):
        raise InvalidStoreURL(f"{url!r}: the prefix must be non-empty and brace-free")
    return prefix, [(name, value) for name, value in query if name != "prefix"]


def _check_amount(amount: int) -> None:
    if amount < 0:
        raise StoreError("validation_failed", f"a quota amount must not be negative: {amount}")


def _entry_id(text: str, *, also: str | None = None) -> str:
    """``text`` as Redis takes it: ``ms-seq`` or a bare ``ms`` (see ``entry_id_parts``), or
    ``also`` (``-``, ``+``, ``$``); anything else is refused.
    """
    if text == also:
        return text
    ms, seq = entry_id_parts(text)
    return str(ms) if seq is None else f"{ms}-{seq}"


def _check_at_least_one(value: int, *, name: str) -> None:
    if value < 1:
        raise StoreError("validation_failed", f"{name} must be at least 1: {value}")


def _entry_body(text: str | None) -> JSON:
    return None if text is None else json.loads(text)


def _unavailable_on_outage(method: Callable[_P, Awaitable[_T]]) -> Callable[_P, Awaitable[_T]]:
    @functools.wraps(method)
    async def call(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return await method(*args, **kwargs)
        except (RedisError, RedisClusterException) as exc:
            if not _is_outage(exc):
                raise
            # redis-py names the host and port it tried, never the password of the URL.
            raise StoreUnavailableError(f"Redis does not answer: {exc}") from exc

    return call


def _is_outage(exc: RedisError | RedisClusterException) -> bool:
    """A lost, refused or timed-out connection, or a cluster that cannot serve a slot now (down,
    or still moving the slot after the client's retries).
    """
    lost = (RedisConnectionError, RedisTimeoutError)
    if isinstance(exc, (*lost, ClusterDownError, SlotNotCoveredError, TryAgainError)):
        return True
    # A cluster client that reaches none of its startup nodes wraps the connection's error.
    return isinstance(exc, RedisClusterException) and isinstance(exc.__cause__, lost)


def _outages_raise_unavailable(store_class: _Class) -> _Class:
    """Make every public coroutine method of ``store_class`` raise ``StoreUnavailableError`` for
    a refused, lost or timed-out connection, wherever in the method it happens.
    """
    for name, member in list(vars(store_class).items()):
        if not name.startswith("_") and inspect.iscoroutinefunction(member):
            setattr(store_class, name, _unavailable_on_outage(member))
    return store_class


@_outages_raise_unavailable
class RedisStore(Store):
    """Spool's data in Redis, shareable by several service processes."""

    kind = "redis"

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
        if not _valid_prefix(prefix):
            raise ValueError(f"a Redis key prefix must be non-empty and brace-free, not {prefix!r}")
        if cluster_nodes is not None and not cluster_nodes:
            raise ValueError("a Redis Cluster needs at least one node address")
        self._redis_url = redis_url
        self._prefix = prefix
        self._cluster_nodes = None if cluster_nodes is None else list(cluster_nodes)
        self._clock: Callable[[], float] = time.time
        self._client: _Client | None = None
        self._waiting_client: _Client | None = None
        self._scripts: dict[str, AsyncScript] = {}
        self._changed = asyncio.Event()

    @classmethod
    def from_url(cls, url: str) -> RedisStore:
        """``redis://host:port/db?prefix=spool``: ``prefix`` is ours, the rest goes to redis-py.

        ``redis+cluster://host:port[,host:port...]/?prefix=spool`` (``rediss+cluster://`` for TLS)
        runs on Redis Cluster, which has only database 0.
        """
        parts = urlsplit(url)
        if parts.scheme in _CLUSTER_SCHEMES:
            return cls._from_cluster_url(url)
        if parts.scheme not in _SCHEMES:
            raise InvalidStoreURL(
                f"{url!r} is not a redis://, rediss://, unix://, redis+cluster:// or "
                "rediss+cluster:// URL"
            )
        prefix, rest = _split_prefix(url, parts.query)
        return cls(urlunsplit(parts._replace(query=urlencode(rest))), prefix=prefix)

    @classmethod
    def _from_cluster_url(cls, url: str) -> RedisStore:
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
        prefix, rest = _split_prefix(url, parts.query)
        # The nodes' options (credentials, TLS, timeouts) are read from a one-node URL.
        first = hosts.split(",")[0]
        netloc = f"{credentials}@{first}" if credentials else first
        node_url = urlunsplit((_CLUSTER_SCHEMES[parts.scheme], netloc, "", urlencode(rest), ""))
        return cls(node_url, prefix=prefix, cluster_nodes=nodes)

    @property
    def prefix(self) -> str:
        """The prefix every key of this store starts with."""
        return self._prefix

    @property
    def _redis(self) -> _Client:
        if self._client is None:
            raise RuntimeError("the Redis store is not open (call open() first)")
        return self._client

    @property
    def _waiting_redis(self) -> _Client:
        if self._waiting_client is None:
            raise RuntimeError("the Redis store is not open (call open() first)")
        return self._waiting_client

    def _notify(self) -> None:
        """Wake this process's lease long polls: a job may have become available."""
        self._changed.set()
        self._changed = asyncio.Event()

    # Life cycle ----------------------------------------------------------------------------

    async def open(self) -> None:
        """Connect and load the scripts, so that a missing server fails here.

        Blocking reads (XREADGROUP BLOCK) get a pool of their own, so that many long polls can
        never take every connection the other commands need.
        """
        if self._client is not None:
            raise RuntimeError("the Redis store is already open")
        client, waiting_client = self._new_client(), self._new_client(read_timeout=False)
        try:
            await _require_redis_7(client)
            self._scripts = {name: client.register_script(text) for name, text in _SCRIPTS.items()}
            for text in _SCRIPTS.values():
                await client.script_load(text)
        except BaseException:
            await client.aclose()
            await waiting_client.aclose()
            raise
        self._client, self._waiting_client = client, waiting_client

    def _new_client(self, *, read_timeout: bool = True) -> _Client:
        if self._cluster_nodes is not None:
            return self._new_cluster_client(self._cluster_nodes, read_timeout=read_timeout)
        pool = aioredis.BlockingConnectionPool.from_url(
            self._redis_url,
            decode_responses=True,
            max_connections=_MAX_CONNECTIONS,
            timeout=_POOL_WAIT_SECONDS,
            socket_connect_timeout=_CONNECT_TIMEOUT_SECONDS,
        )
        if not read_timeout:
            # Set after from_url because the URL's own socket_timeout would win over an argument.
            pool.connection_kwargs["socket_timeout"] = None
        return aioredis.Redis.from_pool(pool)

    def _new_cluster_client(
        self, nodes: Sequence[tuple[str, int]], *, read_timeout: bool
    ) -> _TurnTakingCluster:
        # A cluster client keeps a connection list per node, not a pool to pass in; it takes the
        # same connection options, read from the one-node URL as redis-py's own from_url does.
        options: dict[str, Any] = {"socket_connect_timeout": _CONNECT_TIMEOUT_SECONDS}
        options.update(parse_url(self._redis_url))
        del options["host"], options["port"]
        if options.pop("connection_class", None) is SSLConnection:
            options["ssl"] = True
        if not read_timeout:
            options["socket_timeout"] = None
        return _TurnTakingCluster(
            startup_nodes=[ClusterNode(host, port) for host, port in nodes],
            decode_responses=True,
            max_connections=_MAX_CONNECTIONS,
            **options,
        )

    async def close(self) -> None:
        """Close both connection pools; closing twice is harmless."""
        clients = (self._client, self._waiting_client)
        self._client = self._waiting_client = None
        for client in clients:
            if client is not None:
                await client.aclose()

    async def ping(self) -> bool:
        """True when Redis answers PING (on a cluster, the node the client asks)."""
        try:
            return bool(await self._redis.ping())
        except (RedisError, RedisClusterException, OSError, RuntimeError):
            return False

    # Helpers -------------------------------------------------------------------------------

    async def _run(
        self,
        name: str,
        keys: Sequence[str],
        args: Sequence[str | int | float],
        *,
        details: Mapping[str, str],
        client: Pipeline | None = None,
    ) -> Any:
        """Run a script, turning its ``SPOOL <code>`` refusals into typed errors."""
        with _script_errors(details):
            return await self._scripts[name](keys=keys, args=args, client=client)

    async def _write_once(
        self,
        idempotency: IdempotencyClaim | None,
        record_base: str,
        write: Callable[[list[str], list[str | int | float]], Awaitable[Any]],
        *,
        details: Mapping[str, str],
    ) -> tuple[bool, Any]:
        """Run a write script at most once per ``idempotency`` key: ``write`` gets the record's key
        (none for a plain write) and the request hash and ttl, and the script answers ``{replayed,
        result}`` (see ``_LUA_IDEMPOTENCY``). ``record_base`` names the write's slot.
        """
        if idempotency is None:
            replayed, result = await write([], ["", 0])
        else:
            record = f"{record_base}:idem:{idempotency.key}"
            if idempotency.replay_only:
                now = _number_text(self._clock())
                replayed, result = await self._run(
                    "replay", [record], [now, idempotency.request_hash], details=details
                )
            else:
                claim_args: list[str | int | float] = [
                    idempotency.request_hash,
                    _number_text(idempotency.ttl),
                ]
                replayed, result = await write([record], claim_args)
        return bool(replayed), result

    def _stream_key(self, stream: str) -> str:
        # A dead-letter stream (``<stream>.dead``, also of a dead-letter stream) shares its
        # stream's hash tag, so the claim that moves an entry there stays in one cluster slot.
        tag = stream
        while tag.endswith(DEAD_LETTER_SUFFIX):
            tag = tag[: -len(DEAD_LETTER_SUFFIX)]
        return f"{self._prefix}:s:{{{tag}}}{stream[len(tag) :]}"

    def _groups_key(self, stream: str) -> str:
        return f"{self._stream_key(stream)}:groups"

    def _queue_keys(self, queue: str) -> _QueueKeys:
        return _QueueKeys(f"{self._prefix}:q:{{{queue}}}")

    @property
    def _queues_key(self) -> str:
        return f"{self._prefix}:queues"

    @property
    def _message_keys(self) -> _MessageKeys:
        return _MessageKeys(f"{self._prefix}:m:{{messages}}")

    @property
    def _url_group_keys(self) -> list[str]:
        base = f"{self._prefix}:u:{{url_groups}}"
        return [f"{base}:groups", f"{base}:created"]

    # Streams -------------------------------------------------------------------------------

    async def append(
        self,
        stream: str,
        bodies: Sequence[JSON],
        *,
        trim: Trim | None,
        nomkstream: bool,
        idempotency: IdempotencyClaim | None = None,
    ) -> AppendResult:
        """XADD every body, then XTRIM, in one script that also counts what the trim removed (and
        keeps or replays the idempotency record).
        """
        texts = [_dump_json(body, what="an entry body") for body in bodies]
        key = self._stream_key(stream)
        details = {"stream": stream}
        arguments = ["1" if nomkstream else "0", *_trim_steps(trim), *texts]

        def write(record: list[str], claim: list[str | int | float]) -> Awaitable[Any]:
            now = _number_text(self._clock())
            return self._run("append", [key, *record], [now, *claim, *arguments], details=details)

        replayed, (length, trimmed, ids) = await self._write_once(
            idempotency, key, write, details=details
        )
        return AppendResult(
            ids=[str(i) for i in ids], length=int(length), trimmed=int(trimmed), replayed=replayed
        )

    async def stream_info(self, stream: str) -> StreamInfo:
        """XINFO STREAM and XINFO GROUPS, read in one transaction."""
        key = self._stream_key(stream)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.exists(key)
            pipe.xinfo_stream(key)
            pipe.xinfo_groups(key)
            pipe.hgetall(self._groups_key(stream))
            exists, info, groups, limits = await pipe.execute(raise_on_error=False)
        if not exists:
            raise _store_error("stream_not_found", f"stream {stream!r} does not exist")
        for result in (info, groups, limits):
            if isinstance(result, Exception):
                raise result
        first, last = info.get("first-entry"), info.get("last-entry")
        return StreamInfo(
            stream=stream,
            length=int(info["length"]),
            first_id=str(first[0]) if first else None,
            last_id=str(last[0]) if last else None,
            groups=sorted(
                (
                    GroupInfo(
                        group=str(group["name"]),
                        consumers=int(group["consumers"]),
                        pending=int(group["pending"]),
                        last_delivered_id=str(group["last-delivered-id"]),
                        max_deliveries=_optional_int(limits, str(group["name"])),
                    )
                    for group in groups
                ),
                key=lambda group: group.group,
            ),
        )

    async def range(
        self, stream: str, *, start: str, end: str, count: int, reverse: bool
    ) -> list[Entry]:
        """XRANGE (or XREVRANGE), checking in the same transaction that the stream exists."""
        start, end = _entry_id(start, also="-"), _entry_id(end, also="+")
        _check_at_least_one(count, name="count")
        key = self._stream_key(stream)
        with _redis_errors():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.exists(key)
                if reverse:
                    pipe.xrevrange(key, max=end, min=start, count=count)
                else:
                    pipe.xrange(key, min=start, max=end, count=count)
                exists, entries = await pipe.execute()
        if not exists:
            raise _store_error("stream_not_found", f"stream {stream!r} does not exist")
        return [
            Entry(id=str(entry_id), body=_entry_body(fields.get("b")))
            for entry_id, fields in entries
        ]

    async def trim(self, stream: str, trim: Trim) -> TrimResult:
        """XTRIM in a script that also answers the length and refuses a missing stream."""
        if trim.maxlen is None and trim.minid is None:
            raise StoreError("validation_failed", "a trim needs maxlen or minid")
        length, trimmed = await self._run(
            "trim", [self._stream_key(stream)], _trim_steps(trim), details={"stream": stream}
        )
        return TrimResult(length=int(length), trimmed=int(trimmed))

    async def delete_stream(self, stream: str) -> None:
        """DEL the stream key, which holds its entries and groups, and its groups' settings."""
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(self._stream_key(stream))
            pipe.delete(self._groups_key(stream))
            deleted, _ = await pipe.execute()
        if not deleted:
            raise _store_error("stream_not_found", f"stream {stream!r} does not exist")

    async def create_group(
        self,
        stream: str,
        group: str,
        *,
        start_id: str,
        mkstream: bool,
        max_deliveries: int | None = None,
    ) -> GroupInfo:
        """XGROUP CREATE (with MKSTREAM when asked) and the group's settings, answering the group
        as XINFO GROUPS sees it.
        """
        start_id = _entry_id(start_id, also="$")
        check_max_deliveries(stream, max_deliveries)
        consumers, pending, last_delivered_id = await self._run(
            "create_group",
            [self._stream_key(stream), self._groups_key(stream)],
            [
                group,
                start_id,
                "1" if mkstream else "0",
                "" if max_deliveries is None else max_deliveries,
            ],
            details={"stream": stream, "group": group},
        )
        return GroupInfo(
            group=group,
            consumers=int(consumers),
            pending=int(pending),
            last_delivered_id=str(last_delivered_id),
            max_deliveries=max_deliveries,
        )

    async def delete_group(self, stream: str, group: str) -> None:
        """XGROUP DESTROY, telling a missing stream from a missing group."""
        await self._run(
            "delete_group",
            [self._stream_key(stream), self._groups_key(stream)],
            [group],
            details={"stream": stream, "group": group},
        )

    async def read_group(
        self, stream: str, group: str, *, consumer: str, count: int, wait_ms: int
    ) -> list[DeliveredEntry]:
        """XREADGROUP ``>``; BLOCK only when ``wait_ms`` > 0 (Redis reads BLOCK 0 as forever)."""
        _check_at_least_one(count, name="count")
        key = self._stream_key(stream)
        try:
            if wait_ms > 0:
                answer: Any = await _within(
                    self._waiting_redis.xreadgroup(
                        group, consumer, {key: ">"}, count=count, block=wait_ms
                    ),
                    seconds=wait_ms / 1000 + _BLOCKED_READ_GRACE_SECONDS,
                )
            else:
                answer = await self._redis.xreadgroup(group, consumer, {key: ">"}, count=count)
        except ResponseError as exc:
            # XREADGROUP says NOGROUP for a missing stream too (or UNBLOCKED when the stream went
            # while it waited), so look which one is missing.
            if not await self._redis.exists(key):
                raise _store_error("stream_not_found", f"stream {stream!r} does not exist") from exc
            if str(exc).startswith("NOGROUP"):
                raise _store_error(
                    "group_not_found",
                    _DETAILS["group_not_found"].format(stream=stream, group=group),
                ) from exc
            raise
        return [
            DeliveredEntry(id=str(entry_id), body=_entry_body(fields.get("b")), delivery_count=1)
            for _, entries in answer or []
            for entry_id, fields in entries
        ]

    async def ack(self, stream: str, group: str, ids: Sequence[str]) -> int:
        """XACK after checking that the stream and group exist."""
        ids = [_entry_id(entry_id) for entry_id in ids]
        acked = await self._run(
            "ack",
            [self._stream_key(stream)],
            [group, *ids],
            details={"stream": stream, "group": group},
        )
        return int(acked)

    async def claim(
        self,
        stream: str,
        group: str,
        *,
        consumer: str,
        min_idle_ms: int,
        count: int,
        start_id: str,
    ) -> ClaimResult:
        """XAUTOCLAIM over a window of ``count`` pending entries; its third answer (Redis >= 7)
        lists the pending ids whose entries are gone.
        """
        start_id = _entry_id(start_id)
        _check_at_least_one(count, name="count")
        next_start_id, entries, deleted_ids, dead_lettered_ids = await self._run(
            "claim",
            [
                self._stream_key(stream),
                self._stream_key(dead_letter_stream(stream)),
                self._groups_key(stream),
            ],
            [group, consumer, min_idle_ms, start_id, count, stream],
            details={"stream": stream, "group": group},
        )
        return ClaimResult(
            entries=[
                DeliveredEntry(id=str(entry_id), body=_entry_body(body), delivery_count=int(times))
                for entry_id, body, times in entries
            ],
            deleted_ids=[str(entry_id) for entry_id in deleted_ids],
            next_start_id=str(next_start_id),
            dead_lettered_ids=[str(entry_id) for entry_id in dead_lettered_ids],
        )

    async def pending(self, stream: str, group: str, *, count: int) -> list[PendingEntry]:
        """XPENDING's extended form over the whole pending list, lowest id first."""
        _check_at_least_one(count, name="count")
        rows = await self._run(
            "pending",
            [self._stream_key(stream)],
            [group, count],
            details={"stream": stream, "group": group},
        )
        return [
            PendingEntry(
                id=str(entry_id),
                consumer=str(consumer),
                idle_ms=int(idle_ms),
                delivery_count=int(times),
            )
            for entry_id, consumer, idle_ms, times in rows
        ]

    # Queues --------------------------------------------------------------------------------

    async def _queue_script(
        self,
        name: str,
        queue: str,
        args: Sequence[str | int | float],
        *,
        now: float,
        details: Mapping[str, str] | None = None,
        client: Pipeline | None = None,
        extra_keys: Sequence[str] = (),
    ) -> Any:
        keys = self._queue_keys(queue)
        return await self._run(
            name,
            [*keys.declared(), *extra_keys],
            [keys.job_prefix, _number_text(now), *args],
            details={"queue": queue, **(details or {})},
            client=client,
        )

    async def put_queue(self, name: str, settings: QueueSettings) -> tuple[QueueRecord, bool]:
        """Write the settings in the queue's slot, then list the name (listing crosses slots)."""
        check_queue_settings(settings)
        created, answer = await self._queue_script(
            "put_queue",
            name,
            [
                settings.max_attempts,
                settings.lease_seconds,
                settings.retention_seconds,
                settings.deduplication_window_seconds,
            ],
            now=self._clock(),
        )
        await self._redis.sadd(self._queues_key, name)
        return _queue_record(name, answer), bool(created)

    async def get_queue(self, name: str) -> QueueRecord:
        """The queue's settings and counts after settling it to now."""
        return _queue_record(
            name, await self._queue_script("queue_info", name, [], now=self._clock())
        )

    async def list_queues(self) -> list[QueueRecord]:
        """Every listed queue that still exists, by name."""
        names = sorted(str(name) for name in await self._redis.smembers(self._queues_key))
        if not names:
            return []
        now = self._clock()
        client = self._redis
        if isinstance(client, RedisCluster):
            answers = await self._cluster_queue_infos(names, now)
        else:
            async with client.pipeline(transaction=False) as pipe:
                for name in names:
                    keys = self._queue_keys(name)
                    await self._scripts["queue_info"](
                        keys=keys.declared(), args=[keys.job_prefix, _number_text(now)], client=pipe
                    )
                answers = await pipe.execute(raise_on_error=False)
        records = []
        for name, answer in zip(names, answers, strict=True):
            if isinstance(answer, ResponseError) and _script_code(answer) == "queue_not_found":
                continue
            if isinstance(answer, Exception):
                raise answer
            records.append(_queue_record(name, answer))
        return records

    async def _cluster_queue_infos(self, names: Sequence[str], now: float) -> list[Any]:
        """``queue_info`` of every queue, each answer (or refusal) in its place. A cluster
        pipeline refuses EVALSHA, so the scripts run side by side instead, a few at a time.
        """
        limit = asyncio.Semaphore(_CLUSTER_LISTING_CONCURRENCY)

        async def info(name: str) -> Any:
            keys = self._queue_keys(name)
            async with limit:
                try:
                    return await self._scripts["queue_info"](
                        keys=keys.declared(), args=[keys.job_prefix, _number_text(now)]
                    )
                except ResponseError as exc:
                    return exc

        return list(await asyncio.gather(*(info(name) for name in names)))

    async def delete_queue(self, name: str) -> None:
        """Delete the queue's keys, then unlist it unless a concurrent put created it again."""
        await self._queue_script("delete_queue", name, [], now=self._clock())
        await self._redis.srem(self._queues_key, name)
        if await self._redis.exists(self._queue_keys(name).meta):
            await self._redis.sadd(self._queues_key, name)

    async def publish_jobs(
        self, queue: str, jobs: Sequence[NewJob], *, idempotency: IdempotencyClaim | None = None
    ) -> list[JobReceipt]:
        """Create every job in one script (which also keeps or replays the idempotency record);
        deduplication ids are checked against the queue's window, which also covers duplicates
        earlier in the batch.
        """
        now = self._clock()
        args: list[str | int | float] = [len(jobs)]
        for job in jobs:
            if job.delay < 0:
                raise StoreError("validation_failed", f"delay must not be negative: {job.delay}")
            args += [
                new_id("job", now=now),
                job.topic,
                _dump_json(job.payload, what="a job payload"),
                job.delay,
                job.deduplication_id or "",
            ]
        keys = self._queue_keys(queue)

        def write(record: list[str], claim: list[str | int | float]) -> Awaitable[Any]:
            return self._queue_script(
                "publish_jobs", queue, [*claim, *args], now=now, extra_keys=record
            )

        replayed, receipts = await self._write_once(
            idempotency, keys.base, write, details={"queue": queue}
        )
        self._notify()
        return [
            JobReceipt(
                job_id=str(job_id),
                queue=queue,
                topic=str(topic),
                deduplicated=bool(dup),
                replayed=replayed,
            )
            for job_id, dup, topic in receipts
        ]

    async def lease_jobs(
        self,
        queue: str,
        *,
        consumer: str | None,
        topics: Sequence[str] | None,
        max_jobs: int,
        lease_seconds: int | None,
        wait_ms: int,
    ) -> list[LeasedJob]:
        """Lease in one script (so no job goes to two workers); poll until ``wait_ms`` ends."""
        _check_at_least_one(max_jobs, name="max_jobs")
        if lease_seconds is not None:
            _check_at_least_one(lease_seconds, name="lease_seconds")
        deadline = time.monotonic() + max(wait_ms, 0) / 1000
        while True:
            changed = self._changed
            # Lease ids are made before the script knows how many jobs it can lease; asking for a
            # few first keeps an idle long poll from making (and sending) a thousand each time.
            first = min(max_jobs, _FIRST_LEASE_BATCH)
            leased = await self._lease_once(
                queue,
                consumer=consumer,
                topics=topics,
                max_jobs=first,
                lease_seconds=lease_seconds,
            )
            if len(leased) == first < max_jobs:
                leased += await self._lease_once(
                    queue,
                    consumer=consumer,
                    topics=topics,
                    max_jobs=max_jobs - first,
                    lease_seconds=lease_seconds,
                )
            remaining = deadline - time.monotonic()
            if leased or remaining <= 0:
                return leased
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), timeout=min(_LEASE_POLL_SECONDS, remaining))

    async def _lease_once(
        self,
        queue: str,
        *,
        consumer: str | None,
        topics: Sequence[str] | None,
        max_jobs: int,
        lease_seconds: int | None,
    ) -> list[LeasedJob]:
        topic_list = list(topics or [])
        now = self._clock()
        expires_at, rows = await self._queue_script(
            "lease_jobs",
            queue,
            [
                max_jobs,
                "" if lease_seconds is None else lease_seconds,
                consumer or "",
                "0" if topics is None else "1",
                len(topic_list),
                *topic_list,
                *(new_id("lease", now=now) for _ in range(max_jobs)),
            ],
            now=now,
        )
        return [
            LeasedJob(
                job_id=str(job_id),
                queue=queue,
                topic=str(topic),
                payload=json.loads(payload),
                attempt=int(attempt),
                lease_id=str(lease_id),
                lease_expires_at=float(expires_at),
                published_at=float(published_at),
            )
            for job_id, topic, payload, attempt, lease_id, published_at in rows
        ]

    async def ack_job(self, queue: str, job_id: str, lease_id: str) -> JobRecord:
        """Succeed the job if ``lease_id`` is its current, unexpired lease."""
        now = self._clock()
        fields = await self._queue_script(
            "ack_job",
            queue,
            [job_id, lease_id],
            now=now,
            details={"job_id": job_id, "lease_id": lease_id},
        )
        return _job_record(queue, _pairs(fields), now)

    async def nack_job(
        self, queue: str, job_id: str, lease_id: str, *, retry_delay: int, error: str | None
    ) -> JobRecord:
        """End the lease: ready again after ``retry_delay``, or dead without attempts left."""
        if retry_delay < 0:
            raise StoreError(
                "validation_failed", f"retry_delay must not be negative: {retry_delay}"
            )
        now = self._clock()
        fields = await self._queue_script(
            "nack_job",
            queue,
            [job_id, lease_id, retry_delay, _optional_argument(error)],
            now=now,
            details={"job_id": job_id, "lease_id": lease_id},
        )
        self._notify()
        return _job_record(queue, _pairs(fields), now)

    async def extend_lease(
        self, queue: str, job_id: str, lease_id: str, *, lease_seconds: int
    ) -> JobRecord:
        """Move the lease's end to ``lease_seconds`` from now."""
        _check_at_least_one(lease_seconds, name="lease_seconds")
        now = self._clock()
        fields = await self._queue_script(
            "extend_lease",
            queue,
            [job_id, lease_id, lease_seconds],
            now=now,
            details={"job_id": job_id, "lease_id": lease_id},
        )
        return _job_record(queue, _pairs(fields), now)

    async def get_job(self, queue: str, job_id: str) -> JobRecord:
        """The job, its state computed at now."""
        now = self._clock()
        fields = await self._queue_script(
            "get_job", queue, [job_id], now=now, details={"job_id": job_id}
        )
        return _job_record(queue, _pairs(fields), now)

    async def list_jobs(self, queue: str, *, state: JobState | None, limit: int) -> list[JobRecord]:
        """Jobs in publish order, filtered by their state at now."""
        _check_at_least_one(limit, name="limit")
        now = self._clock()
        rows = await self._queue_script("list_jobs", queue, [state or "", limit], now=now)
        return [_job_record(queue, _pairs(fields), now) for fields in rows]

    async def retry_job(self, queue: str, job_id: str) -> JobRecord:
        """Make a dead job ready now with its attempts reset."""
        now = self._clock()
        fields = await self._queue_script(
            "retry_job",
            queue,
            [job_id],
            now=now,
            details={"job_id": job_id, "state_rule": "only dead jobs can be retried"},
        )
        self._notify()
        return _job_record(queue, _pairs(fields), now)

    # Messages ------------------------------------------------------------------------------

    async def _message_script(
        self,
        name: str,
        args: Sequence[str | int | float],
        *,
        now: float,
        details: Mapping[str, str] | None = None,
        extra_keys: Sequence[str] = (),
    ) -> Any:
        keys = self._message_keys
        return await self._run(
            name,
            [*keys.declared(), *extra_keys],
            [keys.message_prefix, _number_text(now), *args],
            details=details or {},
        )

    async def publish_messages(
        self,
        messages: Sequence[NewMessage],
        *,
        lease: MessageLease | None = None,
        idempotency: IdempotencyClaim | None = None,
    ) -> list[MessageReceipt]:
        """Create every message in one script, deduplicating on ``dedup_key``; with ``lease``, the
        same script first checks that the lease is current. It also keeps or replays the
        idempotency record.
        """
        now = self._clock()
        lease_args = ["", ""] if lease is None else [lease.message_id, lease.lease_id]
        args: list[str | int | float] = [len(messages)]
        for message in messages:
            message_id = new_id("msg", now=now)
            fields = _message_fields(message_id, message, now=now)
            args += [
                message_id,
                message.dedup_key or "",
                _number_text(message.dedup_window),
                message.url,
                message.item,
                len(fields),
                *fields,
            ]
        details = (
            {} if lease is None else {"message_id": lease.message_id, "lease_id": lease.lease_id}
        )

        def write(record: list[str], claim: list[str | int | float]) -> Awaitable[Any]:
            return self._message_script(
                "publish_messages",
                [*lease_args, *claim, *args],
                now=now,
                details=details,
                extra_keys=record,
            )

        replayed, receipts = await self._write_once(
            idempotency, self._message_keys.base, write, details=details
        )
        return [
            MessageReceipt(
                message_id=str(message_id),
                url=str(url),
                deduplicated=bool(dup),
                item=int(item),
                replayed=replayed,
            )
            for message_id, dup, url, item in receipts
        ]

    async def get_message(self, message_id: str) -> MessageRecord:
        """The message with every attempt."""
        fields = await self._message_script(
            "get_message", [message_id], now=self._clock(), details={"message_id": message_id}
        )
        return _message_record(_pairs(fields))

    async def cancel_message(self, message_id: str) -> MessageRecord:
        """Cancel a scheduled message."""
        fields = await self._message_script(
            "cancel_message",
            [message_id],
            now=self._clock(),
            details={
                "message_id": message_id,
                "state_rule": "only scheduled messages can be cancelled",
            },
        )
        return _message_record(_pairs(fields))

    async def claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """Move due messages to ``delivering``, each under a fresh lease id and leased for its own
        timeout plus ``lease_margin``, in one script.
        """
        _check_at_least_one(limit, name="limit")
        if not (math.isfinite(lease_margin) and lease_margin >= 0):
            raise StoreError(
                "validation_failed",
                f"lease_margin must be a number of seconds >= 0: {lease_margin}",
            )
        rows = await self._message_script(
            "claim_due_messages",
            [limit, _number_text(lease_margin), *(new_id("lease", now=now) for _ in range(limit))],
            now=now,
        )
        return [_message_record(_pairs(fields)) for fields in rows]

    async def record_attempt(
        self,
        message_id: str,
        attempt: DeliveryAttemptRecord,
        *,
        lease_id: str,
        outcome: Literal["delivered", "retry", "failed"],
        next_attempt_at: float | None = None,
    ) -> MessageRecord:
        """Append the attempt and settle the message under its current lease, ending the lease;
        ``failed`` also files a dead letter.
        """
        if outcome not in ("delivered", "retry", "failed"):
            raise StoreError("validation_failed", f"unknown delivery outcome {outcome!r}")
        if outcome == "retry" and next_attempt_at is None:
            raise StoreError("validation_failed", "a retry needs next_attempt_at")
        fields = await self._message_script(
            "record_attempt",
            [
                message_id,
                lease_id,
                _attempt_json(attempt),
                outcome,
                "" if next_attempt_at is None else _number_text(next_attempt_at),
                _optional_argument(attempt.error),
                _optional_argument(attempt.status_code),
            ],
            now=self._clock(),
            details={"message_id": message_id, "lease_id": lease_id},
        )
        return _message_record(_pairs(fields))

    async def put_url_group(self, name: str, endpoints: Sequence[UrlEndpoint]) -> UrlGroupRecord:
        """Replace the endpoints; the creation time is kept from the first put."""
        now = self._clock()
        endpoints_json = json.dumps([dataclasses.asdict(endpoint) for endpoint in endpoints])
        created_at = await self._run(
            "put_url_group",
            self._url_group_keys,
            [name, endpoints_json, _number_text(now)],
            details={"url_group": name},
        )
        return UrlGroupRecord(
            name=name, endpoints=list(endpoints), created_at=float(created_at), updated_at=now
        )

    async def get_url_group(self, name: str) -> UrlGroupRecord:
        """The group (``url_group_not_found``)."""
        groups_key, created_key = self._url_group_keys
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hget(groups_key, name)
            pipe.hget(created_key, name)
            stored, created_at = await pipe.execute()
        if stored is None:
            raise _store_error("url_group_not_found", f"URL group {name!r} does not exist")
        return _url_group_record(name, stored, created_at)

    async def list_url_groups(self) -> list[UrlGroupRecord]:
        """Every URL group, by name."""
        groups_key, created_key = self._url_group_keys
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(groups_key)
            pipe.hgetall(created_key)
            stored, created = await pipe.execute()
        return [_url_group_record(name, stored[name], created.get(name)) for name in sorted(stored)]

    async def delete_url_group(self, name: str) -> None:
        """Delete the group (``url_group_not_found``)."""
        await self._run(
            "delete_url_group", self._url_group_keys, [name], details={"url_group": name}
        )

    async def list_dead_letters(self, *, limit: int) -> list[DeadLetterRecord]:
        """Dead letters in the order their messages failed."""
        _check_at_least_one(limit, name="limit")
        rows = await self._message_script("list_dead_letters", [limit], now=self._clock())
        return [
            DeadLetterRecord(
                message_id=str(message_id),
                url=str(url),
                attempts=int(attempts),
                failed_at=float(failed_at),
                last_error=last_error,
                last_status_code=None if status is None else int(status),
            )
            for message_id, url, attempts, failed_at, last_error, status in rows
        ]

    async def delete_dead_letter(self, message_id: str) -> None:
        """Forget the dead letter; the message stays readable."""
        await self._message_script(
            "delete_dead_letter",
            [message_id],
            now=self._clock(),
            details={"message_id": message_id},
        )

    async def retry_dead_letter(self, message_id: str) -> MessageRecord:
        """Remove the dead letter and schedule the message now with a fresh retry budget; its
        earlier attempts stay.
        """
        fields = await self._message_script(
            "retry_dead_letter", [message_id], now=self._clock(), details={"message_id": message_id}
        )
        return _message_record(_pairs(fields))

    async def next_due_at(self) -> float | None:
        """The lowest score of the due set: every scheduled or delivering message, by its next
        attempt or lease end.
        """
        first = await self._redis.zrange(f"{self._message_keys.base}:due", 0, 0, withscores=True)
        return float(first[0][1]) if first else None

    # Quotas --------------------------------------------------------------------------------

    def _quota_key(self, token_id: str) -> str:
        return f"{self._prefix}:quota:{token_id}"

    async def consume_quota(self, token_id: str, amount: int, *, limit: int) -> bool:
        """Check and add in one script, so concurrent publishes never overshoot ``limit``."""
        _check_amount(amount)
        consumed = await self._run(
            "consume_quota", [self._quota_key(token_id)], [amount, limit], details={}
        )
        return bool(consumed)

    async def refund_quota(self, token_id: str, amount: int) -> None:
        """Take ``amount`` back, never below zero."""
        _check_amount(amount)
        await self._run("refund_quota", [self._quota_key(token_id)], [amount], details={})

    # Rate limits ---------------------------------------------------------------------------

    async def take_rate_token(self, key: str, *, per_second: float, burst: int) -> float:
        """Refill and take in one script, by Redis's clock (see the module docstring)."""
        check_token_bucket(per_second, burst)
        wait = await self._run(
            "take_rate_token",
            [f"{self._prefix}:rate:{key}"],
            [_number_text(per_second), burst],
            details={},
        )
        return float(wait)


class _TurnTakingCluster(RedisCluster):
    """A cluster client whose commands wait for a free connection, as the standalone store's
    ``BlockingConnectionPool`` does (up to ``_POOL_WAIT_SECONDS``), where redis-py's cluster client
    fails at once once a node has ``max_connections`` in use.

    A command or a pipeline holds one of ``_MAX_CONNECTIONS`` turns while it runs, and uses at
    most one connection of each node it reaches, so no node ever needs more connections than that.
    What a command or pipeline runs on its own behalf (redis-py sends a pipeline's redirected
    commands again one by one) runs in the turn it already holds.
    """

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.turns = _Turns()

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        async with self.turns.one():
            return await super().execute_command(*args, **kwargs)

    def pipeline(
        self, transaction: Any | None = None, shard_hint: Any | None = None
    ) -> ClusterPipeline:
        if shard_hint:
            return super().pipeline(transaction, shard_hint)
        # redis-py's typing protocol declares an _event_dispatcher that ClusterPipeline never has.
        return _TurnTakingPipeline(self, transaction)  # type: ignore[abstract]


class _TurnTakingPipeline(ClusterPipeline):
    """A cluster pipeline (or MULTI/EXEC) that runs in one turn of its client."""

    def __init__(self, client: _TurnTakingCluster, transaction: Any) -> None:
        super().__init__(client, transaction)
        self.turns = client.turns

    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> Any:
        async with self.turns.one():
            return await super().execute(raise_on_error, allow_redirections)


class _Turns:
    """``_MAX_CONNECTIONS`` turns, waited for up to ``_POOL_WAIT_SECONDS``; a task holding one
    takes no other.
    """

    def __init__(self) -> None:
        self._free = asyncio.Semaphore(_MAX_CONNECTIONS)
        self._held: contextvars.ContextVar[bool] = contextvars.ContextVar("turn", default=False)

    @contextlib.asynccontextmanager
    async def one(self) -> AsyncIterator[None]:
        if self._held.get():
            yield
            return
        try:
            await asyncio.wait_for(self._free.acquire(), timeout=_POOL_WAIT_SECONDS)
        except TimeoutError as exc:
            # What the standalone pool raises when it waited in vain.
            raise RedisConnectionError("No connection available.") from exc
        held = self._held.set(True)
        try:
            yield
        finally:
            self._held.reset(held)
            self._free.release()


def _url_group_record(name: str, stored: str, created_at: str | None) -> UrlGroupRecord:
    updated_at, _, endpoints_json = stored.partition(" ")
    return UrlGroupRecord(
        name=name,
        endpoints=[UrlEndpoint(**endpoint) for endpoint in json.loads(endpoints_json)],
        created_at=float(created_at if created_at is not None else updated_at),
        updated_at=float(updated_at),
    )


_DETAILS: dict[str, str] = {
    "stream_not_found": "stream {stream!r} does not exist",
    "group_not_found": "consumer group {group!r} does not exist on stream {stream!r}",
    "group_exists": "consumer group {group!r} already exists on stream {stream!r}",
    "queue_not_found": "queue {queue!r} does not exist",
    "job_not_found": "job {job_id!r} does not exist in queue {queue!r}",
    "lease_expired": "lease {lease_id!r} of job {job_id!r} has ended or belongs to another worker",
    "message_lease_expired": "lease {lease_id!r} is not the current lease of message "
    "{message_id!r}: another claim replaced it, or its attempt was already recorded",
    "message_not_found": "message {message_id!r} does not exist",
    "url_group_not_found": "URL group {url_group!r} does not exist",
    "dead_letter_not_found": "message {message_id!r} is not a dead letter",
    "conflict": "the idempotency key was already used for another request",
    "idempotency_record_not_found": "no live record of this idempotency key to replay",
}


async def _require_redis_7(client: _Client) -> None:
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


async def _within(read: Awaitable[_T], *, seconds: float) -> _T:
    """Await a blocked read, failing as redis-py does when Redis stays silent past ``seconds``."""
    try:
        return await asyncio.wait_for(read, timeout=seconds)
    except TimeoutError as exc:
        raise RedisTimeoutError(f"Redis did not answer a blocked read within {seconds} s") from exc


def _script_code(exc: ResponseError) -> str | None:
    text = str(exc)
    if not text.startswith(_SCRIPT_ERROR_PREFIX):
        return None
    return text[len(_SCRIPT_ERROR_PREFIX) :].split(" ", 1)[0]


@contextlib.contextmanager
def _script_errors(details: Mapping[str, str]) -> Iterator[None]:
    """Turn a script's ``SPOOL <code> [<word>]`` error into the matching typed store error."""
    try:
        yield
    except ResponseError as exc:
        code = _script_code(exc)
        if code is not None:
            raise _script_error(code, exc, details) from exc
        if _is_argument_error(exc):
            raise _store_error("validation_failed", _refusal(exc)) from exc
        raise
    except UnicodeEncodeError as exc:
        raise _store_error("validation_failed", f"text that is not valid UTF-8: {exc}") from exc


def _script_error(code: str, exc: ResponseError, details: Mapping[str, str]) -> StoreError:
    if code == "invalid_state":
        # The script names the state it found after the code; ``state_rule`` says what it needs.
        state = str(exc)[len(_SCRIPT_ERROR_PREFIX) :].split(" ")[1]
        subject = (
            f"job {details['job_id']!r}"
            if "job_id" in details
            else f"message {details.get('message_id')!r}"
        )
        return _store_error(code, f"{subject} is {state}; {details.get('state_rule', '')}")
    if code == "lease_expired" and "message_id" in details:
        return _store_error(code, _DETAILS["message_lease_expired"].format(**details))
    return _store_error(code, _DETAILS.get(code, code).format(**details))


@contextlib.contextmanager
def _redis_errors() -> Iterator[None]:
    """Turn Redis refusing an argument (an invalid id, say) into a typed store error."""
    try:
        yield
    except ResponseError as exc:
        if _is_argument_error(exc):
            raise _store_error("validation_failed", _refusal(exc)) from exc
        raise
    except UnicodeEncodeError as exc:
        raise _store_error("validation_failed", f"text that is not valid UTF-8: {exc}") from exc


# What Redis answers when a caller's argument (not the store) is wrong.
_ARGUMENT_ERROR_MARKERS = (
    "Invalid stream ID",
    "not an integer",
    "not a float",
    "syntax error",
    "equal or smaller than",
)


def _refusal(exc: ResponseError) -> str:
    """What Redis said, without the script or pipeline details redis-py and Redis wrap it in."""
    text = str(exc).split(" script: ", 1)[0]
    if "of pipeline caused error: " in text:
        text = text.split("of pipeline caused error: ", 1)[1].strip("(),'\"")
    return f"Redis refused an argument: {text}"


def _is_argument_error(exc: ResponseError) -> bool:
    # Subclasses (READONLY, NOPERM, …) are the server's state, never the caller's input.
    return type(exc) is ResponseError and any(
        marker in str(exc) for marker in _ARGUMENT_ERROR_MARKERS
    )
