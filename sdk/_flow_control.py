"""Flow control keys: the state of the keys messages are published with, and pause, resume, reset.

A message publish takes `flow_control=FlowControl(key, rate=..., period=..., parallelism=...)`
(sdk/_message_options.py); `client.flow_control` shows and steers the keys. What each call sends
and reads is built once, in `_FlowControlCalls`, for the sync and async twins.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Unpack

from . import _endpoints
from ._checks import check_count, check_resource_name
from ._config import RequestOptions
from ._http import AsyncTransport, Call, SyncTransport, make_call, optional
from ._keywords import takes_request_options
from ._limits import COUNT_MAX
from ._pages import Page, aiterate_pages, iterate_pages

if TYPE_CHECKING:
    from generated.models import (
        FlowControlList as GeneratedFlowControlList,
        FlowControlState as GeneratedFlowControlState,
    )

    from ._types import FlowControlState

__all__ = ["AsyncFlowControlKeys", "FlowControlKeys"]

_WHAT = "flow control key"


def _state(state: GeneratedFlowControlState) -> FlowControlState:
    from ._types import FlowControlState

    period = optional(state.period)
    return FlowControlState(
        key=state.key,
        rate=optional(state.rate),
        period=None if period is None else timedelta(seconds=period),
        parallelism=optional(state.parallelism),
        paused=state.paused,
        waiting=state.waiting,
        in_flight=state.in_flight,
        rate_used=state.rate_used,
    )


def _page(listing: GeneratedFlowControlList) -> Page[FlowControlState]:
    return Page([_state(state) for state in listing.keys], listing.next_cursor)


class _FlowControlCalls:
    """Builds every flow control call; shared by the sync and async resources."""

    @staticmethod
    def list_page(limit: int, cursor: str | None) -> Call[Page[FlowControlState]]:
        """One listFlowControlKeys page.

        Raises:
            InvalidArgumentError: `limit` is not between 1 and 1000.
        """
        from generated.types import UNSET

        return make_call(
            _endpoints.list_flow_control_keys,
            _page,
            limit=check_count(limit, name="page_size", minimum=1, maximum=COUNT_MAX),
            cursor=UNSET if cursor is None else cursor,
        )

    @staticmethod
    def get(key: str) -> Call[FlowControlState]:
        """One getFlowControl call.

        Raises:
            InvalidNameError: `key` is not a valid flow control key.
        """
        return make_call(_endpoints.get_flow_control, _state, check_resource_name(key, what=_WHAT))

    @staticmethod
    def pause(key: str) -> Call[FlowControlState]:
        """One pauseFlowControl call.

        Raises:
            InvalidNameError: `key` is not a valid flow control key.
        """
        return make_call(
            _endpoints.pause_flow_control, _state, check_resource_name(key, what=_WHAT)
        )

    @staticmethod
    def resume(key: str) -> Call[FlowControlState]:
        """One resumeFlowControl call.

        Raises:
            InvalidNameError: `key` is not a valid flow control key.
        """
        return make_call(
            _endpoints.resume_flow_control, _state, check_resource_name(key, what=_WHAT)
        )

    @staticmethod
    def reset(key: str) -> Call[FlowControlState]:
        """One resetFlowControl call.

        Raises:
            InvalidNameError: `key` is not a valid flow control key.
        """
        return make_call(
            _endpoints.reset_flow_control, _state, check_resource_name(key, what=_WHAT)
        )


class FlowControlKeys:
    """The flow control keys of a `Client` (`client.flow_control`): the limits and state of each
    key messages were published with, and pause, resume and reset.

    Usage:

    ```python
    client.messages.publish_json(
        "https://example.com/hooks/orders",
        {"order": 7},
        flow_control=sdk.FlowControl("acme", rate=10, period="1m", parallelism=2),
    )
    state = client.flow_control.get("acme")
    client.flow_control.pause("acme")
    ```

    Every method also takes the per-call `timeout=`, `max_retries=` and `extra_headers=`
    (`RequestOptions`), which apply to its requests alone; a bad one is a ConfigurationError,
    raised before anything is sent.

    A key spans destinations, so reading keys needs `consume` on every message (named `*`) and
    changing them `admin` on every message. Invalid arguments raise InvalidNameError or
    InvalidArgumentError before any request is sent. Any request may also fail with
    AuthenticationError (401), PermissionDeniedError (403) and, once the client's retries are
    used up, RateLimitError (429), InternalServerError (5xx) or APIConnectionError.
    """

    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport
        self._calls = _FlowControlCalls()

    @takes_request_options
    def list(
        self, *, page_size: int = 100, **options: Unpack[RequestOptions]
    ) -> Iterator[FlowControlState]:
        """Every key a message was published with or that was paused, by key, fetched
        `page_size` at a time as the iterator reaches them.

        Returns:
            An iterator of FlowControlState.

        Raises:
            TypeError: a keyword other than `page_size` and the request options (the closest
                is suggested).
            InvalidArgumentError: `page_size` is not between 1 and 1000.
        """
        return iterate_pages(
            partial(self._transport.send, options=options),
            lambda cursor: self._calls.list_page(page_size, cursor),
        )

    @takes_request_options
    def get(self, key: str, **options: Unpack[RequestOptions]) -> FlowControlState:
        """The key's limits (from its latest publish) and state; a key nothing was published
        with reads as idle, without limits.

        Returns:
            The FlowControlState.

        Raises:
            InvalidNameError: `key` is not a valid flow control key.
        """
        return self._transport.send(self._calls.get(key), options)

    @takes_request_options
    def pause(self, key: str, **options: Unpack[RequestOptions]) -> FlowControlState:
        """Start none of the key's attempts until it is resumed; attempts in flight finish,
        publishing with the key goes on, and nothing is dropped. A key may be paused before
        anything is published with it.

        Returns:
            The FlowControlState, paused.

        Raises:
            InvalidNameError: `key` is not a valid flow control key.
        """
        return self._transport.send(self._calls.pause(key), options)

    @takes_request_options
    def resume(self, key: str, **options: Unpack[RequestOptions]) -> FlowControlState:
        """Let the key's waiting messages be delivered again, within its limits; resuming a key
        that is not paused changes nothing.

        Returns:
            The FlowControlState, not paused.

        Raises:
            InvalidNameError: `key` is not a valid flow control key.
        """
        return self._transport.send(self._calls.resume(key), options)

    @takes_request_options
    def reset(self, key: str, **options: Unpack[RequestOptions]) -> FlowControlState:
        """Forget the attempts counted against the key's rate, so its waiting messages may go at
        once; its limits, pause and attempts in flight stay.

        Returns:
            The FlowControlState, `rate_used` 0.

        Raises:
            InvalidNameError: `key` is not a valid flow control key.
        """
        return self._transport.send(self._calls.reset(key), options)


class AsyncFlowControlKeys:
    """The flow control keys of an `AsyncClient` (`aclient.flow_control`), awaited; see
    `FlowControlKeys`.

    Usage:

    ```python
    state = await aclient.flow_control.get("acme")
    await aclient.flow_control.resume("acme")
    ```

    Every method also takes the per-call `timeout=`, `max_retries=` and `extra_headers=`
    (`RequestOptions`), which apply to its requests alone; a bad one is a ConfigurationError,
    raised before anything is sent.

    A key spans destinations, so reading keys needs `consume` on every message (named `*`) and
    changing them `admin` on every message. Invalid arguments raise InvalidNameError or
    InvalidArgumentError before any request is sent. Any request may also fail with
    AuthenticationError (401), PermissionDeniedError (403) and, once the client's retries are
    used up, RateLimitError (429), InternalServerError (5xx) or APIConnectionError.
    """

    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport
        self._calls = _FlowControlCalls()

    @takes_request_options
    def list(
        self, *, page_size: int = 100, **options: Unpack[RequestOptions]
    ) -> AsyncIterator[FlowControlState]:
        """Every key a message was published with or that was paused, by key, fetched
        `page_size` at a time as the iterator reaches them: `async for state in
        aclient.flow_control.list()`.

        Returns:
            An async iterator of FlowControlState.

        Raises:
            TypeError: a keyword other than `page_size` and the request options (the closest
                is suggested).
            InvalidArgumentError: `page_size` is not between 1 and 1000.
        """
        return aiterate_pages(
            partial(self._transport.send, options=options),
            lambda cursor: self._calls.list_page(page_size, cursor),
        )

    @takes_request_options
    async def get(self, key: str, **options: Unpack[RequestOptions]) -> FlowControlState:
        """The key's limits (from its latest publish) and state; a key nothing was published
        with reads as idle, without limits.

        Returns:
            The FlowControlState.

        Raises:
            InvalidNameError: `key` is not a valid flow control key.
        """
        return await self._transport.send(self._calls.get(key), options)

    @takes_request_options
    async def pause(self, key: str, **options: Unpack[RequestOptions]) -> FlowControlState:
        """Start none of the key's attempts until it is resumed; attempts in flight finish,
        publishing with the key goes on, and nothing is dropped. A key may be paused before
        anything is published with it.

        Returns:
            The FlowControlState, paused.

        Raises:
            InvalidNameError: `key` is not a valid flow control key.
        """
        return await self._transport.send(self._calls.pause(key), options)

    @takes_request_options
    async def resume(self, key: str, **options: Unpack[RequestOptions]) -> FlowControlState:
        """Let the key's waiting messages be delivered again, within its limits; resuming a key
        that is not paused changes nothing.

        Returns:
            The FlowControlState, not paused.

        Raises:
            InvalidNameError: `key` is not a valid flow control key.
        """
        return await self._transport.send(self._calls.resume(key), options)

    @takes_request_options
    async def reset(self, key: str, **options: Unpack[RequestOptions]) -> FlowControlState:
        """Forget the attempts counted against the key's rate, so its waiting messages may go at
        once; its limits, pause and attempts in flight stay.

        Returns:
            The FlowControlState, `rate_used` 0.

        Raises:
            InvalidNameError: `key` is not a valid flow control key.
        """
        return await self._transport.send(self._calls.reset(key), options)
