"""Client-side checks of names, topics and counts, so bad input fails before any request."""

from __future__ import annotations

import re

from ._exceptions import (
    InvalidArgumentError,
    InvalidNameError,
    InvalidTopicError,
    ReservedTopicError,
)
from ._limits import (
    GROUP_NAME_PATTERN,
    IDEMPOTENCY_KEY_PATTERN,
    RESERVED_TOPIC_PREFIX,
    RESOURCE_NAME_PATTERN,
    STREAM_NAME_PREFIX_PATTERN,
    TOPIC_PATTERN,
)

__all__ = [
    "check_count",
    "check_group_name",
    "check_idempotency_key",
    "check_name_prefix",
    "check_resource_name",
    "check_topic",
]

# fullmatch, not match: with `$` alone a trailing newline would slip through.
_RESOURCE_NAME = re.compile(RESOURCE_NAME_PATTERN)
_GROUP_NAME = re.compile(GROUP_NAME_PATTERN)
_TOPIC = re.compile(TOPIC_PATTERN)
_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
_NAME_PREFIX = re.compile(STREAM_NAME_PREFIX_PATTERN)


def check_resource_name(name: str, *, what: str) -> str:
    """`name` if it is a valid stream, queue or URL group name, else InvalidNameError."""
    if not isinstance(name, str) or not _RESOURCE_NAME.fullmatch(name):
        raise InvalidNameError(f"{what} name {name!r} does not match {RESOURCE_NAME_PATTERN}")
    return name


def check_group_name(name: str, *, what: str) -> str:
    """`name` if it is a valid consumer group or consumer name, else InvalidNameError."""
    if not isinstance(name, str) or not _GROUP_NAME.fullmatch(name):
        raise InvalidNameError(f"{what} name {name!r} does not match {GROUP_NAME_PATTERN}")
    return name


def check_topic(topic: str, *, publishing: bool) -> str:
    """`topic` if valid; publishing also refuses the reserved `spool.` prefix."""
    if not isinstance(topic, str) or not _TOPIC.fullmatch(topic):
        raise InvalidTopicError(
            f"topic {topic!r} does not match {TOPIC_PATTERN} (wildcards are not allowed)"
        )
    if publishing and topic.startswith(RESERVED_TOPIC_PREFIX):
        raise ReservedTopicError(
            f"topic {topic!r} is reserved: topics starting with {RESERVED_TOPIC_PREFIX!r} "
            "belong to the system"
        )
    return topic


def check_count(value: int, *, name: str, minimum: int, maximum: int) -> int:
    """`value` if it is an int within [minimum, maximum], else InvalidArgumentError."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise InvalidArgumentError(
            f"{name} must be an int between {minimum} and {maximum}, got {value!r}"
        )
    return value


def check_idempotency_key(key: str) -> str:
    """`key` if the service accepts it as an Idempotency-Key header."""
    if not isinstance(key, str) or not _IDEMPOTENCY_KEY.fullmatch(key):
        raise InvalidArgumentError(
            "idempotency_key must be 1 to 255 printable ASCII characters without spaces"
        )
    return key


def check_name_prefix(prefix: str) -> str:
    """`prefix` if it can start a stream name, else InvalidArgumentError."""
    if not isinstance(prefix, str) or not _NAME_PREFIX.fullmatch(prefix):
        raise InvalidArgumentError(f"prefix {prefix!r} does not match {STREAM_NAME_PREFIX_PATTERN}")
    return prefix
