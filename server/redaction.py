"""What a message published with ``redact`` shows: the values of the headers it names, and a
schedule's body, as ``"[redacted]"``.

Stores keep the real values, which every delivery sends; only the documents that show a message
or a schedule (server/routes/_documents.py, and so the console and the CLI, which read those or
the same records) are redacted, so no read path can forget it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["REDACTED", "redact_headers", "redact_message_request"]

REDACTED = "[redacted]"


def redact_headers(headers: Mapping[str, str], names: Iterable[str]) -> dict[str, str]:
    """``headers`` with the value of each header named in ``names`` (in any letter case)
    replaced by ``REDACTED``.
    """
    hidden = {name.lower() for name in names}
    if not hidden:
        return dict(headers)
    return {name: REDACTED if name.lower() in hidden else value for name, value in headers.items()}


def redact_message_request(message: Mapping[str, Any]) -> dict[str, Any]:
    """A publishMessage request document (a schedule's message) as it may be shown: its
    ``redact`` applied to its body and to every set of headers.
    """
    shown = dict(message)
    redact = message.get("redact")
    if not isinstance(redact, Mapping):
        return shown
    if redact.get("body") is True:
        shown["body"] = REDACTED
    names = redact.get("headers") or ()
    for field in ("headers", "callback_headers", "failure_callback_headers"):
        headers = message.get(field)
        if isinstance(headers, Mapping):
            shown[field] = redact_headers(headers, names)
    return shown
