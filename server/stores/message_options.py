"""The options of a message that only some of its readers need, which either store keeps as one
JSON document: the headers its callbacks are sent with, what its reads redact, the flow control
limits it was published with (its key is also kept apart, where the claims index it), how its
deliveries are signed when not the default way, its labels and the schedule that published it,
which the listings' filters read (``message_filter``).

A message without any keeps no document (NULL in SQLite, no hash field in Redis), so messages that
an earlier version stored read back with none.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict

from .records import FlowControlLimits, NewMessage, SignatureScheme

__all__ = [
    "MessageOptionFields",
    "dump_message_options",
    "load_message_options",
    "merged_headers",
]


class MessageOptionFields(TypedDict):
    """The fields of ``MessageRecord`` that the options document holds."""

    callback_headers: dict[str, str]
    failure_callback_headers: dict[str, str]
    redact_body: bool
    redact_headers: tuple[str, ...]
    flow_control: FlowControlLimits | None
    signature_scheme: SignatureScheme
    labels: tuple[str, ...]
    schedule: str | None


def dump_message_options(message: NewMessage) -> str | None:
    """The options document of ``message``, or None when it has no options to keep."""
    document: dict[str, Any] = {}
    if message.callback_headers:
        document["callback_headers"] = message.callback_headers
    if message.failure_callback_headers:
        document["failure_callback_headers"] = message.failure_callback_headers
    if message.redact_body or message.redact_headers:
        document["redact"] = {"body": message.redact_body, "headers": list(message.redact_headers)}
    if message.flow_control is not None:
        limits = message.flow_control
        document["flow_control"] = {
            "key": limits.key,
            "rate": limits.rate,
            "period": limits.period,
            "parallelism": limits.parallelism,
        }
    if message.signature_scheme != "spool":
        document["signature_scheme"] = message.signature_scheme
    if message.labels:
        document["labels"] = list(message.labels)
    if message.schedule is not None:
        document["schedule"] = message.schedule
    if not document:
        return None
    # ASCII escapes, as dump_json writes: header values are ASCII already, and either backend
    # stores the text as it is.
    return json.dumps(document, separators=(",", ":"), ensure_ascii=True)


def load_message_options(text: str | None) -> MessageOptionFields:
    """The record fields of a stored options document (None: a message without options)."""
    document: dict[str, Any] = {} if text is None else json.loads(text)
    redact = document.get("redact", {})
    flow = document.get("flow_control")
    return MessageOptionFields(
        callback_headers=document.get("callback_headers", {}),
        failure_callback_headers=document.get("failure_callback_headers", {}),
        redact_body=redact.get("body", False),
        redact_headers=tuple(redact.get("headers", ())),
        flow_control=None if flow is None else FlowControlLimits(**flow),
        signature_scheme=document.get("signature_scheme", "spool"),
        labels=tuple(document.get("labels", ())),
        schedule=document.get("schedule"),
    )


def merged_headers(stored: dict[str, str], override: dict[str, str]) -> dict[str, str]:
    """``stored`` with each header of ``override`` replacing the one of the same name in any
    letter case (HTTP names are case-insensitive, so both must not be sent) or added after them.
    """
    replaced = {name.lower() for name in override}
    kept = {name: value for name, value in stored.items() if name.lower() not in replaced}
    return kept | override
