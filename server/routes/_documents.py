"""The service's response documents: one function per response schema of openapi.yaml, mapping
the store's records to the wire.

Each builds plain dicts rather than the generated pydantic models, which would cost every answer a
validation (the publish responses are on the hot path); ``SCHEMAS`` names the generated model
each function's documents follow, and tests/server/test_routes_documents.py validates every one
of them against it, with every field given, so a builder cannot drift from the spec. Optional
fields that are absent are left out, never written as null (``next_cursor`` is required and
nullable, so it stays).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from ..auth import Principal
from ..redaction import redact_headers, redact_message_request
from ..signing import SigningKeys, standard_webhooks_secret
from ..stores.base import (
    JSON,
    DeadLetterRecord,
    DeliveredEntry,
    DeliveryAttemptRecord,
    Entry,
    FlowControlLimits,
    FlowControlState,
    GroupInfo,
    JobAckOutcome,
    JobReceipt,
    JobRecord,
    JobReleaseOutcome,
    LeasedJob,
    LogEventRecord,
    MessageReceipt,
    MessageRecord,
    PendingEntry,
    QueueRecord,
    ScheduleRecord,
    ScheduleRun,
    StreamInfo,
    StreamSummary,
    UrlGroupRecord,
)
from ..stores.records import JobAttemptRecord
from ._responses import rfc3339, without_none

__all__ = [
    "SCHEMAS",
    "ack_result",
    "append_entries_result",
    "append_entry_result",
    "claim_result",
    "dead_letter_bulk_result",
    "dead_letter_list",
    "flow_control_list",
    "flow_control_state",
    "delivered_entry_list",
    "entry_list",
    "group_info",
    "health",
    "job",
    "job_ack_results",
    "job_release_results",
    "job_list",
    "job_receipt",
    "job_receipt_list",
    "leased_job_list",
    "log_list",
    "message",
    "message_batch_result",
    "message_list",
    "message_receipt",
    "message_receipt_list",
    "pending_list",
    "queue",
    "queue_list",
    "schedule",
    "schedule_list",
    "signing_keys",
    "stream_info",
    "stream_list",
    "token_info",
    "trim_result",
    "url_group",
    "url_group_list",
]

Document = dict[str, object]
BuilderT = TypeVar("BuilderT", bound=Callable[..., Document])

# Each builder's name -> the name of the schema (and of the generated model) its documents follow.
SCHEMAS: dict[str, str] = {}


def _answers(schema: str) -> Callable[[BuilderT], BuilderT]:
    """Record that the decorated builder's documents are ``schema``'s; the builder is unchanged."""

    def record(builder: BuilderT) -> BuilderT:
        SCHEMAS[builder.__name__] = schema
        return builder

    return record


# System ----------------------------------------------------------------------------------------


@_answers("Health")
def health(store: str, version: str) -> Document:
    """getHealth: the store answers."""
    return {"status": "ok", "store": store, "version": version}


@_answers("TokenInfo")
def token_info(principal: Principal, development: bool) -> Document:
    """getToken: the calling token as configured, without its secret."""
    document: Document = {
        "id": principal.token_id,
        "development": development,
        "permissions": [
            {
                "resource": permission.resource,
                "name": permission.name,
                "actions": sorted(permission.actions),
            }
            for permission in principal.permissions
        ],
    }
    if principal.quota is not None:
        document["quota"] = principal.quota
    if principal.rate_limit is not None:
        document["rate_limit"] = {
            "per_second": principal.rate_limit.per_second,
            "burst": principal.rate_limit.burst,
        }
    return document


# Streams ---------------------------------------------------------------------------------------


@_answers("GroupInfo")
def group_info(group: GroupInfo) -> Document:
    """createGroup, and each group of a StreamInfo."""
    return without_none(
        {
            "group": group.group,
            "consumers": group.consumers,
            "pending": group.pending,
            "last_delivered_id": group.last_delivered_id,
            "max_deliveries": group.max_deliveries,
        }
    )


@_answers("StreamInfo")
def stream_info(info: StreamInfo) -> Document:
    """getStream: the store's StreamInfo record on the wire."""
    return without_none(
        {
            "stream": info.stream,
            "length": info.length,
            "first_id": info.first_id,
            "last_id": info.last_id,
            "groups": [group_info(group) for group in info.groups],
        }
    )


