"""Durations and points in time as users write them, turned into what the API takes."""

from __future__ import annotations

import functools
import math
import re
from datetime import UTC, datetime, timedelta
from typing import TypeAlias

from ._exceptions import InvalidArgumentError, InvalidDurationError

__all__ = ["Duration", "Timestamp"]

Duration: TypeAlias = int | float | timedelta | str
"""Seconds as a number, a `timedelta`, or a string: `"500ms"`, `"3s"`, `"5m"`, `"2h"`, `"7d"`."""

Timestamp: TypeAlias = datetime | int | float
"""A timezone-aware `datetime`, or Unix seconds."""

_TEXT = re.compile(r"(\d+)(ms|s|m|h|d)")
_UNITS = {
    "ms": timedelta(milliseconds=1),
    "s": timedelta(seconds=1),
    "m": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
}


_ZERO = timedelta(0)
_SECOND = timedelta(seconds=1)
_MILLISECOND = timedelta(milliseconds=1)


# Applications write the same few durations over and over ("3s", "1h"): parse each once.
@functools.lru_cache(maxsize=256)
def parse_duration_text(text: str) -> timedelta | None:
    """`text` such as "3s" as a timedelta, or None when it is not written that way."""
    match = _TEXT.fullmatch(text.strip())
    return None if match is None else int(match.group(1)) * _UNITS[match.group(2)]


def to_timedelta(value: Duration, *, name: str) -> timedelta:
    """`value` as a non-negative timedelta, or InvalidDurationError naming the argument."""
    if isinstance(value, timedelta):
        result = value
    elif isinstance(value, str):
        parsed = parse_duration_text(value)
        if parsed is None:
            raise InvalidDurationError(
                f"{name} must look like '500ms', '3s', '5m', '2h' or '7d', got {value!r}"
            )
        result = parsed
    elif isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidDurationError(
            f"{name} must be seconds, a timedelta or a string like '3s', got {value!r}"
        )
    elif isinstance(value, float) and not math.isfinite(value):
        raise InvalidDurationError(f"{name} must be a finite number of seconds, got {value!r}")
    else:
        try:
            result = timedelta(seconds=value)
        except OverflowError:
            raise InvalidDurationError(f"{name} is too long: {value!r}") from None
    if result < _ZERO:
        raise InvalidDurationError(f"{name} must not be negative, got {value!r}")
    return result


def to_seconds(value: Duration, *, name: str, minimum: int, maximum: int) -> int:
    """`value` as whole seconds within [minimum, maximum], as the API's integer fields need."""
    if type(value) is int and value >= 0:
        seconds = value
    else:
        delta = to_timedelta(value, name=name)
        if delta % _SECOND:
            # "500ms" is a well-formed duration; this field just counts whole seconds.
            raise InvalidDurationError(
                f"{name} is counted in whole seconds, and {value!r} is not a whole number of "
                "seconds (use '1s' or more, in steps of one second)"
            )
        seconds = delta // _SECOND
    _check_range(seconds, value, name=name, minimum=minimum, maximum=maximum, unit="s")
    return seconds


def to_millis(value: Duration, *, name: str, minimum: int, maximum: int) -> int:
    """`value` as whole milliseconds within [minimum, maximum]."""
    delta = to_timedelta(value, name=name)
    if delta % _MILLISECOND:
        raise InvalidDurationError(
            f"{name} is counted in whole milliseconds, and {value!r} is not a whole number of "
            "milliseconds"
        )
    millis = delta // _MILLISECOND
    _check_range(millis, value, name=name, minimum=minimum, maximum=maximum, unit="ms")
    return millis


def to_datetime(value: Timestamp, *, name: str) -> datetime:
    """`value` as an aware datetime; naive datetimes are refused because their zone is a guess."""
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise InvalidArgumentError(
                f"{name} must be timezone-aware (for example datetime.now(UTC)), got {value!r}"
            )
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidArgumentError(
            f"{name} must be an aware datetime or Unix seconds, got {value!r}"
        )
    try:
        return datetime.fromtimestamp(value, tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise InvalidArgumentError(f"{name} is out of range: {value!r}") from None


def _check_range(
    amount: int, value: Duration, *, name: str, minimum: int, maximum: int, unit: str
) -> None:
    if not minimum <= amount <= maximum:
        raise InvalidDurationError(
            f"{name} must be between {minimum} {unit} and {maximum} {unit}, got {value!r}"
        )
