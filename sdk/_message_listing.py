"""The listMessages call, built once for `Messages` and `AsyncMessages`: one page of messages,
newest first, and how it is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, get_args

from . import _endpoints
from ._arguments import MessageState
from ._checks import check_count, check_resource_name
from ._exceptions import InvalidArgumentError
from ._http import Call, make_call
from ._limits import COUNT_MAX
from ._message_reading import read_message
from ._pages import Page

if TYPE_CHECKING:
    from generated.models import MessageList as GeneratedMessageList

    from ._types import Message

__all__ = ["message_page"]

_STATES: tuple[str, ...] = get_args(MessageState)


def message_page(
    state: MessageState | None, url_group: str | None, limit: int, cursor: str | None
) -> Call[Page[Message]]:
    """One listMessages page: messages in ``state`` and of ``url_group`` when given, ``limit``
    at most, from ``cursor``.

    Raises:
        InvalidArgumentError: `state` is not a message state, or `limit` is not between 1 and
            1000.
        InvalidNameError: `url_group` is not a valid URL group name.
    """
    from generated.types import UNSET

    if state is not None and state not in _STATES:
        raise InvalidArgumentError(f"state must be one of {', '.join(_STATES)}, not {state!r}")
    return make_call(
        _endpoints.list_messages,
        _message_page,
        state=UNSET if state is None else state,
        url_group=UNSET if url_group is None else check_resource_name(url_group, what="URL group"),
        limit=check_count(limit, name="limit", minimum=1, maximum=COUNT_MAX),
        cursor=UNSET if cursor is None else cursor,
    )


def _message_page(result: GeneratedMessageList) -> Page[Message]:
    return Page([read_message(message) for message in result.messages], result.next_cursor)
