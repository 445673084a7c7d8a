"""The checks the store contract makes of its arguments, once, before any backend sees them.

Each raises ``StoreError("validation_failed", …)`` in the same words whichever backend serves the
call; ``dump_json`` is also how every backend writes the JSON values it keeps.
"""

from __future__ import annotations

import json
import math
import re

import orjson

from .errors import StoreError
from .records import JSON, QueueSettings, Trim

__all__ = [
    "DEAD_LETTER_SUFFIX",
    "MAX_ID_PART",
    "TRACEPARENT",
    "check_at_least_one",
    "check_lease_margin",
    "check_max_deliveries",
    "check_not_negative",
    "check_queue_settings",
    "check_session_key",
    "check_session_lifetime",
    "check_token_bucket",
    "check_traceparent",
    "check_trim",
    "dead_letter_stream",
    "dump_json",
    "entry_id_parts",
]

# The largest part of an entry id: Redis's own, and what openapi.yaml's id patterns allow.
MAX_ID_PART = 2**64 - 1
_ENTRY_ID = re.compile(r"([0-9]{1,20})(?:-([0-9]{1,20}))?")
# The longest stream name openapi.yaml's ResourceName allows.
_MAX_STREAM_NAME = 128
DEAD_LETTER_SUFFIX = ".dead"
_SESSION_KEY = re.compile(r"[A-Za-z0-9_-]{16,128}")
# W3C Trace Context's traceparent, as openapi.yaml's Traceparent pattern states it.
TRACEPARENT = re.compile(r"[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}")


def entry_id_parts(text: str) -> tuple[int, int | None]:
    """The milliseconds and sequence of ``ms-seq``, or of a bare ``ms`` (sequence None);
    ``validation_failed`` for anything else, a part above ``MAX_ID_PART`` included. The contract
    checks every id it is given with this, and backends read them with it, so all of them take
    and refuse the same ids.
    """
    match = _ENTRY_ID.fullmatch(text)
    if match is None:
        raise StoreError("validation_failed", f"{text!r} is not an entry id like 1700000000000-0")
    ms_text, seq_text = match.groups()
    ms, seq = int(ms_text), None if seq_text is None else int(seq_text)
    if ms > MAX_ID_PART or (seq is not None and seq > MAX_ID_PART):
        raise StoreError(
            "validation_failed", f"entry id {text!r} has a part above {MAX_ID_PART}, the largest"
        )
    return ms, seq


def dead_letter_stream(stream: str) -> str:
    """The stream that ``claim`` moves a group's undeliverable entries of ``stream`` to."""
    return stream + DEAD_LETTER_SUFFIX


def dump_json(value: JSON, *, what: str) -> str:
    """``value`` as compact JSON text; ``validation_failed`` naming ``what`` if it is not JSON.

    ASCII escapes keep a lone surrogate (legal in JSON text) from failing the UTF-8 encoding of
    either backend; NaN and the infinities are not JSON, so they are refused.

    orjson writes it first (0.27 µs for a small body, against 1.9 µs for ``json.dumps``: a third
    of the service's CPU for a 500-entry batch went to ``json.dumps``, py-spy). Its text is kept
    when it is plain ASCII with no ``null``, where it is what ``json.dumps`` writes, floats apart:
    both write the shortest text that reads back as the same float, in exponents spelled
    differently (``1e16``, ``1e+16``). Otherwise ``json.dumps`` writes it: orjson escapes nothing,
    writes NaN and the infinities as ``null``, and refuses integers beyond 64 bits and lone
    surrogates.
    """
    try:
        text = orjson.dumps(value)
    except TypeError:
        pass
    else:
        if text.isascii() and b"null" not in text:
            return text.decode("ascii")
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise StoreError("validation_failed", f"{what} is not a JSON value: {error}") from error