def _summary(summary: StreamSummary) -> Document:
    return without_none(
        {
            "stream": summary.stream,
            "length": summary.length,
            "first_id": summary.first_id,
            "last_id": summary.last_id,
            "group_count": summary.group_count,
        }
    )


@_answers("StreamList")
def stream_list(summaries: Sequence[StreamSummary], next_cursor: str | None) -> Document:
    """listStreams: one page."""
    return {"streams": [_summary(s) for s in summaries], "next_cursor": next_cursor}


@_answers("AppendEntryResult")
def append_entry_result(entry_id: str, stream: str, length: int, trimmed: int) -> Document:
    """appendEntry."""
    return {"id": entry_id, "stream": stream, "length": length, "trimmed": trimmed}


@_answers("AppendEntriesResult")
def append_entries_result(stream: str, ids: list[str], length: int, trimmed: int) -> Document:
    """appendEntries."""
    return {"stream": stream, "ids": ids, "length": length, "trimmed": trimmed}


def _entry(entry: Entry) -> Document:
    document: Document = {"id": entry.id, "body": entry.body}
    if entry.traceparent is not None:
        document["traceparent"] = entry.traceparent
    return document


@_answers("EntryList")
def entry_list(stream: str, entries: Sequence[Entry]) -> Document:
    """rangeEntries."""
    return {"stream": stream, "entries": [_entry(entry) for entry in entries]}


@_answers("TrimResult")
def trim_result(stream: str, length: int, trimmed: int) -> Document:
    """trimStream."""
    return {"stream": stream, "length": length, "trimmed": trimmed}


def _delivered(entry: DeliveredEntry) -> Document:
    document: Document = {
        "id": entry.id,
        "body": entry.body,
        "delivery_count": entry.delivery_count,
    }
    if entry.traceparent is not None:
        document["traceparent"] = entry.traceparent
    return document


@_answers("DeliveredEntryList")
def delivered_entry_list(stream: str, group: str, entries: Sequence[DeliveredEntry]) -> Document:
    """readGroup."""
    return {
        "stream": stream,
        "group": group,
        "entries": [_delivered(entry) for entry in entries],
    }


@_answers("AckResult")
def ack_result(acked: int) -> Document:
    """ackEntries."""
    return {"acked": acked}


@_answers("ClaimResult")
def claim_result(
    stream: str,
    group: str,
    next_start_id: str,
    entries: Sequence[DeliveredEntry],
    deleted_ids: list[str],
    dead_lettered_ids: list[str],
) -> Document:
    """claimEntries."""
    return {
        "stream": stream,
        "group": group,
        "next_start_id": next_start_id,
        "entries": [_delivered(entry) for entry in entries],
        "deleted_ids": deleted_ids,
        "dead_lettered_ids": dead_lettered_ids,
    }


@_answers("PendingList")
def pending_list(stream: str, group: str, pending: Sequence[PendingEntry]) -> Document:
    """listPending."""
    return {
        "stream": stream,
        "group": group,
        "pending": [
            {
                "id": item.id,
                "consumer": item.consumer,
                "idle_ms": item.idle_ms,
                "delivery_count": item.delivery_count,
            }
            for item in pending
        ],
    }


# Queues ----------------------------------------------------------------------------------------


@_answers("Queue")
def queue(record: QueueRecord) -> Document:
    """putQueue and getQueue."""
    return {
        "name": record.name,
        "max_attempts": record.settings.max_attempts,
        "lease_seconds": record.settings.lease_seconds,
        "retention_seconds": record.settings.retention_seconds,
        "deduplication_window_seconds": record.settings.deduplication_window_seconds,
        "created_at": rfc3339(record.created_at),
        "stats": {
            "ready": record.stats.ready,
            "delayed": record.stats.delayed,
            "leased": record.stats.leased,
            "dead": record.stats.dead,
        },
    }


@_answers("QueueList")
def queue_list(records: Sequence[QueueRecord]) -> Document:
    """listQueues."""
    return {"queues": [queue(record) for record in records]}


