"""The filters `messages.list` and `client.logs` share, as listMessages and listLogs take them:
checked once, before any request, and written as the generated endpoints' arguments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ._checks import check_resource_name
from ._durations import Timestamp, to_datetime
from ._exceptions import InvalidArgumentError
from ._limits import FILTER_IDS_MAX
from ._message_options import check_labels

__all__ = ["FILTER_NAMES", "filter_arguments"]

# The filters' keyword names, beside each listing's own (`limit` and the request options).
FILTER_NAMES = (
    "message_ids",
    "state",
    "url",
    "url_group",
    "label",
    "schedule",
    "flow_control_key",
    "since",
    "until",
)
_MESSAGE_ID = re.compile(r"msg_[0-9A-Za-z]{1,64}")
_MAX_URL = 2048


def filter_arguments(
    *,
    states: tuple[str, ...],
    message_ids: Iterable[str] | None,
    state: str | None,
    url: str | None,
    url_group: str | None,
    label: str | None,
    schedule: str | None,
    flow_control_key: str | None,
    since: Timestamp | None,
    until: Timestamp | None,
) -> dict[str, Any]:
    """The generated endpoint's arguments for the filters given (those left None are left out),
    `state` one of `states`.

    Raises:
        InvalidArgumentError: `state` is not one of `states`, `message_ids` is a single string
            or holds more than 100 ids or one that is not `msg_...`, `url` is not 1 to 2048
            characters, `label` is not a label, or `since`/`until` is neither an aware datetime
            nor Unix seconds.
        InvalidNameError: `url_group`, `schedule` or `flow_control_key` is not a valid name.
    """
    arguments: dict[str, Any] = {}
    if message_ids is not None:
        if isinstance(message_ids, str | bytes):
            raise InvalidArgumentError(
                f"message_ids must be a list of message ids, got {message_ids!r}"
            )
        ids = list(dict.fromkeys(message_ids))
        if len(ids) > FILTER_IDS_MAX:
            raise InvalidArgumentError(f"at most {FILTER_IDS_MAX} message_ids, got {len(ids)}")
        for message_id in ids:
            if not isinstance(message_id, str) or not _MESSAGE_ID.fullmatch(message_id):
                raise InvalidArgumentError(f"{message_id!r} is not a message id (msg_...)")
        arguments["message_id"] = ids
    if state is not None:
        if state not in states:
            raise InvalidArgumentError(f"state must be one of {', '.join(states)}, not {state!r}")
        arguments["state"] = state
    if url is not None:
        if not isinstance(url, str) or not 1 <= len(url) <= _MAX_URL:
            raise InvalidArgumentError(f"url must be 1 to {_MAX_URL} characters, got {url!r}")
        arguments["url_query"] = url
    if url_group is not None:
        arguments["url_group"] = check_resource_name(url_group, what="URL group")
    if label is not None:
        if not isinstance(label, str):
            raise InvalidArgumentError(f"label must be one label, got {label!r}")
        [arguments["label"]] = check_labels([label])
    if schedule is not None:
        arguments["schedule"] = check_resource_name(schedule, what="schedule")
    if flow_control_key is not None:
        arguments["flow_control_key"] = check_resource_name(
            flow_control_key, what="flow control key"
        )
    if since is not None:
        arguments["since"] = to_datetime(since, name="since")
    if until is not None:
        arguments["until"] = to_datetime(until, name="until")
    return arguments
