"""Client-side checks of topics, names, counts and idempotency keys."""

from __future__ import annotations

import pytest

import sdk
from sdk._checks import check_count, check_idempotency_key, check_resource_name, check_topic


@pytest.mark.parametrize("topic", ["email-jobs", "a", "billing.invoice_v2", "t" * 128])
def test_valid_topics(topic: str) -> None:
    """Topics the spec's pattern allows."""
    assert check_topic(topic, publishing=True) == topic


@pytest.mark.parametrize(
    "topic", ["", "with space", "orders.*", "orders.>", "-x", "t" * 129, "a:b"]
)
def test_invalid_topics(topic: str) -> None:
    """Wildcards, spaces and overlong topics are InvalidTopicErrors."""
    with pytest.raises(sdk.InvalidTopicError):
        check_topic(topic, publishing=True)


def test_reserved_topics_are_refused_only_for_publishing() -> None:
    """`spool.` topics belong to the system: publishing to them is a ReservedTopicError."""
    with pytest.raises(sdk.ReservedTopicError, match="reserved"):
        check_topic("spool.internal", publishing=True)
    assert check_topic("spool.internal", publishing=False) == "spool.internal"
    assert check_topic("spoolish", publishing=True) == "spoolish"


def test_resource_names_name_what_they_are() -> None:
    """The error says which kind of name is wrong."""
    with pytest.raises(sdk.InvalidNameError, match="queue name 'bad name'"):
        check_resource_name("bad name", what="queue")


@pytest.mark.parametrize("value", [0, 1001, True, 2.0])
def test_counts(value: object) -> None:
    """Counts are ints within the spec's bounds."""
    with pytest.raises(sdk.InvalidArgumentError, match="count"):
        check_count(value, name="count", minimum=1, maximum=1000)  # type: ignore[arg-type]


@pytest.mark.parametrize("key", ["", "has space", "k" * 256, "ключ"])
def test_idempotency_keys(key: str) -> None:
    """An Idempotency-Key is 1 to 255 printable ASCII characters."""
    with pytest.raises(sdk.InvalidArgumentError):
        check_idempotency_key(key)
    assert check_idempotency_key("order-42:attempt") == "order-42:attempt"
