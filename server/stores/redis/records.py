"""Records from what the Redis store's hashes and scripts answer, and a new message's hash."""

from __future__ import annotations

import base64
import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

from ..base import (
    JSON,
    DeliveryAttemptRecord,
    JobRecord,
    JobState,
    LogEventRecord,
    MessageRecord,
    MessageState,
    NewMessage,
    QueueRecord,
    QueueSettings,
    QueueStats,
    UrlEndpoint,
    UrlGroupRecord,
)
from ..job_history import as_read, leased_at
from ..lease_expiry import lease_expired_error
from ..message_options import dump_message_options, load_message_options
from ..records import JobAttemptOutcome, JobAttemptRecord
from .arguments import number_text

__all__ = [
    "attempt_json",
    "entry_body",
    "job_record",
    "log_event_record",
    "message_fields",
    "message_record",
    "optional_float",
    "optional_int",
    "pairs",
    "queue_record",
    "url_group_record",
]

_MESSAGE_OPTIONAL_TEXT = (
    "url_group",
    "retry_delay",
    "callback",
    "failure_callback",
    "deduplication_id",
)


def pairs(flat: Sequence[Any]) -> dict[str, str]:
    """A flat field/value list (HGETALL's answer) as a dict."""
    return {str(flat[index]): str(flat[index + 1]) for index in range(0, len(flat), 2)}


def _optional_float(fields: Mapping[str, str], name: str) -> float | None:
    value = fields.get(name)
    return None if value is None else float(value)


def optional_int(fields: Mapping[str, str], name: str) -> int | None:
    """The field as an int, or None when it is absent."""
    value = fields.get(name)
    return None if value is None else int(value)


def entry_body(text: str | None) -> JSON:
    """A stream entry's body from its ``b`` field."""
    return None if text is None else json.loads(text)


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


def job_record(queue: str, fields: Mapping[str, str], now: float) -> JobRecord:
    """A job from its hash (and its queue's ``max_attempts``), in its state at ``now``."""
    state = _job_state(fields, now)
    attempts, max_attempts = int(fields["attempts"]), int(fields["max_attempts"])
    last_error = fields.get("last_error")
    finished_at = optional_float(fields.get("finished_at"))
    if state == "dead" and fields["state"] == "leased":
        # Dead by the clock alone: the error and end the next script to settle the queue will
        # record.
        finished_at = float(fields["lease_expires_at"])
        last_error = lease_expired_error(
            fields.get("lease_id"), finished_at, attempts, max_attempts
        )
    lease_id = fields.get("lease_id")
    history = as_read(
        _attempt_history(fields.get("attempt_history")),
        state=state,
        stored_state=fields["state"],
        lease_id=lease_id,
        lease_expires_at=optional_float(fields.get("lease_expires_at")),
        attempts=attempts,
        max_attempts=max_attempts,
    )
    return JobRecord(
        job_id=fields["id"],
        queue=queue,
        topic=fields["topic"],
        payload=json.loads(fields["payload"]),
        state=state,
        attempts=attempts,
        max_attempts=max_attempts,
        published_at=float(fields["published_at"]),
        available_at=float(fields["available_at"]),
        lease_expires_at=float(fields["lease_expires_at"]) if state == "leased" else None,
        # An anonymous lease stores its consumer as "".
        leased_by=(fields.get("consumer") or None) if state == "leased" else None,
        last_error=last_error,
        deduplication_id=fields.get("deduplication_id"),
        traceparent=fields.get("traceparent"),
        leased_at=leased_at(history, state=state, lease_id=lease_id),
        finished_at=finished_at,
        attempt_history=history,
    )


def optional_float(text: str | None) -> float | None:
    """A number a hash may lack."""
    return None if text is None else float(text)


