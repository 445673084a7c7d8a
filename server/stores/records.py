"""What a store takes and answers: the records of streams, queues, messages and idempotency.

Times are floats of seconds since the epoch (``time.time()``) unless a name ends in ``_ms``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from .message_filter import MessageFilter

__all__ = [
    "JSON",
    "AppendResult",
    "ClaimResult",
    "ConsoleSession",
    "DeadLetterFilter",
    "DeadLetterPage",
    "DeadLetterPosition",
    "DeadLetterRecord",
    "DeliveredEntry",
    "DeliveryAttemptRecord",
    "Entry",
    "FlowControlLimits",
    "FlowControlPage",
    "FlowControlState",
    "GroupInfo",
    "IdempotencyClaim",
    "JobAckOutcome",
    "JobAttemptOutcome",
    "JobAttemptRecord",
    "JobReceipt",
    "JobRecord",
    "JobReleaseOutcome",
    "JobState",
    "LeasedJob",
    "MessageLease",
    "MessageReceipt",
    "MessageRecord",
    "MessagePage",
    "MessageState",
    "LogEventRecord",
    "LogPage",
    "LogState",
    "NewJob",
    "NewMessage",
    "PendingEntry",
    "QueueRecord",
    "QueueSettings",
    "QueueStats",
    "ScheduleCatchUp",
    "ScheduleOutcome",
    "SchedulePage",
    "ScheduleRecord",
    "ScheduleRun",
    "ScheduleSettings",
    "ScheduleTick",
    "SignatureScheme",
    "StreamInfo",
    "StreamPage",
    "StreamSummary",
    "Trim",
    "TrimResult",
    "UrlEndpoint",
    "UrlGroupRecord",
]

JSON = Any
JobState = Literal["ready", "delayed", "leased", "succeeded", "dead"]
# What ``ack_jobs`` says of each job: acknowledged now, or why not.
JobAckOutcome = Literal["acked", "lease_expired", "job_not_found"]
# What ``release_jobs`` says of each job: released now, or why not.
JobReleaseOutcome = Literal["released", "lease_expired", "job_not_found"]
# How one lease of a job ended (server/stores/job_history.py).
JobAttemptOutcome = Literal["succeeded", "failed", "lease_expired", "released"]
MessageState = Literal["scheduled", "delivering", "delivered", "failed", "cancelled"]
SignatureScheme = Literal["spool", "standard_webhooks"]
# What a message's log event says happened (``Store.list_logs``).
LogState = Literal[
    "created", "scheduled", "retry", "delivered", "failed", "dead_lettered", "cancelled"
]
ScheduleCatchUp = Literal["once", "skip"]
ScheduleOutcome = Literal["published", "failed", "skipped"]


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
    traceparent: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class DeliveredEntry:
    """An entry handed to a consumer of a group, with how often it was delivered."""

    id: str
    body: JSON
    delivery_count: int
    traceparent: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class GroupInfo:
    """A consumer group's position and size; ``max_deliveries`` None means unlimited. ``lag`` is
    how many entries after ``last_delivered_id`` the group has yet to read, None where the store
    cannot tell it without reading them.
    """

    group: str
    consumers: int
    pending: int
    last_delivered_id: str
    max_deliveries: int | None = None
    lag: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class StreamInfo:
    """A stream's length, ends and groups; ``first_id``/``last_id`` are None when it is empty."""

    stream: str
    length: int
    first_id: str | None
    last_id: str | None
    groups: list[GroupInfo]


@dataclasses.dataclass(frozen=True, slots=True)
class StreamSummary:
    """A stream as a listing shows it: its length, ends and how many consumer groups it has."""

    stream: str
    length: int
    first_id: str | None
    last_id: str | None
    group_count: int


