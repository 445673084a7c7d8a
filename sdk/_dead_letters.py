"""Dead letters: messages whose retries ran out, to retry or delete."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Unpack

from . import _endpoints
from ._checks import check_count
from ._config import RequestOptions
from ._http import (
    AsyncTransport,
    Call,
    SyncTransport,
    make_call,
    optional,
)
from ._keywords import takes_request_options
from ._limits import (
    COUNT_MAX,
)
from ._message_reading import read_receipt

if TYPE_CHECKING:
    from generated.models import (
        DeadLetter as GeneratedDeadLetter,
    )

    from ._types import DeadLetter, MessageReceipt

__all__ = ["AsyncDeadLetters", "DeadLetters"]


class _DeadLetterCalls:
    """Builds the dead letter calls."""

    @staticmethod
    def list(limit: int) -> Call[builtins.list[DeadLetter]]:
        """One listDeadLetters call.

        Raises:
            InvalidArgumentError: `limit` is not between 1 and 1000.
        """
        return make_call(
            _endpoints.list_dead_letters,
            lambda result: [_dead_letter(letter) for letter in result.dead_letters],
            limit=check_count(limit, name="limit", minimum=1, maximum=COUNT_MAX),
        )

    @staticmethod
    def retry(message_id: str) -> Call[MessageReceipt]:
        """One retryDeadLetter call; the service checks the id."""
        return make_call(_endpoints.retry_dead_letter, read_receipt, message_id)

    @staticmethod
    def delete(message_id: str) -> Call[None]:
        """One deleteDeadLetter call; the service checks the id."""
        return make_call(_endpoints.delete_dead_letter, lambda _: None, message_id)


class DeadLetters:
    """Messages whose retries ran out, of a `Client` (`client.dead_letters`).

    Every method that sends a request also takes the per-call `timeout=`, `max_retries=` and
    `extra_headers=` (`RequestOptions`), which apply to its requests alone; a bad one is a
    ConfigurationError, raised before anything is sent.

    Each method names its own errors below. Invalid arguments raise InvalidArgumentError before
    any request is sent. Any request may also fail with AuthenticationError (401),
    PermissionDeniedError (403) and, once the client's retries are used up, RateLimitError (429),
    InternalServerError (5xx) or APIConnectionError.
    """

    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    @takes_request_options
    def list(
        self, *, limit: int = 100, **options: Unpack[RequestOptions]
    ) -> builtins.list[DeadLetter]:
        """Dead letters, oldest first, with their last error.

        Returns:
            Up to `limit` DeadLetter.

        Raises:
            InvalidArgumentError: `limit` is not between 1 and 1000.
            PermissionDeniedError: the token may not consume messages.
        """
        return self._transport.send(_DeadLetterCalls.list(limit), options)

    @takes_request_options
    def retry(self, message_id: str, **options: Unpack[RequestOptions]) -> MessageReceipt:
        """Deliver a dead letter again, now, with its retries counted from zero.

        Returns:
            The message's new MessageReceipt.

        Raises:
            BadRequestError: `message_id` is not a message id (`msg_...`).
            NotFoundError: there is no dead letter of that id.
            PermissionDeniedError: the token lacks `admin` on messages.
        """
        return self._transport.send(_DeadLetterCalls.retry(message_id), options)

    @takes_request_options
    def delete(self, message_id: str, **options: Unpack[RequestOptions]) -> None:
        """Forget a dead letter; the message's status stays readable.

        Raises:
            BadRequestError: `message_id` is not a message id (`msg_...`).
            NotFoundError: there is no dead letter of that id.
            PermissionDeniedError: the token lacks `admin` on messages.
        """
        self._transport.send(_DeadLetterCalls.delete(message_id), options)


class AsyncDeadLetters:
    """Messages whose retries ran out, of an `AsyncClient` (`aclient.dead_letters`), awaited.

    Every method that sends a request also takes the per-call `timeout=`, `max_retries=` and
    `extra_headers=` (`RequestOptions`), which apply to its requests alone; a bad one is a
    ConfigurationError, raised before anything is sent.

    Each method names its own errors below. Invalid arguments raise InvalidArgumentError before
    any request is sent. Any request may also fail with AuthenticationError (401),
    PermissionDeniedError (403) and, once the client's retries are used up, RateLimitError (429),
    InternalServerError (5xx) or APIConnectionError.
    """

    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    @takes_request_options
    async def list(
        self, *, limit: int = 100, **options: Unpack[RequestOptions]
    ) -> builtins.list[DeadLetter]:
        """Dead letters, oldest first, with their last error.

        Returns:
            Up to `limit` DeadLetter.

        Raises:
            InvalidArgumentError: `limit` is not between 1 and 1000.
            PermissionDeniedError: the token may not consume messages.
        """
        return await self._transport.send(_DeadLetterCalls.list(limit), options)

    @takes_request_options
    async def retry(self, message_id: str, **options: Unpack[RequestOptions]) -> MessageReceipt:
        """Deliver a dead letter again, now, with its retries counted from zero.

        Returns:
            The message's new MessageReceipt.

        Raises:
            BadRequestError: `message_id` is not a message id (`msg_...`).
            NotFoundError: there is no dead letter of that id.
            PermissionDeniedError: the token lacks `admin` on messages.
        """
        return await self._transport.send(_DeadLetterCalls.retry(message_id), options)

    @takes_request_options
    async def delete(self, message_id: str, **options: Unpack[RequestOptions]) -> None:
        """Forget a dead letter; the message's status stays readable.

        Raises:
            BadRequestError: `message_id` is not a message id (`msg_...`).
            NotFoundError: there is no dead letter of that id.
            PermissionDeniedError: the token lacks `admin` on messages.
        """
        await self._transport.send(_DeadLetterCalls.delete(message_id), options)


def _dead_letter(letter: GeneratedDeadLetter) -> DeadLetter:
    from ._types import DeadLetter

    return DeadLetter(
        message_id=letter.message_id,
        url=letter.url,
        attempts=letter.attempts,
        last_error=optional(letter.last_error),
        last_status_code=optional(letter.last_status_code),
        failed_at=letter.failed_at,
    )