def check_at_least_one(value: int, *, name: str) -> None:
    """``validation_failed`` for a count, limit or number of seconds below 1, naming it ``name``."""
    if value < 1:
        raise StoreError("validation_failed", f"{name} must be at least 1: {value}")


def check_not_negative(value: int, *, name: str) -> None:
    """``validation_failed`` for a length, delay or amount below 0, naming it ``name``."""
    if value < 0:
        raise StoreError("validation_failed", f"{name} must not be negative: {value}")


def check_session_key(key: str) -> None:
    """``validation_failed`` for a console session key that is not 16 to 128 letters, digits,
    ``-`` or ``_``: every backend keeps it in a key or column of its own, so it is plain text.
    """
    if _SESSION_KEY.fullmatch(key) is None:
        raise StoreError(
            "validation_failed",
            f"a console session key must be 16 to 128 letters, digits, - or _: {key!r}",
        )


def check_session_lifetime(token_id: str, lifetime: float, idle: float) -> None:
    """``validation_failed`` for an empty token id, or a lifetime or idle time that is not a
    number of seconds above 0.
    """
    if not token_id:
        raise StoreError("validation_failed", "a console session needs a token id")
    for name, seconds in (("lifetime", lifetime), ("idle", idle)):
        if not (math.isfinite(seconds) and seconds > 0):
            raise StoreError("validation_failed", f"{name} must be a number > 0: {seconds}")


def check_trim(trim: Trim) -> None:
    """``validation_failed`` for a negative ``maxlen`` or a ``minid`` that is not an entry id."""
    if trim.maxlen is not None:
        check_not_negative(trim.maxlen, name="maxlen")
    if trim.minid is not None:
        entry_id_parts(trim.minid)


def check_max_deliveries(stream: str, max_deliveries: int | None) -> None:
    """``validation_failed`` unless ``max_deliveries`` is None or at least 1, and the stream's
    dead-letter stream has a name the API can read.
    """
    if max_deliveries is None:
        return
    check_at_least_one(max_deliveries, name="max_deliveries")
    if len(dead_letter_stream(stream)) > _MAX_STREAM_NAME:
        raise StoreError(
            "validation_failed",
            f"max_deliveries needs a dead-letter stream {dead_letter_stream(stream)!r}, longer "
            f"than {_MAX_STREAM_NAME} characters: use a stream name of at most "
            f"{_MAX_STREAM_NAME - len(DEAD_LETTER_SUFFIX)}",
        )


def check_queue_settings(settings: QueueSettings) -> None:
    """``validation_failed`` unless every setting of a queue is within its least value."""
    for name, value, least in (
        ("max_attempts", settings.max_attempts, 1),
        ("lease_seconds", settings.lease_seconds, 1),
        ("retention_seconds", settings.retention_seconds, 0),
        ("deduplication_window_seconds", settings.deduplication_window_seconds, 0),
    ):
        if value < least:
            raise StoreError("validation_failed", f"{name} must be at least {least}: {value}")


def check_token_bucket(per_second: float, burst: int) -> None:
    """``validation_failed`` unless the refill rate is a positive number and burst at least 1."""
    if not (math.isfinite(per_second) and per_second > 0):
        raise StoreError("validation_failed", f"per_second must be a number > 0: {per_second}")
    check_at_least_one(burst, name="burst")


def check_lease_margin(lease_margin: float) -> None:
    """``validation_failed`` unless ``lease_margin`` is a finite number of seconds >= 0."""
    if not (math.isfinite(lease_margin) and lease_margin >= 0):
        raise StoreError(
            "validation_failed", f"lease_margin must be a number of seconds >= 0: {lease_margin}"
        )


def check_traceparent(traceparent: str | None) -> None:
    """A ``traceparent`` kept with published items is None or in the W3C format."""
    if traceparent is not None and TRACEPARENT.fullmatch(traceparent) is None:
        raise StoreError(
            "validation_failed", f"traceparent {traceparent!r} is not in the W3C format"
        )