@dataclasses.dataclass(frozen=True, slots=True)
class StreamPage:
    """One page of a stream listing; ``next_cursor`` is None after the last page."""

    streams: list[StreamSummary]
    next_cursor: str | None


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
    traceparent: str | None = None
    leased_at: float | None = None
    finished_at: float | None = None
    attempt_history: tuple[JobAttemptRecord, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class JobAttemptRecord:
    """One lease of a job: who took it and when, and (once it ended) when and how."""

    number: int
    leased_at: float
    consumer: str | None = None
    ended_at: float | None = None
    outcome: JobAttemptOutcome | None = None
    error: str | None = None


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
    traceparent: str | None = None


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
class FlowControlLimits:
    """A message's flow control: its ``key`` and the limits it was published with, ``period`` in
    seconds. At least one of ``rate`` and ``parallelism`` is given; the route checks that.
    """

    key: str
    rate: int | None = None
    period: int = 1
    parallelism: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class FlowControlState:
    """A flow control key as the store keeps it: the limits of the latest publish that named it
    (all None before any), whether it is paused, its ``scheduled`` messages (``waiting``), its
    attempts under a live lease (``in_flight``) and the attempts that started in the last
    ``period`` (``rate_used``).
    """

    key: str
    rate: int | None
    period: int | None
    parallelism: int | None
    paused: bool
    waiting: int
    in_flight: int
    rate_used: int


@dataclasses.dataclass(frozen=True, slots=True)
class FlowControlPage:
    """One page of a flow control key listing, by key; ``next_cursor`` is None after the last."""

    keys: list[FlowControlState]
    next_cursor: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class NewMessage:
    """One HTTP message to one URL, everything its deliveries need.

    ``body`` is the exact bytes to send. ``dedup_key`` (already scoped by the caller: destination
    plus deduplication id or content hash) makes the store return the earlier message's id instead
    of creating one, while that earlier message was created less than ``dedup_window`` seconds ago.
    ``item`` is the caller's number for the request item the message came from (a URL group fans
    one item out to a message per endpoint); the receipt carries it back, replayed ones included.
    ``callback_headers`` and ``failure_callback_headers`` go with the callbacks of its outcome.
    ``redact_body`` and ``redact_headers`` (names) say what reads must not show; the store keeps
    the values as they are. ``flow_control`` puts the message under its key's limits, which
    become the key's own (the latest publish sets them). ``signature_scheme`` says how its
    deliveries are signed (server/delivery/attempt.py). ``labels`` and ``schedule`` (the name of
    the schedule that published it) are kept for finding it (``MessageFilter``).
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
    callback_headers: dict[str, str] = dataclasses.field(default_factory=dict)
    failure_callback_headers: dict[str, str] = dataclasses.field(default_factory=dict)
    redact_body: bool = False
    redact_headers: tuple[str, ...] = ()
    flow_control: FlowControlLimits | None = None
    signature_scheme: SignatureScheme = "spool"
    labels: tuple[str, ...] = ()
    schedule: str | None = None


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
    traceparent: str | None = None
    callback_headers: dict[str, str] = dataclasses.field(default_factory=dict)
    failure_callback_headers: dict[str, str] = dataclasses.field(default_factory=dict)
    redact_body: bool = False
    redact_headers: tuple[str, ...] = ()
    flow_control: FlowControlLimits | None = None
    signature_scheme: SignatureScheme = "spool"
    labels: tuple[str, ...] = ()
    schedule: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class MessagePage:
    """One page of a message listing, newest first; ``next_cursor`` is None after the last page."""

    messages: list[MessageRecord]
    next_cursor: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class LogEventRecord:
    """One change of a message's state, with what its message is found by: its URL, URL group,
    labels, schedule and flow control key (never its body or headers). ``attempt``,
    ``status_code`` and ``error`` are the delivery attempt's that led to it, if one did.
    """

    message_id: str
    state: LogState
    at: float
    url: str
    labels: tuple[str, ...] = ()
    url_group: str | None = None
    schedule: str | None = None
    flow_control_key: str | None = None
    attempt: int | None = None
    status_code: int | None = None
    error: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class LogPage:
    """One page of a log listing, newest first; ``next_cursor`` is None after the last page."""

    events: list[LogEventRecord]
    next_cursor: str | None


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
    url_group: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class DeadLetterFilter:
    """Which dead letters a bulk retry or delete acts on: every field given must match (None
    matches anything). ``url``, ``url_group``, ``label``, ``schedule`` and ``flow_control_key``
    match the letter's message as the same parts of ``MessageFilter`` do; ``filed_from`` and
    ``filed_to`` bound ``failed_at``, from included and to not. The backends match it as
    ``messages()``, so a new message part needs only its line there.
    """

    url: str | None = None
    url_group: str | None = None
    label: str | None = None
    schedule: str | None = None
    flow_control_key: str | None = None
    filed_from: float | None = None
    filed_to: float | None = None

    def messages(self) -> MessageFilter:
        """The filter as a ``MessageFilter`` on the letters' messages, its times the filing
        times (``since`` from, ``until`` to).
        """
        return MessageFilter(
            url=self.url,
            url_group=self.url_group,
            label=self.label,
            schedule=self.schedule,
            flow_control_key=self.flow_control_key,
            since=self.filed_from,
            until=self.filed_to,
        )


@dataclasses.dataclass(frozen=True, slots=True)
class DeadLetterPosition:
    """Where a walk through the dead letters goes on: after the one filed at ``failed_at`` with
    ``sequence`` (which orders letters filed at the same time), among those filed by ``horizon``,
    the store's time at the walk's first page. The horizon ends the walk: a letter retried by it
    and dead-lettered again is filed after it, so the walk does not come to it a second time.
    """

    failed_at: float
    sequence: int
    horizon: float


@dataclasses.dataclass(frozen=True, slots=True)
class DeadLetterPage:
    """One page of dead letters, oldest first: those of the page that matched the filter, and
    the cursor after the last one looked at (None once no dead letter is left to look at).
    """

    dead_letters: list[DeadLetterRecord]
    next_cursor: str | None


# Schedules -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class ScheduleSettings:
    """What a schedule is: its cron expression read in ``timezone``, what it does with missed
    ticks, and the destination it publishes each tick, as the API's JSON document (the store keeps
    it and gives it back; what it means is the service's business).
    """

    cron: str
    timezone: str
    catch_up: ScheduleCatchUp
    destination: JSON


@dataclasses.dataclass(frozen=True, slots=True)
class ScheduleRun:
    """One run of a schedule: the tick it was for, when it fired, and what came of it, the ids it
    published or the error code and detail of its failure.
    """

    tick_at: float
    fired_at: float
    outcome: ScheduleOutcome
    ids: tuple[str, ...] = ()
    error_code: str | None = None
    error_detail: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class ScheduleRecord:
    """A schedule as the store holds it.

    ``revision`` names this version of its settings: every put makes a new one, so a tick is
    known by the revision and the time it was for. ``next_run_at`` is the tick it fires for next
    (None while it is paused); ``recent_runs`` are its latest runs, newest first.
    """

    name: str
    settings: ScheduleSettings
    revision: str
    paused: bool
    created_at: float
    updated_at: float
    next_run_at: float | None
    last_run_at: float | None
    recent_runs: list[ScheduleRun]


@dataclasses.dataclass(frozen=True, slots=True)
class SchedulePage:
    """One page of a schedule listing, by name; ``next_cursor`` is None after the last page."""

    schedules: list[ScheduleRecord]
    next_cursor: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class ScheduleTick:
    """A tick a scheduler claimed: the schedule as it was claimed, the tick's time, and the
    ``lease_id`` its run is recorded under.
    """

    schedule: ScheduleRecord
    tick_at: float
    lease_id: str


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


# Console sessions ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class ConsoleSession:
    """A console sign-in the store keeps: the token it was made with, named by its id and a check
    value of its secret (never the secret), and its deadlines by the store's clock. It ends at
    ``expires_at`` whatever happens, and earlier once ``idle_seconds`` pass without a visit that
    touches it.
    """

    token_id: str
    token_check: str
    created_at: float
    expires_at: float
    idle_seconds: float
