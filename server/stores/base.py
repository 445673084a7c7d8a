"""The store contract: what every backend must do, in domain terms.

The HTTP layer (``server/app.py``) validates requests, checks tokens and shapes responses; a store
only keeps data and enforces the semantics written on each method below. Every backend passes the
same behaviour suite (``tests/server/stores/``), so these docstrings are the specification the suite
pins.

Times are floats of seconds since the epoch (``time.time()``) unless a name ends in ``_ms``.
Every method is atomic: it either does all it says or raises and changes nothing.

Any method raises ``StoreUnavailableError`` (``unavailable``, status 503) when the backend cannot
be reached or used right now: a refused, lost or timed-out connection, or a lock another process
held for too long. It says nothing about the request itself, which may succeed when repeated later.
One caveat to atomicity: when the connection is lost after a write was sent, the write may have
taken effect even though its answer never arrived.
"""

from __future__ import annotations

import abc
import dataclasses
import math
import re
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

__all__ = [
    "AppendResult",
    "ClaimResult",
    "ConflictError",
    "DeadLetterRecord",
    "DeliveredEntry",
    "DeliveryAttemptRecord",
    "Entry",
    "GroupInfo",
    "IdempotencyClaim",
    "JobReceipt",
    "JobRecord",
    "JobState",
    "LeasedJob",
    "MessageLease",
    "MessageReceipt",
    "MessageRecord",
    "MessageState",
    "NewJob",
    "NewMessage",
    "NotFoundError",
    "PendingEntry",
    "QueueRecord",
    "QueueSettings",
    "QueueStats",
    "Store",
    "StoreError",
    "StoreUnavailableError",
    "StreamInfo",
    "Trim",
    "TrimResult",
    "UrlEndpoint",
    "UrlGroupRecord",
    "MAX_ID_PART",
    "check_max_deliveries",
    "check_queue_settings",
    "check_token_bucket",
    "DEAD_LETTER_SUFFIX",
    "dead_letter_stream",
    "entry_id_parts",
]

JSON = Any
JobState = Literal["ready", "delayed", "leased", "succeeded", "dead"]
MessageState = Literal["scheduled", "delivering", "delivered", "failed", "cancelled"]


class StoreError(Exception):
    """A request the store refuses; ``code`` is an ``ErrorCode`` of openapi.yaml."""

    status: ClassVar[int] = 400

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class NotFoundError(StoreError):
    """The named stream, group, queue, job, message, URL group or dead letter does not exist."""

    status = 404


class ConflictError(StoreError):
    """The request conflicts with the resource's state (``group_exists``, ``lease_expired``, …)."""

    status = 409


class StoreUnavailableError(StoreError):
    """The backend does not answer or cannot be used now; the code is always ``unavailable``."""

    status = 503

    def __init__(self, detail: str) -> None:
        super().__init__("unavailable", detail)


# Streams ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Trim:
    """How to trim a stream: keep about (or exactly) ``maxlen`` entries, or drop ids below ``minid``.

    With ``approximate=True`` a store may keep more than ``maxlen`` entries (never fewer) to trim
    cheaply; each backend documents its bound. ``minid`` is an entry id or just its milliseconds.
    """

    maxlen: int | None = None
    minid: str | None = None
    approximate: bool = True


@dataclasses.dataclass(frozen=True, slots=True)
class AppendResult:
    """The ids given to appended entries, in order, and the stream after trimming; ``replayed``
    when this is an earlier append's result, answered again for its idempotency key.
    """

    ids: list[str]
    length: int
    trimmed: int
    replayed: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """One stream entry."""

    id: str
    body: JSON


@dataclasses.dataclass(frozen=True, slots=True)
class DeliveredEntry:
    """An entry handed to a consumer of a group, with how often it was delivered."""

    id: str
    body: JSON
    delivery_count: int


