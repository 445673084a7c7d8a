"""The filter of the message listings, shared by ``list_messages`` and ``list_logs`` (and meant
for any other operation that picks messages out, such as a bulk action): a message passes when it
matches every part given.

Both backends apply it in the store, where the messages are: SQLite as the conditions of one
statement (sqlite/_message_filter.py), Redis in the listing scripts (lua/lib/filter.lua), which
read the ``document`` form.
"""

from __future__ import annotations

import dataclasses
import json
import math

from .errors import StoreError

__all__ = ["MAX_FILTER_IDS", "MessageFilter"]

# As many ids as openapi.yaml's message_id filter takes.
MAX_FILTER_IDS = 100


@dataclasses.dataclass(frozen=True, slots=True)
class MessageFilter:
    """Which messages (or their events) a listing answers; every part left out passes all.

    ``message_ids``: one of these ids. ``state``: a message's state in ``list_messages``, an
    event's in ``list_logs``. ``url``, ``url_group``, ``label``, ``schedule`` and
    ``flow_control_key``: the message was published to that URL or URL group, with that label, by
    that schedule, under that flow control key. ``since`` (inclusive) and ``until`` (exclusive)
    bound when the message was published, or when the event happened.
    """

    message_ids: tuple[str, ...] = ()
    state: str | None = None
    url: str | None = None
    url_group: str | None = None
    label: str | None = None
    schedule: str | None = None
    flow_control_key: str | None = None
    since: float | None = None
    until: float | None = None

    def check(self, *, states: tuple[str, ...]) -> None:
        """``validation_failed`` unless ``state`` is one of ``states``, the ids are at most
        ``MAX_FILTER_IDS`` and the times are finite.
        """
        if self.state is not None and self.state not in states:
            raise StoreError("validation_failed", f"unknown state {self.state!r}")
        if len(self.message_ids) > MAX_FILTER_IDS:
            raise StoreError(
                "validation_failed", f"at most {MAX_FILTER_IDS} message ids in one filter"
            )
        for name, at in (("since", self.since), ("until", self.until)):
            if at is not None and not math.isfinite(at):
                raise StoreError("validation_failed", f"{name} must be a finite time")

    def document(self) -> str:
        """The filter as JSON text, only the parts given (an empty object passes every message)."""
        parts = {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(self)
            if getattr(self, field.name) not in (None, ())
        }
        if "message_ids" in parts:
            parts["message_ids"] = list(parts["message_ids"])
        return json.dumps(parts, separators=(",", ":"))
