"""The request objects the SDK accepts besides plain arguments, and the API's enumerations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal, TypeAlias

from ._durations import Duration, Timestamp
from ._keywords import suggests_init_keywords

__all__ = [
    "FlowControl",
    "HttpMethod",
    "JobRequest",
    "JobState",
    "LogState",
    "MessageRequest",
    "MessageState",
    "Redact",
    "SignatureScheme",
    "UrlEndpoint",
]

JobState: TypeAlias = Literal["ready", "delayed", "leased", "succeeded", "dead"]
MessageState: TypeAlias = Literal["scheduled", "delivering", "delivered", "failed", "cancelled"]
# What a message's log event says happened (`client.logs`).
LogState: TypeAlias = Literal[
    "created", "scheduled", "retry", "delivered", "failed", "dead_lettered", "cancelled"
]
HttpMethod: TypeAlias = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
# How deliveries of a message are signed: a Spool-Signature JWT, which `sdk.Receiver` verifies,
# or the Standard Webhooks headers, which receivers built for other webhook senders verify.
SignatureScheme: TypeAlias = Literal["spool", "standard_webhooks"]


@suggests_init_keywords
@dataclass(frozen=True, slots=True)
class JobRequest:
    """One job of `Queue.publish_many`."""

    topic: str
    payload: Any
    delay: Duration | None = field(default=None, kw_only=True)
    deduplication_id: str | None = field(default=None, kw_only=True)


@suggests_init_keywords
@dataclass(frozen=True, slots=True)
class Redact:
    """What of a message the service delivers but never shows again: with `body`, a schedule's
    message shows its body as `"[redacted]"`; each header named in `headers` (in any letter
    case) shows its value as `"[redacted]"`, in `headers`, `callback_headers` and
    `failure_callback_headers` alike, wherever the message is shown (`messages.get`, listings,
    schedules, the console, the CLI).
    """

    body: bool = False
    headers: tuple[str, ...] = ()


@suggests_init_keywords
@dataclass(frozen=True, slots=True)
class FlowControl:
    """Limits shared by every message published with the same `key`, across every service
    process: at most `rate` delivery attempts start in any `period` (a duration of whole seconds
    up to a day, 1 second when not given), and at most `parallelism` are in flight at once. Give
    at least one of `rate` and `parallelism`. A message over a limit waits and is delivered
    later; none is dropped, and retries count like first attempts. The key's limits are those
    of its latest publish. With `parallelism=1` the key's messages are delivered one at a time,
    in publish order: one waiting for its delay or its next retry holds back those behind it.
    """

    key: str
    rate: int | None = field(default=None, kw_only=True)
    period: Duration | None = field(default=None, kw_only=True)
    parallelism: int | None = field(default=None, kw_only=True)


@suggests_init_keywords
@dataclass(frozen=True, slots=True)
class MessageRequest:
    """One message of `messages.batch`: a `str` or `bytes` body is sent as is, others as JSON.

    Give exactly one of `url` and `url_group`; the options mean what they mean for
    `messages.publish_json`.
    """

    body: Any
    url: str | None = field(default=None, kw_only=True)
    url_group: str | None = field(default=None, kw_only=True)
    content_type: str | None = field(default=None, kw_only=True)
    method: HttpMethod | None = field(default=None, kw_only=True)
    headers: dict[str, str] | None = field(default=None, kw_only=True)
    delay: Duration | None = field(default=None, kw_only=True)
    not_before: Timestamp | None = field(default=None, kw_only=True)
    retries: int | None = field(default=None, kw_only=True)
    retry_delay: str | timedelta | None = field(default=None, kw_only=True)
    callback: str | None = field(default=None, kw_only=True)
    callback_headers: dict[str, str] | None = field(default=None, kw_only=True)
    failure_callback: str | None = field(default=None, kw_only=True)
    failure_callback_headers: dict[str, str] | None = field(default=None, kw_only=True)
    timeout: Duration | None = field(default=None, kw_only=True)
    deduplication_id: str | None = field(default=None, kw_only=True)
    content_based_deduplication: bool = field(default=False, kw_only=True)
    redact: Redact | Mapping[str, Any] | None = field(default=None, kw_only=True)
    flow_control: FlowControl | Mapping[str, Any] | None = field(default=None, kw_only=True)
    signature_scheme: SignatureScheme | None = field(default=None, kw_only=True)
    labels: Sequence[str] | None = field(default=None, kw_only=True)


@suggests_init_keywords
@dataclass(frozen=True, slots=True)
class UrlEndpoint:
    """One URL of a URL group, with an optional name."""

    url: str
    name: str | None = None