@dataclasses.dataclass(frozen=True, slots=True)
class GroupInfo:
    """A consumer group's position and size; ``max_deliveries`` None means unlimited."""

    group: str
    consumers: int
    pending: int
    last_delivered_id: str
    max_deliveries: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class StreamInfo:
    """A stream's length, ends and groups; ``first_id``/``last_id`` are None when it is empty."""

    stream: str
    length: int
    first_id: str | None
    last_id: str | None
    groups: list[GroupInfo]


@dataclasses.dataclass(frozen=True, slots=True)
class TrimResult:
    """The stream's length after trimming and how many entries went."""

    length: int
    trimmed: int


@dataclasses.dataclass(frozen=True, slots=True)
class ClaimResult:
    """Entries a claim took over, pending ids whose entries no longer exist, where to go on, and
    pending ids moved to the dead-letter stream.
    """

    entries: list[DeliveredEntry]
    deleted_ids: list[str]
    next_start_id: str
    dead_lettered_ids: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True, slots=True)
class PendingEntry:
    """One entry of a group's pending list."""

    id: str
    consumer: str
    idle_ms: int
    delivery_count: int


# Queues ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class QueueSettings:
    """A queue's settings (defaults are openapi.yaml's)."""

    max_attempts: int = 5
    lease_seconds: int = 30
    retention_seconds: int = 604800
    deduplication_window_seconds: int = 300


@dataclasses.dataclass(frozen=True, slots=True)
class QueueStats:
    """How many jobs a queue holds in each unfinished state."""

    ready: int
    delayed: int
    leased: int
    dead: int


@dataclasses.dataclass(frozen=True, slots=True)
class QueueRecord:
    """A queue with its settings and counts."""

    name: str
    settings: QueueSettings
    created_at: float
    stats: QueueStats


@dataclasses.dataclass(frozen=True, slots=True)
class NewJob:
    """A job to publish; ``delay`` in seconds."""

    topic: str
    payload: JSON
    delay: int = 0
    deduplication_id: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class JobReceipt:
    """What publishing a job answers; ``deduplicated`` means ``job_id`` is an earlier job's, and
    ``replayed`` that the receipt is an earlier publish's, answered again for its idempotency key.
    """

    job_id: str
    queue: str
    topic: str
    deduplicated: bool
    replayed: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class JobRecord:
    """A job as the store holds it.

    ``state`` is computed at read time: a ``ready`` job whose ``available_at`` is in the future is
    ``delayed``; a ``leased`` job whose lease has ended is ``ready`` again (or ``dead`` once it used
    ``max_attempts``).
    """

    job_id: str
    queue: str
    topic: str
    payload: JSON
    state: JobState
    attempts: int
    max_attempts: int
    published_at: float
    available_at: float
    lease_expires_at: float | None = None
    leased_by: str | None = None
    last_error: str | None = None
    deduplication_id: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class LeasedJob:
    """A job handed to a worker under a lease."""

    job_id: str
    queue: str
    topic: str
    payload: JSON
    attempt: int
    lease_id: str
    lease_expires_at: float
    published_at: float


# Messages --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class UrlEndpoint:
    """One endpoint of a URL group."""

    url: str
    name: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class UrlGroupRecord:
    """A named set of endpoints a message can fan out to."""

    name: str
    endpoints: list[UrlEndpoint]
    created_at: float
    updated_at: float


