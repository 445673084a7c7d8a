"""The opaque cursors of the store's listings, and where each one resumes.

A cursor is a listing's kind and its position, as base64url text without padding (what
openapi.yaml's ``ListCursor`` allows): ``s:<name>`` resumes a stream listing after that name and
``m:<sequence>`` a message listing before that publish sequence, ``h:<name>`` a schedule listing
after that name, ``l:<sequence>`` a log listing before that event sequence, ``f:<key>`` a flow
control key listing after that key, ``d:<time>:<sequence>:<horizon>`` a page of dead letters
after the one filed at that time with that sequence, among those filed by the horizon. The
contract reads a cursor once and hands its backend the position; a cursor of another kind, or one
that is not base64url of such text, is ``validation_failed``.
"""

from __future__ import annotations

import base64
import binascii
import re

from .errors import StoreError
from .records import DeadLetterPosition

__all__ = [
    "dead_letter_cursor",
    "dead_letter_cursor_position",
    "flow_control_cursor",
    "flow_control_cursor_position",
    "log_cursor",
    "log_cursor_position",
    "message_cursor",
    "message_cursor_position",
    "name_prefix_end",
    "schedule_cursor",
    "schedule_cursor_position",
    "stream_cursor",
    "stream_cursor_position",
]

_SEQUENCE = re.compile(r"[0-9]{1,20}")
# What ``repr`` writes of a finite, non-negative float.
_TIME = re.compile(r"[0-9]{1,20}\.[0-9]{1,20}(?:e[+-]?[0-9]{1,3})?|[0-9]\.?[0-9]*e[+-]?[0-9]{1,3}")
# Above every UTF-8 name both stores compare (bytewise): where the names with a prefix end.
_LAST_CHARACTER = "\U0010ffff"


def _encode(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode("ascii")


def _decode(cursor: str, *, kind: str) -> str:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        text = base64.urlsafe_b64decode(padded.encode("ascii")).decode()
    except (binascii.Error, UnicodeError, ValueError) as error:
        raise StoreError("validation_failed", f"cursor {cursor!r} is not a listing's") from error
    if not text.startswith(f"{kind}:"):
        raise StoreError("validation_failed", f"cursor {cursor!r} is not this listing's")
    return text[len(kind) + 1 :]


def stream_cursor(after: str) -> str:
    """The cursor of a stream listing that resumes after the name ``after``."""
    return _encode(f"s:{after}")


def stream_cursor_position(cursor: str) -> str:
    """The name a stream listing's ``cursor`` resumes after."""
    name = _decode(cursor, kind="s")
    if not name:
        raise StoreError("validation_failed", f"cursor {cursor!r} names no stream")
    return name


def message_cursor(before: int) -> str:
    """The cursor of a message listing that resumes before the publish sequence ``before``."""
    return _encode(f"m:{before}")


def message_cursor_position(cursor: str) -> int:
    """The publish sequence a message listing's ``cursor`` resumes before."""
    sequence = _decode(cursor, kind="m")
    if not _SEQUENCE.fullmatch(sequence):
        raise StoreError("validation_failed", f"cursor {cursor!r} names no message position")
    return int(sequence)


def log_cursor(before: int) -> str:
    """The cursor of a log listing that resumes before the event sequence ``before``."""
    return _encode(f"l:{before}")


def log_cursor_position(cursor: str) -> int:
    """The event sequence a log listing's ``cursor`` resumes before."""
    sequence = _decode(cursor, kind="l")
    if not _SEQUENCE.fullmatch(sequence):
        raise StoreError("validation_failed", f"cursor {cursor!r} names no log position")
    return int(sequence)


def schedule_cursor(after: str) -> str:
    """The cursor of a schedule listing that resumes after the name ``after``."""
    return _encode(f"h:{after}")


def schedule_cursor_position(cursor: str) -> str:
    """The name a schedule listing's ``cursor`` resumes after."""
    name = _decode(cursor, kind="h")
    if not name:
        raise StoreError("validation_failed", f"cursor {cursor!r} names no schedule")
    return name


def flow_control_cursor(after: str) -> str:
    """The cursor of a flow control key listing that resumes after the key ``after``."""
    return _encode(f"f:{after}")


def flow_control_cursor_position(cursor: str) -> str:
    """The key a flow control key listing's ``cursor`` resumes after."""
    key = _decode(cursor, kind="f")
    if not key:
        raise StoreError("validation_failed", f"cursor {cursor!r} names no flow control key")
    return key


def dead_letter_cursor(position: DeadLetterPosition) -> str:
    """The cursor of a page of dead letters that resumes at ``position``."""
    return _encode(f"d:{position.failed_at!r}:{position.sequence}:{position.horizon!r}")


def dead_letter_cursor_position(cursor: str) -> DeadLetterPosition:
    """Where a page of dead letters' ``cursor`` resumes."""
    parts = _decode(cursor, kind="d").split(":")
    if (
        len(parts) != 3
        or not _TIME.fullmatch(parts[0])
        or not _SEQUENCE.fullmatch(parts[1])
        or not _TIME.fullmatch(parts[2])
    ):
        raise StoreError("validation_failed", f"cursor {cursor!r} names no dead letter position")
    return DeadLetterPosition(float(parts[0]), int(parts[1]), float(parts[2]))


def name_prefix_end(prefix: str) -> str:
    """A bound above every name that starts with ``prefix``, for a range scan by name."""
    return prefix + _LAST_CHARACTER
