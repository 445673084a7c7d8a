"""What the SDK returns (sdk/_types.py) is pinned to the wire: each result class has the fields of
its generated model (generated/pydantic_models.py), by name and optionality, up to the renames
and omissions listed here, so a field added to or changed in openapi.yaml fails here until the SDK
follows.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from pydantic import BaseModel

from generated import pydantic_models
from sdk import _types

# Each result class -> its model, the wire fields it names otherwise (durations are timedeltas
# named without their unit, a stream is its `name`), and the wire fields it leaves out (the names
# the caller already gave).
WIRE: dict[str, tuple[str, dict[str, str], frozenset[str]]] = {
    "ClaimResult": ("ClaimResult", {}, frozenset({"stream", "group"})),
    "DeadLetter": ("DeadLetter", {}, frozenset()),
    "DeadLetterResult": ("DeadLetterResult", {}, frozenset()),
    "DeliveredEntry": ("DeliveredEntry", {}, frozenset()),
    "DeliveryAttempt": ("DeliveryAttempt", {"duration_ms": "duration"}, frozenset()),
    "Entry": ("Entry", {}, frozenset()),
    "FlowControlState": ("FlowControlState", {}, frozenset()),
    "GroupInfo": ("GroupInfo", {}, frozenset()),
    "Health": ("Health", {}, frozenset()),
    "Job": ("Job", {}, frozenset()),
    "JobAckResult": ("JobAckResult", {}, frozenset()),
    "JobReleaseResult": ("JobReleaseResult", {}, frozenset()),
    "JobAttempt": ("JobAttempt", {}, frozenset()),
    "JobReceipt": ("JobReceipt", {}, frozenset()),
    "LeasedJob": ("LeasedJob", {}, frozenset()),
    "LogEvent": ("LogEvent", {}, frozenset()),
    "Message": ("Message", {}, frozenset()),
    "MessageReceipt": ("MessageReceipt", {}, frozenset()),
    "PendingEntry": ("PendingEntry", {"idle_ms": "idle"}, frozenset()),
    "QueueInfo": (
        "Queue",
        {
            "lease_seconds": "lease",
            "retention_seconds": "retention",
            "deduplication_window_seconds": "deduplication_window",
        },
        frozenset(),
    ),
    "QueueStats": ("QueueStats", {}, frozenset()),
    "Schedule": ("Schedule", {}, frozenset()),
    "ScheduleRun": ("ScheduleRun", {}, frozenset()),
    "ScheduleRunError": ("ScheduleRunError", {}, frozenset()),
    "SigningKeys": ("SigningKeys", {}, frozenset()),
    "StandardWebhooksSecrets": ("StandardWebhooksSecrets", {}, frozenset()),
    "StreamInfo": ("StreamInfo", {"stream": "name"}, frozenset()),
    "StreamSummary": ("StreamSummary", {"stream": "name"}, frozenset()),
    "TokenInfo": ("TokenInfo", {}, frozenset()),
    "TokenPermission": ("TokenPermission", {}, frozenset()),
    "TokenRateLimit": ("TokenRateLimit", {}, frozenset()),
    "TrimResult": ("TrimResult", {}, frozenset({"stream"})),
    "UrlGroup": ("UrlGroup", {}, frozenset()),
}

# Optional on the wire (a service from before them leaves them out) but always there in the SDK.
ALWAYS_GIVEN = {
    ("ClaimResult", "dead_lettered_ids"),
    ("Job", "attempt_history"),
    ("Message", "signature_scheme"),
    ("Message", "labels"),
    ("ScheduleRun", "ids"),
}


def _sdk_fields(cls: type) -> dict[str, bool]:
    """Each field of a result dataclass, and whether it may be None."""
    return {
        field.name: "None" in re.split(r"\s*\|\s*", str(field.type))
        for field in dataclasses.fields(cls)
    }


def _wire_fields(model: type[BaseModel], renamed: dict[str, str]) -> dict[str, bool]:
    """Each field of a generated model under the SDK's name, and whether it may be absent or
    null.
    """
    fields: dict[str, bool] = {}
    for name, info in model.model_fields.items():
        nullable = "None" in re.split(r"\s*\|\s*", str(info.annotation))
        fields[renamed.get(name, name)] = nullable or not info.is_required()
    return fields


def test_every_result_class_is_pinned() -> None:
    """A result class added to the SDK needs its line in WIRE."""
    assert set(WIRE) == set(_types.__all__)


@pytest.mark.parametrize("name", sorted(WIRE))
def test_result_fields_are_the_wire_fields(name: str) -> None:
    """Same names, and None exactly where the wire may leave a field out or null it."""
    schema, renamed, omitted = WIRE[name]
    model: type[BaseModel] = getattr(pydantic_models, schema)
    wire = _wire_fields(model, renamed)
    for field in omitted:
        del wire[field]
    for field in {field for cls, field in ALWAYS_GIVEN if cls == name}:
        wire[field] = False
    assert _sdk_fields(getattr(_types, name)) == wire