@dataclasses.dataclass(frozen=True, slots=True)
class NewMessage:
    """One HTTP message to one URL, everything its deliveries need.

    ``body`` is the exact bytes to send. ``dedup_key`` (already scoped by the caller: destination
    plus deduplication id or content hash) makes the store return the earlier message's id instead
    of creating one, while that earlier message was created less than ``dedup_window`` seconds ago.
    ``item`` is the caller's number for the request item the message came from (a URL group fans
    one item out to a message per endpoint); the receipt carries it back, replayed ones included.
    """

    url: str
    body: bytes
    content_type: str
    method: str
    headers: dict[str, str]
    not_before: float
    retries: int
    timeout: int
    url_group: str | None = None
    retry_delay: str | None = None
    callback: str | None = None
    failure_callback: str | None = None
    deduplication_id: str | None = None
    dedup_key: str | None = None
    dedup_window: float = 0.0
    item: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class MessageReceipt:
    """What publishing a message answers, one per URL: ``item`` is its message's, ``deduplicated``
    means ``message_id`` is an earlier message's, and ``replayed`` that the receipt is an earlier
    publish's, answered again for its idempotency key.
    """

    message_id: str
    url: str
    deduplicated: bool
    item: int = 0
    replayed: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class DeliveryAttemptRecord:
    """One delivery attempt as recorded in the message's status."""

    attempt: int
    started_at: float
    duration_ms: int
    status_code: int | None = None
    response_excerpt: str | None = None
    error: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class MessageRecord:
    """A message with its schedule and every attempt so far.

    ``next_attempt_at`` is when the delivery engine may next try it (None once it is final); while
    the message is ``delivering`` that is when its lease ends. ``lease_id`` names the claim the
    message is ``delivering`` under (None in every other state). ``retries_used`` is how many
    attempts its current retry budget has made: ``record_attempt`` adds one and
    ``retry_dead_letter`` starts a fresh budget at 0, while ``attempts`` keeps every attempt ever
    made. So the next attempt is retry number ``retries_used`` (0 is the first try), and the
    retries have run out when the attempt made at ``retries_used == retries`` fails.
    """

    message_id: str
    url: str
    body: bytes
    content_type: str
    method: str
    headers: dict[str, str]
    state: MessageState
    retries: int
    timeout: int
    created_at: float
    not_before: float
    attempts: list[DeliveryAttemptRecord]
    retries_used: int
    next_attempt_at: float | None = None
    url_group: str | None = None
    retry_delay: str | None = None
    callback: str | None = None
    failure_callback: str | None = None
    deduplication_id: str | None = None
    lease_id: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class MessageLease:
    """A delivery engine's claim on one message: the ``lease_id`` it was claimed under."""

    message_id: str
    lease_id: str


@dataclasses.dataclass(frozen=True, slots=True)
class DeadLetterRecord:
    """A message whose retries ran out."""

    message_id: str
    url: str
    attempts: int
    failed_at: float
    last_error: str | None = None
    last_status_code: int | None = None


# Idempotency -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class IdempotencyClaim:
    """Makes a write (``append``, ``publish_jobs``, ``publish_messages``) happen at most once per
    ``key`` (already scoped to the token and the request), in the write's own atomic step.

    A live record of ``key`` (one younger than its ``ttl``) with the same ``request_hash`` makes
    the write answer the result it stored, marked ``replayed``, and write nothing; one with another
    hash is ``ConflictError("conflict")``, also writing nothing. Without a live record the write
    runs and keeps its result under ``key`` for ``ttl`` seconds, atomically with the write: there
    is never a write without its record nor a record without its write, and a write that raises
    keeps nothing, so a corrected repeat runs. An expired record counts as absent. Records are
    kept per stream, per queue and for all messages: one key on two streams is two keys.

    ``replay_only`` answers a live record as above but never writes: without one it raises
    ``NotFoundError("idempotency_record_not_found")``.
    """

    key: str
    request_hash: str
    ttl: float
    replay_only: bool = False


# The largest part of an entry id: Redis's own, and what openapi.yaml's id patterns allow.
MAX_ID_PART = 2**64 - 1
_ENTRY_ID = re.compile(r"([0-9]{1,20})(?:-([0-9]{1,20}))?")


def entry_id_parts(text: str) -> tuple[int, int | None]:
    """The milliseconds and sequence of ``ms-seq``, or of a bare ``ms`` (sequence None);
    ``validation_failed`` for anything else, a part above ``MAX_ID_PART`` included. Every store
    reads the ids it is given with this, so all of them take and refuse the same ids.
    """
    match = _ENTRY_ID.fullmatch(text)
    if match is None:
        raise StoreError("validation_failed", f"{text!r} is not an entry id like 1700000000000-0")
    ms_text, seq_text = match.groups()
    ms, seq = int(ms_text), None if seq_text is None else int(seq_text)
    if ms > MAX_ID_PART or (seq is not None and seq > MAX_ID_PART):
        raise StoreError(
            "validation_failed", f"entry id {text!r} has a part above {MAX_ID_PART}, the largest"
        )
    return ms, seq


