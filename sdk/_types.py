"""What the SDK returns: plain frozen dataclasses.

Optional fields are `None` when absent (never the generated layer's UNSET), times are aware
datetimes and durations are timedeltas.

Creating these classes is a good part of what importing the SDK would cost, and a program needs
them only once answers arrive, so this module is imported then: by the first call that reads an
answer, or by `sdk.<name>` (see `sdk.__getattr__`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ._arguments import (
        FlowControl,
        HttpMethod,
        JobState,
        LogState,
        MessageState,
        Redact,
        SignatureScheme,
        UrlEndpoint,
    )
    from ._schedules import JobDestination, MessageDestination, ScheduleCatchUp, StreamDestination

__all__ = [
    "ClaimResult",
    "DeadLetter",
    "DeadLetterResult",
    "DeliveredEntry",
    "DeliveryAttempt",
    "Entry",
    "FlowControlState",
    "GroupInfo",
    "Health",
    "Job",
    "JobAckResult",
    "JobAttempt",
    "JobReceipt",
    "JobReleaseResult",
    "LeasedJob",
    "LogEvent",
    "Message",
    "MessageReceipt",
    "PendingEntry",
    "QueueInfo",
    "QueueStats",
    "Schedule",
    "ScheduleRun",
    "ScheduleRunError",
    "SigningKeys",
    "StandardWebhooksSecrets",
    "StreamInfo",
    "StreamSummary",
    "TokenInfo",
    "TokenPermission",
    "TokenRateLimit",
    "TrimResult",
    "UrlGroup",
]


@dataclass(frozen=True, slots=True)
class Entry:
    """A stream entry: its id and the JSON body that was appended."""

    id: str
    body: Any
    # The W3C traceparent it was published under, when the publisher sent one.
    traceparent: str | None = None


@dataclass(frozen=True, slots=True)
class DeliveredEntry:
    """An entry delivered to a consumer group, with how often it has been delivered."""

    id: str
    body: Any
    delivery_count: int
    traceparent: str | None = None


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """Pending entries taken over by a consumer, pending ids whose entries were trimmed, and
    pending ids moved to the dead-letter stream `<stream>.dead` (the group's `max_deliveries`).
    """

    entries: list[DeliveredEntry]
    deleted_ids: list[str]
    next_start_id: str
    dead_lettered_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class PendingEntry:
    """A delivered, unacknowledged entry: who holds it, for how long, how often delivered."""

    id: str
    consumer: str
    idle: timedelta
    delivery_count: int


@dataclass(frozen=True, slots=True)
class GroupInfo:
    """A consumer group of a stream; `max_deliveries` is None when unlimited."""

    group: str
    consumers: int
    pending: int
    last_delivered_id: str
    max_deliveries: int | None = None


@dataclass(frozen=True, slots=True)
class StreamInfo:
    """A stream's length, ends and consumer groups."""

    name: str
    length: int
    first_id: str | None
    last_id: str | None
    groups: list[GroupInfo]


@dataclass(frozen=True, slots=True)
class StreamSummary:
    """A stream as `streams.list()` shows it: its length, ends and how many consumer groups."""

    name: str
    length: int
    first_id: str | None
    last_id: str | None
    group_count: int


@dataclass(frozen=True, slots=True)
class TrimResult:
    """A stream's length after trimming and how many entries were removed."""

    length: int
    trimmed: int


@dataclass(frozen=True, slots=True)
class QueueStats:
    """How many jobs of a queue are in each state."""

    ready: int
    delayed: int
    leased: int
    dead: int


@dataclass(frozen=True, slots=True)
class QueueInfo:
    """A queue's settings and job counts."""

    name: str
    max_attempts: int
    lease: timedelta
    retention: timedelta
    deduplication_window: timedelta
    created_at: datetime
    stats: QueueStats


@dataclass(frozen=True, slots=True)
class JobReceipt:
    """Confirms a job was accepted (not that it ran); `deduplicated` when an earlier job matched."""

    job_id: str
    queue: str
    topic: str
    deduplicated: bool


@dataclass(frozen=True, slots=True)
class Job:
    """A job's payload, state and history."""

    job_id: str
    queue: str
    topic: str
    payload: Any
    state: JobState
    attempts: int
    max_attempts: int
    published_at: datetime
    available_at: datetime
    lease_expires_at: datetime | None
    leased_by: str | None
    last_error: str | None
    deduplication_id: str | None
    traceparent: str | None = None
    leased_at: datetime | None = None
    finished_at: datetime | None = None
    attempt_history: tuple[JobAttempt, ...] = ()


@dataclass(frozen=True, slots=True)
class JobAttempt:
    """One lease of a job, oldest first in `Job.attempt_history`: who took it and when, and once
    it ended, when and how (`succeeded`, `failed`, `released` or `lease_expired`) with its error.
    """

    number: int
    leased_at: datetime
    ended_at: datetime | None = None
    outcome: Literal["succeeded", "failed", "lease_expired", "released"] | None = None
    error: str | None = None
    consumer: str | None = None


@dataclass(frozen=True, slots=True)
class LeasedJob:
    """A job handed to a worker until `lease_expires_at`; ack or nack it with `lease_id`."""

    job_id: str
    queue: str
    topic: str
    payload: Any
    attempt: int
    lease_id: str
    lease_expires_at: datetime
    published_at: datetime
    traceparent: str | None = None


@dataclass(frozen=True, slots=True)
class JobAckResult:
    """What `Queue.ack_many` did with one job: acked, or why not (`code`: `lease_expired` when
    its lease ended or was already used, `job_not_found`).
    """

    job_id: str
    acked: bool
    code: Literal["lease_expired", "job_not_found"] | None = None


@dataclass(frozen=True, slots=True)
class JobReleaseResult:
    """What `Queue.release_many` did with one job: released, or why not (`code`:
    `lease_expired` when its lease ended or was already used, `job_not_found`).
    """

    job_id: str
    released: bool
    code: Literal["lease_expired", "job_not_found"] | None = None


@dataclass(frozen=True, slots=True)
class MessageReceipt:
    """Confirms a message to one URL was accepted; `deduplicated` when an earlier one matched."""

    message_id: str
    url: str
    deduplicated: bool


@dataclass(frozen=True, slots=True)
class DeliveryAttempt:
    """One try at delivering a message."""

    attempt: int
    started_at: datetime
    duration: timedelta
    status_code: int | None
    response_excerpt: str | None
    error: str | None


@dataclass(frozen=True, slots=True)
class Message:
    """A message's destination, options, state and every delivery attempt."""

    message_id: str
    url: str
    url_group: str | None
    method: HttpMethod
    content_type: str
    headers: dict[str, str]
    state: MessageState
    retries: int
    retry_delay: str | None
    timeout: timedelta
    created_at: datetime
    not_before: datetime
    next_attempt_at: datetime | None
    callback: str | None
    failure_callback: str | None
    deduplication_id: str | None
    attempts: list[DeliveryAttempt]
    traceparent: str | None = None
    callback_headers: dict[str, str] | None = None
    failure_callback_headers: dict[str, str] | None = None
    redact: Redact | None = None
    # As published, its period a timedelta of whole seconds.
    flow_control: FlowControl | None = None
    signature_scheme: SignatureScheme = "spool"
    # As published, each once.
    labels: tuple[str, ...] = ()
    # The schedule that published it, if one did.
    schedule: str | None = None


@dataclass(frozen=True, slots=True)
class LogEvent:
    """One change of a message's state (`client.logs()`), with what the message is found by;
    `attempt`, `status_code` and `error` are those of the delivery attempt that led to it.
    """

    message_id: str
    state: LogState
    at: datetime
    url: str
    labels: tuple[str, ...]
    url_group: str | None = None
    schedule: str | None = None
    flow_control_key: str | None = None
    attempt: int | None = None
    status_code: int | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class FlowControlState:
    """A flow control key: its limits, from the latest publish that named it (None before any),
    whether it is paused, how many of its messages wait (for their time, a retry or the
    limits), how many attempts are in flight, and how many started in the last `period`.
    """

    key: str
    rate: int | None
    period: timedelta | None
    parallelism: int | None
    paused: bool
    waiting: int
    in_flight: int
    rate_used: int


@dataclass(frozen=True, slots=True)
class UrlGroup:
    """A named set of URLs that a message can be published to at once."""

    name: str
    endpoints: list[UrlEndpoint]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """A message whose retries ran out, with its last error."""

    message_id: str
    url: str
    attempts: int
    last_error: str | None
    last_status_code: int | None
    failed_at: datetime


@dataclass(frozen=True, slots=True)
class DeadLetterResult:
    """What `DeadLetters.retry_many` or `delete_many` did with one named id: `retried` or
    `deleted`, `not_found` (no dead letter of that id, or another call took it first) or
    `permission_denied` (the token lacks `admin` on its URL and URL group; it was left alone).
    """

    message_id: str
    outcome: Literal["retried", "deleted", "not_found", "permission_denied"]


@dataclass(frozen=True, slots=True)
class StandardWebhooksSecrets:
    """The signing keys as Standard Webhooks secrets (`whsec_...`), for receivers of messages
    published with `signature_scheme="standard_webhooks"`; kept out of repr.
    """

    current: str = field(repr=False)
    next: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class SigningKeys:
    """The keys that sign deliveries (`current`, `next`), and the same two as Standard Webhooks
    secrets (`standard_webhooks`); kept out of repr because they are secrets.
    """

    current: str = field(repr=False)
    next: str = field(repr=False)
    standard_webhooks: StandardWebhooksSecrets


@dataclass(frozen=True, slots=True)
class Health:
    """Whether the service and its store answer, which store it uses, and its version."""

    status: Literal["ok"]
    store: Literal["sqlite", "redis"]
    version: str


@dataclass(frozen=True, slots=True)
class TokenPermission:
    """One permission of a token: the actions it may take on the resources of a kind (`*`:
    every kind) whose names (for messages, their URLs or URL groups) match the glob `name`.
    """

    resource: Literal["stream", "queue", "message", "url_group", "schedule", "*"]
    name: str
    actions: list[Literal["publish", "consume", "admin"]]


@dataclass(frozen=True, slots=True)
class TokenRateLimit:
    """A token's rate limit: a bucket of `burst` requests, refilled at `per_second`."""

    per_second: float
    burst: int


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """The token a client calls with, as the service knows it (`client.whoami()`): its id,
    never its secret; its permissions as configured; its quota and rate limit, when it has them;
    and whether it is the token of a service in development mode, which may do everything.
    """

    id: str
    development: bool
    permissions: list[TokenPermission]
    quota: int | None
    rate_limit: TokenRateLimit | None


@dataclass(frozen=True, slots=True)
class ScheduleRunError:
    """Why a schedule's run failed: the ErrorCode its publish answered, and the detail."""

    code: str
    detail: str


@dataclass(frozen=True, slots=True)
class ScheduleRun:
    """One run of a schedule: the tick it was for, when it fired, and what came of it, the ids
    it published (message ids, a job id or an entry id; none unless `outcome` is "published") or
    the `error` it failed with.
    """

    tick_at: datetime
    fired_at: datetime
    outcome: Literal["published", "failed", "skipped"]
    ids: list[str]
    error: ScheduleRunError | None


@dataclass(frozen=True, slots=True)
class Schedule:
    """A cron schedule: its timetable, destination, state and most recent runs (newest first).

    `next_run_at` is None while it is paused; `last_run_at` before its first run.
    """

    name: str
    cron: str
    timezone: str
    catch_up: ScheduleCatchUp
    destination: MessageDestination | JobDestination | StreamDestination
    paused: bool
    created_at: datetime
    updated_at: datetime
    last_run_at: datetime | None
    next_run_at: datetime | None
    recent_runs: list[ScheduleRun]


# Shown as sdk.Message rather than sdk._types.Message, like the classes sdk/__init__.py exports.
for _name in __all__:
    globals()[_name].__module__ = "sdk"
del _name