def _attempt_history(text: str | None) -> list[JobAttemptRecord]:
    """A job's attempts from the JSON that ``lua/lib/queue.lua`` keeps (``begin_attempt``)."""
    if text is None:
        return []
    attempts: list[dict[str, Any]] = json.loads(text)
    return [
        JobAttemptRecord(
            number=int(attempt["n"]),
            leased_at=float(attempt["at"]),
            # An anonymous lease stores its consumer as "".
            consumer=attempt.get("c") or None,
            ended_at=optional_float(attempt.get("end")),
            outcome=cast("JobAttemptOutcome | None", attempt.get("out")),
            error=attempt.get("err"),
        )
        for attempt in attempts
    ]


def queue_record(name: str, answer: Sequence[Any]) -> QueueRecord:
    """A queue from what ``queue_answer()`` (``lua/lib/queue.lua``) returns."""
    meta = pairs(answer[0])
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


def message_fields(
    message_id: str,
    message: NewMessage,
    *,
    headers: str,
    now: float,
    traceparent: str | None = None,
) -> list[str]:
    """A new message as the field/value items of its hash; ``headers`` is its headers' JSON."""
    fields: dict[str, str] = {
        "message_id": message_id,
        "url": message.url,
        "body": base64.b64encode(message.body).decode("ascii"),
        "content_type": message.content_type,
        "method": message.method,
        "headers": headers,
        "state": "scheduled",
        "retries": str(message.retries),
        "timeout": str(message.timeout),
        "created_at": number_text(now),
        "not_before": number_text(message.not_before),
        "next_attempt_at": number_text(message.not_before),
        "attempt_count": "0",
        "retries_used": "0",
    }
    for name in _MESSAGE_OPTIONAL_TEXT:
        value = getattr(message, name)
        if value is not None:
            fields[name] = value
    if traceparent is not None:
        fields["traceparent"] = traceparent
    options = dump_message_options(message)
    if options is not None:
        fields["options"] = options
    if message.flow_control is not None:
        # Beside the options, for the scripts that keep the key's limits (lua/lib/flow.lua).
        limits = message.flow_control
        fields["flow_key"] = limits.key
        fields["flow_period"] = str(limits.period)
        if limits.rate is not None:
            fields["flow_rate"] = str(limits.rate)
        if limits.parallelism is not None:
            fields["flow_parallelism"] = str(limits.parallelism)
    return [item for pair in fields.items() for item in pair]


def attempt_json(attempt: DeliveryAttemptRecord) -> str:
    """A delivery attempt as the JSON its message's hash keeps."""
    return json.dumps(dataclasses.asdict(attempt), separators=(",", ":"))


def message_record(fields: Mapping[str, str]) -> MessageRecord:
    """A message, with every attempt, from its hash."""
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
        traceparent=fields.get("traceparent"),
        **load_message_options(fields.get("options")),
    )


def log_event_record(
    member: str,
    url: str,
    url_group: str | None,
    flow_key: str | None,
    options: str | None,
) -> LogEventRecord:
    """An event as lua/list_logs.lua answers it: its member of the event set (lib/log.lua) and
    its message's fields.
    """
    event = json.loads(member)
    message_options = load_message_options(options)
    return LogEventRecord(
        message_id=event["id"],
        state=event["state"],
        at=float(event["at"]),
        url=url,
        labels=message_options["labels"],
        url_group=url_group,
        schedule=message_options["schedule"],
        flow_control_key=flow_key,
        attempt=event.get("attempt"),
        status_code=event.get("status_code"),
        error=event.get("error"),
    )


def url_group_record(name: str, stored: str, created_at: str | None) -> UrlGroupRecord:
    """A URL group from its ``<updated_at> <endpoints JSON>`` value and its creation time."""
    updated_at, _, endpoints_json = stored.partition(" ")
    return UrlGroupRecord(
        name=name,
        endpoints=[UrlEndpoint(**endpoint) for endpoint in json.loads(endpoints_json)],
        created_at=float(created_at if created_at is not None else updated_at),
        updated_at=float(updated_at),
    )
