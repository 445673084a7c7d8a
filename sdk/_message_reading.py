"""Reading the service's message answers into the SDK's receipts and messages."""

from __future__ import annotations

import builtins
from datetime import timedelta
from typing import TYPE_CHECKING

from ._http import optional

if TYPE_CHECKING:
    from generated.models import (
        FlowControlLimits,
        LogEvent as GeneratedLogEvent,
        Message as GeneratedMessage,
        MessageCallbackHeaders,
        MessageFailureCallbackHeaders,
        MessageReceipt as GeneratedMessageReceipt,
        MessageReceiptList as GeneratedMessageReceiptList,
        Redact as GeneratedRedact,
    )

    from ._arguments import FlowControl, Redact
    from ._types import LogEvent, Message, MessageReceipt

__all__ = [
    "read_log_event",
    "read_message",
    "read_one_receipt",
    "read_receipt",
    "read_receipts",
    "read_redact",
]


def read_receipt(receipt: GeneratedMessageReceipt) -> MessageReceipt:
    """The SDK's MessageReceipt for the service's."""
    from ._types import MessageReceipt

    return MessageReceipt(
        message_id=receipt.message_id, url=receipt.url, deduplicated=receipt.deduplicated
    )


def read_receipts(result: GeneratedMessageReceiptList) -> builtins.list[MessageReceipt]:
    """Every receipt of a publish's answer, one per destination URL, in order."""
    return [read_receipt(receipt) for receipt in result.messages]


def read_one_receipt(result: GeneratedMessageReceiptList) -> MessageReceipt:
    """The one receipt of a publish to one URL.

    Raises:
        ValueError: the answer holds another number of receipts (the transport makes it an
            APIResponseValidationError).
    """
    receipts = read_receipts(result)
    if len(receipts) != 1:
        raise ValueError(f"a message to one URL got {len(receipts)} receipts")
    return receipts[0]


def read_message(message: GeneratedMessage) -> Message:
    """The SDK's Message, with its delivery attempts, for the service's."""
    from ._types import DeliveryAttempt, Message

    return Message(
        message_id=message.message_id,
        url=message.url,
        url_group=optional(message.url_group),
        method=message.method,
        content_type=message.content_type,
        headers=dict(message.headers.additional_properties),
        state=message.state,
        retries=message.retries,
        retry_delay=optional(message.retry_delay),
        timeout=timedelta(seconds=message.timeout),
        created_at=message.created_at,
        not_before=message.not_before,
        next_attempt_at=optional(message.next_attempt_at),
        callback=optional(message.callback),
        failure_callback=optional(message.failure_callback),
        deduplication_id=optional(message.deduplication_id),
        attempts=[
            DeliveryAttempt(
                attempt=attempt.attempt,
                started_at=attempt.started_at,
                duration=timedelta(milliseconds=attempt.duration_ms),
                status_code=optional(attempt.status_code),
                response_excerpt=optional(attempt.response_excerpt),
                error=optional(attempt.error),
            )
            for attempt in message.attempts
        ],
        traceparent=optional(message.traceparent),
        callback_headers=_headers(optional(message.callback_headers)),
        failure_callback_headers=_headers(optional(message.failure_callback_headers)),
        redact=read_redact(optional(message.redact)),
        flow_control=_flow_control(optional(message.flow_control)),
        signature_scheme=optional(message.signature_scheme) or "spool",
        labels=tuple(optional(message.labels) or ()),
        schedule=optional(message.schedule),
    )


def read_log_event(event: GeneratedLogEvent) -> LogEvent:
    """The SDK's LogEvent for the service's."""
    from ._types import LogEvent

    return LogEvent(
        message_id=event.message_id,
        state=event.state,
        at=event.at,
        url=event.url,
        labels=tuple(event.labels),
        url_group=optional(event.url_group),
        schedule=optional(event.schedule),
        flow_control_key=optional(event.flow_control_key),
        attempt=optional(event.attempt),
        status_code=optional(event.status_code),
        error=optional(event.error),
    )


def _flow_control(limits: FlowControlLimits | None) -> FlowControl | None:
    from ._arguments import FlowControl

    if limits is None:
        return None
    return FlowControl(
        limits.key,
        rate=optional(limits.rate),
        period=timedelta(seconds=limits.period),
        parallelism=optional(limits.parallelism),
    )


def read_redact(redact: GeneratedRedact | None) -> Redact | None:
    """The SDK's Redact for the service's, None when there is none."""
    from ._arguments import Redact

    if redact is None:
        return None
    return Redact(body=bool(optional(redact.body)), headers=tuple(optional(redact.headers) or ()))


def _headers(
    headers: MessageCallbackHeaders | MessageFailureCallbackHeaders | None,
) -> dict[str, str] | None:
    return None if headers is None else dict(headers.additional_properties)
