"""sdk/_limits.py holds exactly the limits openapi.yaml states: the spec stays the source."""

from __future__ import annotations

from typing import Any

import pytest

from sdk import _limits
from tests.generated._spec import load_spec


def schemas() -> dict[str, Any]:
    """The document's component schemas."""
    return dict(load_spec()["components"]["schemas"])


def prop(schema: str, name: str) -> dict[str, Any]:
    """One property of a component schema."""
    found: dict[str, Any] = schemas()[schema]["properties"][name]
    return found


def idempotency_key_schema() -> dict[str, Any]:
    """The Idempotency-Key header's schema."""
    found: dict[str, Any] = load_spec()["components"]["parameters"]["IdempotencyKey"]["schema"]
    return found


EXPECTED = {
    "RESOURCE_NAME_PATTERN": lambda: schemas()["ResourceName"]["pattern"],
    "GROUP_NAME_PATTERN": lambda: schemas()["GroupName"]["pattern"],
    "STREAM_NAME_PREFIX_PATTERN": lambda: schemas()["StreamNamePrefix"]["pattern"],
    "TOPIC_PATTERN": lambda: schemas()["Topic"]["pattern"],
    "RESERVED_TOPIC_PREFIX": lambda: schemas()["Topic"]["x-spool-reserved-prefix"],
    "IDEMPOTENCY_KEY_PATTERN": lambda: idempotency_key_schema()["pattern"],
    "URL_PATTERN": lambda: prop("PublishMessageRequest", "url")["pattern"],
    "MAXLEN_MAX": lambda: prop("AppendEntryRequest", "maxlen")["maximum"],
    "COUNT_MAX": lambda: prop("ReadGroupRequest", "count")["maximum"],
    "BATCH_MAX": lambda: prop("AppendEntriesRequest", "entries")["maxItems"],
    "DEAD_LETTER_IDS_MAX": lambda: schemas()["DeadLetterIds"]["maxItems"],
    "DEAD_LETTER_FILTER_URL_MAX_LENGTH": lambda: prop("DeadLetterFilter", "url")["maxLength"],
    "DELAY_MAX_SECONDS": lambda: prop("PublishMessageRequest", "delay")["maximum"],
    "RETRIES_MAX": lambda: prop("PublishMessageRequest", "retries")["maximum"],
    "FLOW_CONTROL_RATE_MAX": lambda: prop("FlowControl", "rate")["maximum"],
    "FLOW_CONTROL_PERIOD_MAX_SECONDS": lambda: prop("FlowControl", "period")["oneOf"][0]["maximum"],
    "FLOW_CONTROL_PARALLELISM_MAX": lambda: prop("FlowControl", "parallelism")["maximum"],
    "MESSAGE_TIMEOUT_MIN_SECONDS": lambda: prop("PublishMessageRequest", "timeout")["minimum"],
    "MESSAGE_TIMEOUT_MAX_SECONDS": lambda: prop("PublishMessageRequest", "timeout")["maximum"],
    "WAIT_MS_MAX": lambda: prop("ReadGroupRequest", "wait_ms")["maximum"],
    "LEASE_SECONDS_MAX": lambda: prop("LeaseRequest", "lease_seconds")["maximum"],
    "LEASE_TOPICS_MAX": lambda: prop("LeaseRequest", "topics")["maxItems"],
    "LABELS_MAX": lambda: schemas()["Labels"]["maxItems"],
    "LABEL_PATTERN": lambda: schemas()["Label"]["pattern"],
    "FILTER_IDS_MAX": lambda: load_spec()["components"]["parameters"]["FilterMessageIds"]["schema"][
        "maxItems"
    ],
    "MIN_IDLE_MS_MAX": lambda: prop("ClaimRequest", "min_idle_ms")["maximum"],
    "NACK_ERROR_MAX_LENGTH": lambda: prop("NackRequest", "error")["maxLength"],
    "MAX_ATTEMPTS_MAX": lambda: prop("QueueSettings", "max_attempts")["maximum"],
    "MAX_DELIVERIES_MAX": lambda: schemas()["MaxDeliveries"]["maximum"],
    "RETENTION_SECONDS_MIN": lambda: prop("QueueSettings", "retention_seconds")["minimum"],
    "RETENTION_SECONDS_MAX": lambda: prop("QueueSettings", "retention_seconds")["maximum"],
    "DEDUPLICATION_WINDOW_MAX_SECONDS": lambda: prop(
        "QueueSettings", "deduplication_window_seconds"
    )["maximum"],
}


def test_every_limit_is_checked() -> None:
    """Each constant in sdk/_limits.py has its place in the spec listed here."""
    assert set(EXPECTED) == set(_limits.__all__)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_limit_equals_the_spec(name: str) -> None:
    """The constant equals the value the document states."""
    assert getattr(_limits, name) == EXPECTED[name]()


@pytest.mark.parametrize(
    ("schema", "field", "limit"),
    [
        ("AppendEntriesRequest", "entries", "BATCH_MAX"),
        ("PublishJobsRequest", "jobs", "BATCH_MAX"),
        ("PublishMessagesRequest", "messages", "BATCH_MAX"),
        ("AckRequest", "ids", "COUNT_MAX"),
    ],
)
def test_shared_item_limits_agree_across_schemas(schema: str, field: str, limit: str) -> None:
    """One constant serves several schemas only while they all say the same."""
    assert prop(schema, field)["maxItems"] == getattr(_limits, limit)


@pytest.mark.parametrize(
    ("schema", "field"),
    [
        ("PublishMessageRequest", "callback"),
        ("PublishMessageRequest", "failure_callback"),
        ("UrlEndpoint", "url"),
    ],
)
def test_every_url_field_has_the_url_pattern(schema: str, field: str) -> None:
    """One URL rule serves every URL the service calls, so the SDK checks them all with it."""
    assert prop(schema, field)["pattern"] == _limits.URL_PATTERN


@pytest.mark.parametrize(
    ("schema", "field", "limit"),
    [
        ("ClaimRequest", "count", "COUNT_MAX"),
        ("LeaseRequest", "max_jobs", "COUNT_MAX"),
        ("LeaseRequest", "wait_ms", "WAIT_MS_MAX"),
        ("PublishJobRequest", "delay", "DELAY_MAX_SECONDS"),
        ("NackRequest", "retry_delay", "DELAY_MAX_SECONDS"),
        ("TrimRequest", "maxlen", "MAXLEN_MAX"),
        ("QueueSettings", "lease_seconds", "LEASE_SECONDS_MAX"),
        ("ExtendLeaseRequest", "lease_seconds", "LEASE_SECONDS_MAX"),
    ],
)
def test_shared_maximums_agree_across_schemas(schema: str, field: str, limit: str) -> None:
    """One constant serves several fields only while they all say the same."""
    assert prop(schema, field)["maximum"] == getattr(_limits, limit)