@_answers("JobReceipt")
def job_receipt(receipt: JobReceipt) -> Document:
    """publishJob, and each receipt of publishJobs."""
    return {
        "job_id": receipt.job_id,
        "queue": receipt.queue,
        "topic": receipt.topic,
        "deduplicated": receipt.deduplicated,
    }


@_answers("JobReceiptList")
def job_receipt_list(receipts: Sequence[JobReceipt]) -> Document:
    """publishJobs."""
    return {"receipts": [job_receipt(r) for r in receipts]}


@_answers("Job")
def job(record: JobRecord) -> Document:
    """getJob, ackJob, nackJob, extendLease and retryJob."""
    optional = without_none(
        {
            "lease_expires_at": None
            if record.lease_expires_at is None
            else rfc3339(record.lease_expires_at),
            "leased_by": record.leased_by,
            "last_error": record.last_error,
            "deduplication_id": record.deduplication_id,
            "traceparent": record.traceparent,
            "leased_at": None if record.leased_at is None else rfc3339(record.leased_at),
            "finished_at": None if record.finished_at is None else rfc3339(record.finished_at),
            "attempt_history": [_job_attempt(attempt) for attempt in record.attempt_history]
            or None,
        }
    )
    return {
        "job_id": record.job_id,
        "queue": record.queue,
        "topic": record.topic,
        "payload": record.payload,
        "state": record.state,
        "attempts": record.attempts,
        "max_attempts": record.max_attempts,
        "published_at": rfc3339(record.published_at),
        "available_at": rfc3339(record.available_at),
        **optional,
    }


def _job_attempt(attempt: JobAttemptRecord) -> Document:
    return {
        "number": attempt.number,
        "leased_at": rfc3339(attempt.leased_at),
        **without_none(
            {
                "ended_at": None if attempt.ended_at is None else rfc3339(attempt.ended_at),
                "outcome": attempt.outcome,
                "error": attempt.error,
                "consumer": attempt.consumer,
            }
        ),
    }


@_answers("AckJobsResult")
def job_ack_results(job_ids: Sequence[str], outcomes: Sequence[JobAckOutcome]) -> Document:
    """ackJobs: one result per job, in the request's order."""
    return {
        "results": [
            {"job_id": job_id, "acked": True}
            if outcome == "acked"
            else {"job_id": job_id, "acked": False, "code": outcome}
            for job_id, outcome in zip(job_ids, outcomes, strict=True)
        ]
    }


@_answers("ReleaseJobsResult")
def job_release_results(job_ids: Sequence[str], outcomes: Sequence[JobReleaseOutcome]) -> Document:
    """releaseJobs: one result per job, in the request's order."""
    return {
        "results": [
            {"job_id": job_id, "released": True}
            if outcome == "released"
            else {"job_id": job_id, "released": False, "code": outcome}
            for job_id, outcome in zip(job_ids, outcomes, strict=True)
        ]
    }


@_answers("JobList")
def job_list(records: Sequence[JobRecord]) -> Document:
    """listJobs."""
    return {"jobs": [job(record) for record in records]}


def _leased(leased: LeasedJob) -> Document:
    document: Document = {
        "job_id": leased.job_id,
        "queue": leased.queue,
        "topic": leased.topic,
        "payload": leased.payload,
        "attempt": leased.attempt,
        "lease_id": leased.lease_id,
        "lease_expires_at": rfc3339(leased.lease_expires_at),
        "published_at": rfc3339(leased.published_at),
    }
    if leased.traceparent is not None:
        document["traceparent"] = leased.traceparent
    return document


@_answers("LeasedJobList")
def leased_job_list(leased: Sequence[LeasedJob]) -> Document:
    """leaseJobs."""
    return {"jobs": [_leased(item) for item in leased]}


# Messages --------------------------------------------------------------------------------------


@_answers("MessageReceipt")
def message_receipt(message_id: str, url: str, deduplicated: bool) -> Document:
    """retryDeadLetter, and each receipt of a publish."""
    return {"message_id": message_id, "url": url, "deduplicated": deduplicated}


def _receipt(receipt: MessageReceipt) -> Document:
    return message_receipt(receipt.message_id, receipt.url, receipt.deduplicated)


@_answers("MessageReceiptList")
def message_receipt_list(receipts: Sequence[MessageReceipt]) -> Document:
    """publishMessage: one receipt per URL."""
    return {"messages": [_receipt(r) for r in receipts]}