# The longest stream name openapi.yaml's ResourceName allows.
_MAX_STREAM_NAME = 128
DEAD_LETTER_SUFFIX = ".dead"


def dead_letter_stream(stream: str) -> str:
    """The stream that ``claim`` moves a group's undeliverable entries of ``stream`` to."""
    return stream + DEAD_LETTER_SUFFIX


def check_max_deliveries(stream: str, max_deliveries: int | None) -> None:
    """``validation_failed`` unless ``max_deliveries`` is None or at least 1, and the stream's
    dead-letter stream has a name the API can read.
    """
    if max_deliveries is None:
        return
    if max_deliveries < 1:
        raise StoreError(
            "validation_failed", f"max_deliveries must be at least 1: {max_deliveries}"
        )
    if len(dead_letter_stream(stream)) > _MAX_STREAM_NAME:
        raise StoreError(
            "validation_failed",
            f"max_deliveries needs a dead-letter stream {dead_letter_stream(stream)!r}, longer "
            f"than {_MAX_STREAM_NAME} characters: use a stream name of at most "
            f"{_MAX_STREAM_NAME - len(DEAD_LETTER_SUFFIX)}",
        )


def check_queue_settings(settings: QueueSettings) -> None:
    """``validation_failed`` unless every setting of a queue is within its least value."""
    for name, value, least in (
        ("max_attempts", settings.max_attempts, 1),
        ("lease_seconds", settings.lease_seconds, 1),
        ("retention_seconds", settings.retention_seconds, 0),
        ("deduplication_window_seconds", settings.deduplication_window_seconds, 0),
    ):
        if value < least:
            raise StoreError("validation_failed", f"{name} must be at least {least}: {value}")


def check_token_bucket(per_second: float, burst: int) -> None:
    """``validation_failed`` unless the refill rate is a positive number and burst at least 1."""
    if not (math.isfinite(per_second) and per_second > 0):
        raise StoreError("validation_failed", f"per_second must be a number > 0: {per_second}")
    if burst < 1:
        raise StoreError("validation_failed", f"burst must be at least 1: {burst}")


