"""The listMessages and listLogs calls, built once for the sync and async twins: one page of
messages or of their events, newest first, and how it is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_args

from . import _endpoints
from ._arguments import LogState, MessageState
from ._checks import check_count
from ._http import Call, make_call
from ._limits import COUNT_MAX
from ._message_reading import read_log_event, read_message
from ._pages import Page

if TYPE_CHECKING:
    from generated.models import LogList as GeneratedLogList, MessageList as GeneratedMessageList

    from ._types import LogEvent, Message

__all__ = ["LOG_STATES", "MESSAGE_STATES", "log_page", "message_page"]

MESSAGE_STATES: tuple[str, ...] = get_args(MessageState)
LOG_STATES: tuple[str, ...] = get_args(LogState)


def message_page(filters: dict[str, Any], limit: int, cursor: str | None) -> Call[Page[Message]]:
    """One listMessages page: the messages that pass `filters` (checked by
    `filter_arguments`), `limit` at most, from `cursor`.

    Raises:
        InvalidArgumentError: `limit` is not between 1 and 1000.
    """
    from generated.types import UNSET

    return make_call(
        _endpoints.list_messages,
        _message_page,
        **filters,
        limit=check_count(limit, name="limit", minimum=1, maximum=COUNT_MAX),
        cursor=UNSET if cursor is None else cursor,
    )


def log_page(filters: dict[str, Any], limit: int, cursor: str | None) -> Call[Page[LogEvent]]:
    """One listLogs page: the events that pass `filters` (checked by `filter_arguments`),
    `limit` at most, from `cursor`.

    Raises:
        InvalidArgumentError: `limit` is not between 1 and 1000.
    """
    from generated.types import UNSET

    return make_call(
        _endpoints.list_logs,
        _log_page,
        **filters,
        limit=check_count(limit, name="limit", minimum=1, maximum=COUNT_MAX),
        cursor=UNSET if cursor is None else cursor,
    )


def _message_page(result: GeneratedMessageList) -> Page[Message]:
    return Page([read_message(message) for message in result.messages], result.next_cursor)


def _log_page(result: GeneratedLogList) -> Page[LogEvent]:
    return Page([read_log_event(event) for event in result.events], result.next_cursor)