@_answers("MessageBatchResult")
def message_batch_result(items: int, receipts: Sequence[MessageReceipt]) -> Document:
    """publishMessages: the receipts of each of ``items`` request items, in order."""
    # Grouped by the receipts' own items, not by the request's plans: a replay answers what the
    # first request's plans (its URL groups' endpoints then) were.
    results: list[dict[str, list[Document]]] = [{"messages": []} for _ in range(items)]
    for receipt in receipts:
        results[receipt.item]["messages"].append(_receipt(receipt))
    return {"results": results}


def _attempt(attempt: DeliveryAttemptRecord) -> Document:
    return {
        "attempt": attempt.attempt,
        "started_at": rfc3339(attempt.started_at),
        "duration_ms": attempt.duration_ms,
        **without_none(
            {
                "status_code": attempt.status_code,
                "response_excerpt": attempt.response_excerpt,
                "error": attempt.error,
            }
        ),
    }


def _redact(record: MessageRecord) -> Document | None:
    if not (record.redact_body or record.redact_headers):
        return None
    return {"body": record.redact_body, "headers": list(record.redact_headers)}


def _flow_control_limits(limits: FlowControlLimits | None) -> Document | None:
    if limits is None:
        return None
    return {"key": limits.key, "period": limits.period} | without_none(
        {"rate": limits.rate, "parallelism": limits.parallelism}
    )


@_answers("FlowControlState")
def flow_control_state(state: FlowControlState) -> Document:
    """getFlowControl, pauseFlowControl, resumeFlowControl and resetFlowControl."""
    return {
        "key": state.key,
        "paused": state.paused,
        "waiting": state.waiting,
        "in_flight": state.in_flight,
        "rate_used": state.rate_used,
        **without_none(
            {"rate": state.rate, "period": state.period, "parallelism": state.parallelism}
        ),
    }


@_answers("FlowControlList")
def flow_control_list(states: Sequence[FlowControlState], next_cursor: str | None) -> Document:
    """listFlowControlKeys: one page."""
    return {"keys": [flow_control_state(state) for state in states], "next_cursor": next_cursor}


@_answers("Message")
def message(record: MessageRecord) -> Document:
    """getMessage and cancelMessage, the values of the headers it redacts hidden."""
    hidden = record.redact_headers
    return {
        "message_id": record.message_id,
        "url": record.url,
        "method": record.method,
        "content_type": record.content_type,
        "headers": redact_headers(record.headers, hidden),
        "state": record.state,
        "retries": record.retries,
        "timeout": record.timeout,
        "created_at": rfc3339(record.created_at),
        "not_before": rfc3339(record.not_before),
        "labels": list(record.labels),
        "attempts": [_attempt(attempt) for attempt in record.attempts],
        "signature_scheme": record.signature_scheme,
        **without_none(
            {
                "url_group": record.url_group,
                "schedule": record.schedule,
                "retry_delay": record.retry_delay,
                "next_attempt_at": None
                if record.next_attempt_at is None
                else rfc3339(record.next_attempt_at),
                "callback": record.callback,
                "failure_callback": record.failure_callback,
                "callback_headers": redact_headers(record.callback_headers, hidden) or None,
                "failure_callback_headers": redact_headers(record.failure_callback_headers, hidden)
                or None,
                "redact": _redact(record),
                "flow_control": _flow_control_limits(record.flow_control),
                "deduplication_id": record.deduplication_id,
                "traceparent": record.traceparent,
            }
        ),
    }


@_answers("MessageList")
def message_list(records: Sequence[MessageRecord], next_cursor: str | None) -> Document:
    """listMessages: one page."""
    return {"messages": [message(m) for m in records], "next_cursor": next_cursor}


def _log_event(record: LogEventRecord) -> Document:
    """One event of listLogs: what its message is found by, never its body or headers."""
    return {
        "message_id": record.message_id,
        "state": record.state,
        "at": rfc3339(record.at),
        "url": record.url,
        "labels": list(record.labels),
        **without_none(
            {
                "url_group": record.url_group,
                "schedule": record.schedule,
                "flow_control_key": record.flow_control_key,
                "attempt": record.attempt,
                "status_code": record.status_code,
                "error": record.error,
            }
        ),
    }