class Store(abc.ABC):
    """Everything the service keeps. One instance serves one process; several processes may share
    one backend (Redis), so every state change must be safe against other processes.
    """

    kind: ClassVar[Literal["sqlite", "redis"]]

    @classmethod
    @abc.abstractmethod
    def from_url(cls, url: str) -> Store:
        """Build an unopened store from its URL (query parameters carry backend options)."""

    # Life cycle ----------------------------------------------------------------------------

    @abc.abstractmethod
    async def open(self) -> None:
        """Connect and create what the backend needs (tables, scripts)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release connections; the store is unusable afterwards."""

    @abc.abstractmethod
    async def ping(self) -> bool:
        """True when the backend answers."""

    # Streams -------------------------------------------------------------------------------

    @abc.abstractmethod
    async def append(
        self,
        stream: str,
        bodies: Sequence[JSON],
        *,
        trim: Trim | None,
        nomkstream: bool,
        idempotency: IdempotencyClaim | None = None,
    ) -> AppendResult:
        """Append ``bodies`` in order, then apply ``trim``; at most once per ``idempotency`` key.

        Ids are ``<ms>-<seq>`` from the current time and strictly greater than every id the stream
        ever had, even when the clock steps back (then the last id's ms is kept and seq grows).
        With ``nomkstream`` a missing stream raises ``NotFoundError("stream_not_found")``.
        """

    @abc.abstractmethod
    async def stream_info(self, stream: str) -> StreamInfo:
        """Describe a stream; ``NotFoundError("stream_not_found")`` when it does not exist."""

    @abc.abstractmethod
    async def range(
        self, stream: str, *, start: str, end: str, count: int, reverse: bool
    ) -> list[Entry]:
        """Entries with ``start <= id <= end`` (``-``/``+`` are the ends; a bare ms means ``ms-0`` for
        start and ``ms-<max>`` for end), at most ``count``, newest first when ``reverse``.
        ``NotFoundError("stream_not_found")`` when the stream does not exist.
        """

    @abc.abstractmethod
    async def trim(self, stream: str, trim: Trim) -> TrimResult:
        """Trim an existing stream; ``NotFoundError("stream_not_found")`` otherwise."""

    @abc.abstractmethod
    async def delete_stream(self, stream: str) -> None:
        """Delete a stream, its entries and groups; ``NotFoundError("stream_not_found")`` if absent."""

    @abc.abstractmethod
    async def create_group(
        self,
        stream: str,
        group: str,
        *,
        start_id: str,
        mkstream: bool,
        max_deliveries: int | None = None,
    ) -> GroupInfo:
        """Create a group delivering entries with ids greater than ``start_id`` (``$`` = the
        stream's last id now, ``0`` = everything). A missing stream is created empty with
        ``mkstream``, else ``NotFoundError("stream_not_found")``; an existing group is
        ``ConflictError("group_exists")``. ``max_deliveries`` (None: unlimited) is how often
        ``claim`` delivers one entry before dead-lettering it; ``check_max_deliveries`` says
        what is refused.
        """

    @abc.abstractmethod
    async def delete_group(self, stream: str, group: str) -> None:
        """Delete a group and its pending list (``stream_not_found`` / ``group_not_found``)."""

    @abc.abstractmethod
    async def read_group(
        self, stream: str, group: str, *, consumer: str, count: int, wait_ms: int
    ) -> list[DeliveredEntry]:
        """Deliver up to ``count`` never-delivered entries to ``consumer``, oldest first, adding them
        to the pending list with delivery count 1. Each entry goes to exactly one consumer of the
        group. When none is available, wait up to ``wait_ms`` for one. Raises ``stream_not_found``
        / ``group_not_found``.
        """

    @abc.abstractmethod
    async def ack(self, stream: str, group: str, ids: Sequence[str]) -> int:
        """Remove ``ids`` from the group's pending list; return how many were pending."""

    @abc.abstractmethod
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
        """Scan the pending list from ``start_id`` (inclusive) in id order, looking at up to
        ``count`` entries: give those idle at least ``min_idle_ms`` to ``consumer`` (idle reset,
        delivery count + 1) and drop from the pending list those whose entries were trimmed away,
        reporting them in ``deleted_ids``. ``next_start_id`` is the next pending id to scan, or
        ``0-0`` at the end.

        An idle entry whose delivery count already reached the group's ``max_deliveries`` is not
        given out: it is dropped from the pending list and appended, in the same atomic step, to
        the stream ``dead_letter_stream(stream)`` (created when missing) with the body
        ``{"stream", "id", "group", "delivery_count", "body"}`` (its stream, id and group, how
        often it was delivered, and its own body), and reported in ``dead_lettered_ids``.
        """

    @abc.abstractmethod
    async def pending(self, stream: str, group: str, *, count: int) -> list[PendingEntry]:
        """Up to ``count`` pending entries, lowest id first."""

    # Queues --------------------------------------------------------------------------------

    @abc.abstractmethod
    async def put_queue(self, name: str, settings: QueueSettings) -> tuple[QueueRecord, bool]:
        """Create the queue or change its settings; the bool says whether it was created."""

    @abc.abstractmethod
    async def get_queue(self, name: str) -> QueueRecord:
        """The queue; ``NotFoundError("queue_not_found")`` if it was never created."""

    @abc.abstractmethod
    async def list_queues(self) -> list[QueueRecord]:
        """Every queue, by name."""

    @abc.abstractmethod
    async def delete_queue(self, name: str) -> None:
        """Delete the queue and all its jobs (``queue_not_found``)."""

    @abc.abstractmethod
    async def publish_jobs(
        self, queue: str, jobs: Sequence[NewJob], *, idempotency: IdempotencyClaim | None = None
    ) -> list[JobReceipt]:
        """Accept all ``jobs`` in order, or none. The queue must exist (``queue_not_found``; never
        created here). A ``deduplication_id`` seen in this queue within its deduplication window
        (also earlier in the same batch) yields the first job's id with ``deduplicated=True``.
        At most once per ``idempotency`` key; every receipt of a replay is marked ``replayed``.
        """

    @abc.abstractmethod
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
        """Lease up to ``max_jobs`` available jobs (of ``topics``, if given), oldest first.

        Available: ``ready`` with ``available_at <= now``, or ``leased`` with an ended lease and
        attempts left. A job whose lease ended and has used ``max_attempts`` becomes ``dead``
        instead. Leasing adds one attempt and a fresh ``lease_id``; no job is ever leased to two
        workers at once, also across processes. ``lease_seconds`` defaults to the queue's.
        When nothing is available, wait up to ``wait_ms``.
        """

    @abc.abstractmethod
    async def ack_job(self, queue: str, job_id: str, lease_id: str) -> JobRecord:
        """Mark the job ``succeeded``. ``ConflictError("lease_expired")`` unless ``lease_id`` is its
        current, unexpired lease; ``job_not_found`` / ``queue_not_found`` as usual.
        """

    @abc.abstractmethod
    async def nack_job(
        self, queue: str, job_id: str, lease_id: str, *, retry_delay: int, error: str | None
    ) -> JobRecord:
        """End the lease: the job is ready again after ``retry_delay`` seconds, or ``dead`` when it
        used ``max_attempts``. ``error`` becomes ``last_error``. Same lease rule as ``ack_job``.
        """

    @abc.abstractmethod
    async def extend_lease(
        self, queue: str, job_id: str, lease_id: str, *, lease_seconds: int
    ) -> JobRecord:
        """Set the lease to end ``lease_seconds`` from now. Same lease rule as ``ack_job``."""

    @abc.abstractmethod
    async def get_job(self, queue: str, job_id: str) -> JobRecord:
        """The job (``queue_not_found`` / ``job_not_found``)."""

    @abc.abstractmethod
    async def list_jobs(self, queue: str, *, state: JobState | None, limit: int) -> list[JobRecord]:
        """Up to ``limit`` jobs of ``state`` (all states when None), oldest first."""

    @abc.abstractmethod
    async def retry_job(self, queue: str, job_id: str) -> JobRecord:
        """Make a ``dead`` job ``ready`` now with attempts reset to 0;
        ``ConflictError("invalid_state")`` for any other state.
        """

    # Messages ------------------------------------------------------------------------------

    @abc.abstractmethod
    async def publish_messages(
        self,
        messages: Sequence[NewMessage],
        *,
        lease: MessageLease | None = None,
        idempotency: IdempotencyClaim | None = None,
    ) -> list[MessageReceipt]:
        """Accept all ``messages`` in order, or none, each ``scheduled`` for ``not_before``.
        A message whose ``dedup_key`` names a message created within its ``dedup_window`` (also
        earlier in the same call) yields that message's id with ``deduplicated=True``. At most
        once per ``idempotency`` key; every receipt of a replay is marked ``replayed``.

        With ``lease`` (how the delivery engine publishes a message's callbacks), publish only
        while that lease is current by ``record_attempt``'s rule, else raise
        ``ConflictError("lease_expired")`` and publish nothing: a process whose claim was taken
        over cannot report an outcome. ``message_not_found`` when the leased message does not exist.
        """

    @abc.abstractmethod
    async def get_message(self, message_id: str) -> MessageRecord:
        """The message with its attempts (``message_not_found``)."""

    @abc.abstractmethod
    async def cancel_message(self, message_id: str) -> MessageRecord:
        """Cancel a ``scheduled`` message; ``ConflictError("invalid_state")`` for any other state."""

    @abc.abstractmethod
    async def claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """For the delivery engine: atomically move up to ``limit`` messages that are
        ``scheduled`` with ``next_attempt_at <= now`` to ``delivering``, each under a fresh
        ``lease_id`` and a lease of its own ``timeout + lease_margin`` seconds:
        ``next_attempt_at = now + timeout + lease_margin``. A ``delivering`` message whose lease
        ended (its process died) is due again, and claiming it again replaces its ``lease_id``. No
        message is claimed by two callers at once. A negative (or not finite) ``lease_margin`` is
        ``validation_failed``.
        """

    @abc.abstractmethod
    async def record_attempt(
        self,
        message_id: str,
        attempt: DeliveryAttemptRecord,
        *,
        lease_id: str,
        outcome: Literal["delivered", "retry", "failed"],
        next_attempt_at: float | None = None,
    ) -> MessageRecord:
        """Append ``attempt``, add one to ``retries_used`` and settle the message, ending its lease
        (``lease_id`` becomes None): ``delivered``; ``retry`` (back to ``scheduled`` at
        ``next_attempt_at``); or ``failed``, which also adds a dead letter.

        The lease must be current: the message is ``delivering`` under ``lease_id``. Otherwise
        (another claim replaced it after it ended, or its attempt was already recorded) this
        raises ``ConflictError("lease_expired")`` and writes nothing. A lease that ended without
        being claimed again is still current. An unknown message is ``message_not_found``
        whatever the lease; a ``retry`` without ``next_attempt_at`` or an unknown ``outcome`` is
        ``validation_failed``.
        """

    @abc.abstractmethod
    async def put_url_group(self, name: str, endpoints: Sequence[UrlEndpoint]) -> UrlGroupRecord:
        """Create the group or replace its endpoints."""

    @abc.abstractmethod
    async def get_url_group(self, name: str) -> UrlGroupRecord:
        """The group (``url_group_not_found``)."""

    @abc.abstractmethod
    async def list_url_groups(self) -> list[UrlGroupRecord]:
        """Every URL group, by name."""

    @abc.abstractmethod
    async def delete_url_group(self, name: str) -> None:
        """Delete the group (``url_group_not_found``)."""

    @abc.abstractmethod
    async def list_dead_letters(self, *, limit: int) -> list[DeadLetterRecord]:
        """Up to ``limit`` dead letters, oldest first."""

    @abc.abstractmethod
    async def delete_dead_letter(self, message_id: str) -> None:
        """Forget a dead letter (``dead_letter_not_found``); the message stays readable."""

    @abc.abstractmethod
    async def retry_dead_letter(self, message_id: str) -> MessageRecord:
        """Remove the dead letter and schedule the message now with a fresh retry budget:
        ``retries_used`` is 0 again, while earlier attempts stay in its history
        (``dead_letter_not_found``).
        """

    @abc.abstractmethod
    async def next_due_at(self) -> float | None:
        """For the delivery engine: the earliest ``next_attempt_at`` of the messages that are
        ``scheduled`` or ``delivering`` (for a delivering message, when its lease ends), whether
        that time has passed or not; None when no message is either. A claim with ``now`` at or
        after that time finds the message, unless it was claimed, settled or cancelled meanwhile.
        Reads only.
        """

    # Quotas --------------------------------------------------------------------------------

    @abc.abstractmethod
    async def consume_quota(self, token_id: str, amount: int, *, limit: int) -> bool:
        """Add ``amount`` to the token's message count if that keeps it within ``limit``; return
        whether it did. Atomic across processes.
        """

    @abc.abstractmethod
    async def refund_quota(self, token_id: str, amount: int) -> None:
        """Take ``amount`` back off the token's message count (a publish that then failed)."""

    # Rate limits ---------------------------------------------------------------------------

    @abc.abstractmethod
    async def take_rate_token(self, key: str, *, per_second: float, burst: int) -> float:
        """Take one token from ``key``'s bucket and answer 0, or take nothing and answer the
        seconds until a token is there. A bucket holds up to ``burst`` tokens (a new one is full)
        and gains ``per_second`` a second; it is one bucket for every process sharing the
        backend, by one clock (the backend's). ``check_token_bucket`` says what is refused.
        """