@_answers("LogList")
def log_list(records: Sequence[LogEventRecord], next_cursor: str | None) -> Document:
    """listLogs: one page."""
    return {"events": [_log_event(record) for record in records], "next_cursor": next_cursor}


@_answers("UrlGroup")
def url_group(record: UrlGroupRecord) -> Document:
    """putUrlGroup and getUrlGroup."""
    return {
        "name": record.name,
        "endpoints": [
            without_none({"url": endpoint.url, "name": endpoint.name})
            for endpoint in record.endpoints
        ],
        "created_at": rfc3339(record.created_at),
        "updated_at": rfc3339(record.updated_at),
    }


@_answers("UrlGroupList")
def url_group_list(records: Sequence[UrlGroupRecord]) -> Document:
    """listUrlGroups."""
    return {"url_groups": [url_group(record) for record in records]}


@_answers("DeadLetterList")
def dead_letter_list(dead_letters: Sequence[DeadLetterRecord]) -> Document:
    """listDeadLetters."""
    return {
        "dead_letters": [
            {
                "message_id": dead.message_id,
                "url": dead.url,
                "attempts": dead.attempts,
                "failed_at": rfc3339(dead.failed_at),
                **without_none(
                    {"last_error": dead.last_error, "last_status_code": dead.last_status_code}
                ),
            }
            for dead in dead_letters
        ]
    }


@_answers("DeadLetterBulkResult")
def dead_letter_bulk_result(
    acted: Sequence[str],
    next_cursor: str | None,
    results: Sequence[tuple[str, str]] | None = None,
) -> Document:
    """retryDeadLetters and deleteDeadLetters: what was acted on, and, for named ids, what
    became of each (``(message_id, outcome)``).
    """
    document: Document = {
        "acted": len(acted),
        "message_ids": list(acted),
        "next_cursor": next_cursor,
    }
    if results is not None:
        document["results"] = [
            {"message_id": message_id, "outcome": outcome} for message_id, outcome in results
        ]
    return document


@_answers("SigningKeys")
def signing_keys(keys: SigningKeys) -> Document:
    """getSigningKeys: the keys, and the same as Standard Webhooks secrets."""
    return {
        "current": keys.current,
        "next": keys.next,
        "standard_webhooks": {
            "current": standard_webhooks_secret(keys.current),
            "next": standard_webhooks_secret(keys.next),
        },
    }


# Schedules -------------------------------------------------------------------------------------


def _schedule_run(run: ScheduleRun) -> Document:
    document: Document = {
        "tick_at": rfc3339(run.tick_at),
        "fired_at": rfc3339(run.fired_at),
        "outcome": run.outcome,
    }
    if run.outcome == "published":
        document["ids"] = list(run.ids)
    if run.error_code is not None:
        document["error"] = {"code": run.error_code, "detail": run.error_detail or ""}
    return document


def _shown_destination(destination: JSON) -> JSON:
    # The store keeps what each tick publishes; a message's redacted parts are only hidden here.
    if isinstance(destination, dict) and isinstance(destination.get("message"), dict):
        return {**destination, "message": redact_message_request(destination["message"])}
    return destination


@_answers("Schedule")
def schedule(record: ScheduleRecord) -> Document:
    """putSchedule, getSchedule, pauseSchedule and resumeSchedule."""
    settings = record.settings
    return {
        "name": record.name,
        "cron": settings.cron,
        "timezone": settings.timezone,
        "catch_up": settings.catch_up,
        "destination": _shown_destination(settings.destination),
        "paused": record.paused,
        "created_at": rfc3339(record.created_at),
        "updated_at": rfc3339(record.updated_at),
        "last_run_at": None if record.last_run_at is None else rfc3339(record.last_run_at),
        "next_run_at": None if record.next_run_at is None else rfc3339(record.next_run_at),
        "recent_runs": [_schedule_run(run) for run in record.recent_runs],
    }


@_answers("ScheduleList")
def schedule_list(records: Sequence[ScheduleRecord], next_cursor: str | None) -> Document:
    """listSchedules: one page."""
    return {"schedules": [schedule(record) for record in records], "next_cursor": next_cursor}
