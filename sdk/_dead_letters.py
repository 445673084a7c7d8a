"""Dead letters: messages whose retries ran out, to retry or delete, one at a time or in bulk.

The bulk methods send bounded requests: `retry_many` and `delete_many` name up to 1000 ids per
request, `retry_all` and `delete_all` act on one page of dead letters per request and follow the
service's cursor until it has looked at every one, so a large DLQ never makes one long request.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, TypeVar, Unpack

from . import _endpoints
from ._checks import check_count, check_resource_name
from ._config import RequestOptions
from ._durations import Timestamp, to_datetime
from ._exceptions import InvalidArgumentError
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
    DEAD_LETTER_FILTER_URL_MAX_LENGTH,
    DEAD_LETTER_IDS_MAX,
)
from ._message_options import check_labels, forwarded_headers
from ._message_reading import read_receipt

if TYPE_CHECKING:
    from generated.models import (
        DeadLetter as GeneratedDeadLetter,
        DeadLetterBulkResult,
        DeadLetterFilter,
        ForwardedHeaders,
    )

    from ._types import DeadLetter, DeadLetterResult, MessageReceipt

__all__ = ["AsyncDeadLetters", "DeadLetters"]

T = TypeVar("T")


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
    def retry(message_id: str, headers: Mapping[str, str] | None) -> Call[MessageReceipt]:
        """One retryDeadLetter call, with a body only when it sets headers; the service checks
        the id.

        Raises:
            InvalidArgumentError: a header's name or value is not a str.
        """
        if headers is None:
            return make_call(_endpoints.retry_dead_letter, read_receipt, message_id)
        from generated.models import RetryDeadLetterRequest

        body = RetryDeadLetterRequest(headers=forwarded_headers(headers))
        return make_call(_endpoints.retry_dead_letter, read_receipt, message_id, body=body)

    @staticmethod
    def delete(message_id: str) -> Call[None]:
        """One deleteDeadLetter call; the service checks the id."""
        return make_call(_endpoints.delete_dead_letter, lambda _: None, message_id)


class _Bulk:
    """The requests of one bulk retry or delete, its arguments checked once: `by_ids` for the
    named ids, `page` for one page of a filter (or of all) from a cursor.
    """

    def __init__(self, retrying: bool, headers: Mapping[str, str] | None) -> None:
        self._retrying = retrying
        self._headers: ForwardedHeaders | None = (
            None if headers is None else forwarded_headers(headers)
        )

    @staticmethod
    def ids(message_ids: Iterable[str]) -> builtins.list[builtins.list[str]]:
        """The distinct ids in order, cut into requests of at most 1000.

        Raises:
            InvalidArgumentError: an id is not a non-empty str.
        """
        distinct = builtins.list(dict.fromkeys(_checked_ids(message_ids)))
        return [
            distinct[start : start + DEAD_LETTER_IDS_MAX]
            for start in range(0, len(distinct), DEAD_LETTER_IDS_MAX)
        ]

    def by_ids(self, chunk: builtins.list[str]) -> Call[builtins.list[DeadLetterResult]]:
        """One request naming `chunk`, read as what became of each id."""
        return self._call(_results, ids=chunk)

    def page(
        self, selection: DeadLetterFilter | None, limit: int, cursor: str | None
    ) -> Call[tuple[int, str | None]]:
        """One request of a page of `selection` (None: all), read as the count acted on and the
        next cursor.
        """
        return self._call(
            _acted, selection=selection, every=selection is None, limit=limit, cursor=cursor
        )

    def _call(
        self,
        read: Callable[[DeadLetterBulkResult], T],
        *,
        ids: builtins.list[str] | None = None,
        selection: DeadLetterFilter | None = None,
        every: bool = False,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[T]:
        from generated.models import DeleteDeadLettersRequest, RetryDeadLettersRequest
        from generated.types import UNSET

        if self._retrying:
            return make_call(
                _endpoints.retry_dead_letters,
                read,
                body=RetryDeadLettersRequest(
                    ids=UNSET if ids is None else ids,
                    filter_=UNSET if selection is None else selection,
                    all_=True if every else UNSET,
                    limit=UNSET if limit is None else limit,
                    cursor=UNSET if cursor is None else cursor,
                    headers=UNSET if self._headers is None else self._headers,
                ),
            )
        return make_call(
            _endpoints.delete_dead_letters,
            read,
            body=DeleteDeadLettersRequest(
                ids=UNSET if ids is None else ids,
                filter_=UNSET if selection is None else selection,
                all_=True if every else UNSET,
                limit=UNSET if limit is None else limit,
                cursor=UNSET if cursor is None else cursor,
            ),
        )


def _selection(
    *,
    url: str | None,
    url_group: str | None,
    label: str | None,
    schedule: str | None,
    flow_control_key: str | None,
    since: Timestamp | None,
    until: Timestamp | None,
) -> DeadLetterFilter | None:
    """The request's filter of the keywords given; None when none is (every dead letter).

    Raises:
        InvalidArgumentError: `url` is empty or longer than 2048 characters, `label` is not a
            label, `since` or `until` is not an aware datetime or Unix seconds.
        InvalidNameError: `url_group`, `schedule` or `flow_control_key` is not a valid name.
    """
    given = (url, url_group, label, schedule, flow_control_key, since, until)
    if all(value is None for value in given):
        return None
    from generated.models import DeadLetterFilter
    from generated.types import UNSET

    if url is not None and (
        not isinstance(url, str) or not 1 <= len(url) <= DEAD_LETTER_FILTER_URL_MAX_LENGTH
    ):
        raise InvalidArgumentError(
            f"url must be a str of 1 to {DEAD_LETTER_FILTER_URL_MAX_LENGTH} characters"
        )
    if label is not None and not isinstance(label, str):
        raise InvalidArgumentError(f"label must be one label, got {label!r}")
    return DeadLetterFilter(
        url=UNSET if url is None else url,
        url_group=UNSET if url_group is None else check_resource_name(url_group, what="url_group"),
        label=UNSET if label is None else check_labels([label])[0],
        schedule=UNSET if schedule is None else check_resource_name(schedule, what="schedule"),
        flow_control_key=(
            UNSET
            if flow_control_key is None
            else check_resource_name(flow_control_key, what="flow control key")
        ),
        from_=UNSET if since is None else to_datetime(since, name="since"),
        to=UNSET if until is None else to_datetime(until, name="until"),
    )


def _page_size(page_size: int) -> int:
    return check_count(page_size, name="page_size", minimum=1, maximum=COUNT_MAX)


def _checked_ids(message_ids: Iterable[str]) -> builtins.list[str]:
    if isinstance(message_ids, str):
        raise InvalidArgumentError("message_ids must be an iterable of ids, not one str")
    ids = builtins.list(message_ids)
    for message_id in ids:
        if not isinstance(message_id, str) or not message_id:
            raise InvalidArgumentError(
                f"each message id must be a non-empty str, got {message_id!r}"
            )
    return ids


def _acted(result: DeadLetterBulkResult) -> tuple[int, str | None]:
    return result.acted, result.next_cursor


def _results(result: DeadLetterBulkResult) -> builtins.list[DeadLetterResult]:
    from ._types import DeadLetterResult

    return [
        DeadLetterResult(message_id=item.message_id, outcome=item.outcome)
        for item in optional(result.results) or []
    ]


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
    def retry(
        self,
        message_id: str,
        *,
        headers: Mapping[str, str] | None = None,
        **options: Unpack[RequestOptions],
    ) -> MessageReceipt:
        """Deliver a dead letter again, now, with its retries counted from zero; `headers`
        replace its forwarded headers of the same names (in any letter case) or are added.

        Returns:
            The message's new MessageReceipt.

        Raises:
            InvalidArgumentError: a header's name or value is not a str.
            BadRequestError: `message_id` is not a message id (`msg_...`).
            NotFoundError: there is no dead letter of that id.
            PermissionDeniedError: the token lacks `admin` on messages.
            UnprocessableEntityError: a header is malformed or one the service sets.
        """
        return self._transport.send(_DeadLetterCalls.retry(message_id, headers), options)

    @takes_request_options
    def retry_many(
        self,
        message_ids: Iterable[str],
        *,
        headers: Mapping[str, str] | None = None,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[DeadLetterResult]:
        """Retry the named dead letters as `retry` does (`headers` included), up to 1000 per
        request; each is retried once however many calls name it at the same time.

        Returns:
            One DeadLetterResult per distinct id, in order: `retried`, `not_found` or
            `permission_denied`.

        Raises:
            InvalidArgumentError: an id is not a non-empty str, or a header not str to str.
            PermissionDeniedError: the token lacks `admin` on messages.
            UnprocessableEntityError: a header is malformed or one the service sets.
        """
        bulk = _Bulk(retrying=True, headers=headers)
        results: builtins.list[DeadLetterResult] = []
        for chunk in bulk.ids(message_ids):
            answered = self._transport.send(bulk.by_ids(chunk), options)
            results += answered
        return results

    @takes_request_options
    def retry_all(
        self,
        *,
        url: str | None = None,
        url_group: str | None = None,
        label: str | None = None,
        schedule: str | None = None,
        flow_control_key: str | None = None,
        since: Timestamp | None = None,
        until: Timestamp | None = None,
        headers: Mapping[str, str] | None = None,
        page_size: int = 100,
        **options: Unpack[RequestOptions],
    ) -> int:
        """Retry, as `retry` does, every dead letter that matches all the filters given (every
        one when none is): to `url`, published to `url_group`, with `label`, by `schedule`,
        under `flow_control_key` (as `messages.list` takes them), filed from `since` (included)
        until `until` (not included). One request per `page_size` dead letters looked at,
        oldest first, so a large DLQ is handled in bounded requests; letters the token lacks
        `admin` on are passed over. Only the dead letters filed by the time of the first request
        are looked at, so a letter retried here that fails again waits for the next call.

        Returns:
            How many dead letters were retried.

        Raises:
            InvalidArgumentError: `page_size` is not between 1 and 1000, `url` is empty or too
                long, `label` is not a label, `since` or `until` is a naive datetime, or a
                header is not str to str.
            InvalidNameError: `url_group`, `schedule` or `flow_control_key` is not a valid
                name.
            PermissionDeniedError: the token lacks `admin` on messages.
            UnprocessableEntityError: a header is malformed or one the service sets.
        """
        bulk = _Bulk(retrying=True, headers=headers)
        selection = _selection(
            url=url,
            url_group=url_group,
            label=label,
            schedule=schedule,
            flow_control_key=flow_control_key,
            since=since,
            until=until,
        )
        limit = _page_size(page_size)
        acted, cursor = self._transport.send(bulk.page(selection, limit, None), options)
        while cursor is not None:
            more, cursor = self._transport.send(bulk.page(selection, limit, cursor), options)
            acted += more
        return acted

    @takes_request_options
    def delete(self, message_id: str, **options: Unpack[RequestOptions]) -> None:
        """Forget a dead letter; the message's status stays readable.

        Raises:
            BadRequestError: `message_id` is not a message id (`msg_...`).
            NotFoundError: there is no dead letter of that id.
            PermissionDeniedError: the token lacks `admin` on messages.
        """
        self._transport.send(_DeadLetterCalls.delete(message_id), options)

    @takes_request_options
    def delete_many(
        self, message_ids: Iterable[str], **options: Unpack[RequestOptions]
    ) -> builtins.list[DeadLetterResult]:
        """Forget the named dead letters as `delete` does, up to 1000 per request.

        Returns:
            One DeadLetterResult per distinct id, in order: `deleted`, `not_found` or
            `permission_denied`.

        Raises:
            InvalidArgumentError: an id is not a non-empty str.
            PermissionDeniedError: the token lacks `admin` on messages.
        """
        bulk = _Bulk(retrying=False, headers=None)
        results: builtins.list[DeadLetterResult] = []
        for chunk in bulk.ids(message_ids):
            answered = self._transport.send(bulk.by_ids(chunk), options)
            results += answered
        return results

    @takes_request_options
    def delete_all(
        self,
        *,
        url: str | None = None,
        url_group: str | None = None,
        label: str | None = None,
        schedule: str | None = None,
        flow_control_key: str | None = None,
        since: Timestamp | None = None,
        until: Timestamp | None = None,
        page_size: int = 100,
        **options: Unpack[RequestOptions],
    ) -> int:
        """Forget, as `delete` does, every dead letter that matches all the filters given
        (every one when none is), with the filters and pages of `retry_all`.

        Returns:
            How many dead letters were deleted.

        Raises:
            InvalidArgumentError: `page_size` is not between 1 and 1000, `url` is empty or too
                long, `label` is not a label, or `since` or `until` is a naive datetime.
            InvalidNameError: `url_group`, `schedule` or `flow_control_key` is not a valid
                name.
            PermissionDeniedError: the token lacks `admin` on messages.
        """
        bulk = _Bulk(retrying=False, headers=None)
        selection = _selection(
            url=url,
            url_group=url_group,
            label=label,
            schedule=schedule,
            flow_control_key=flow_control_key,
            since=since,
            until=until,
        )
        limit = _page_size(page_size)
        acted, cursor = self._transport.send(bulk.page(selection, limit, None), options)
        while cursor is not None:
            more, cursor = self._transport.send(bulk.page(selection, limit, cursor), options)
            acted += more
        return acted


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
    async def retry(
        self,
        message_id: str,
        *,
        headers: Mapping[str, str] | None = None,
        **options: Unpack[RequestOptions],
    ) -> MessageReceipt:
        """Deliver a dead letter again, now, with its retries counted from zero; `headers`
        replace its forwarded headers of the same names (in any letter case) or are added.

        Returns:
            The message's new MessageReceipt.

        Raises:
            InvalidArgumentError: a header's name or value is not a str.
            BadRequestError: `message_id` is not a message id (`msg_...`).
            NotFoundError: there is no dead letter of that id.
            PermissionDeniedError: the token lacks `admin` on messages.
            UnprocessableEntityError: a header is malformed or one the service sets.
        """
        return await self._transport.send(_DeadLetterCalls.retry(message_id, headers), options)

    @takes_request_options
    async def retry_many(
        self,
        message_ids: Iterable[str],
        *,
        headers: Mapping[str, str] | None = None,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[DeadLetterResult]:
        """Retry the named dead letters as `retry` does (`headers` included), up to 1000 per
        request; each is retried once however many calls name it at the same time.

        Returns:
            One DeadLetterResult per distinct id, in order: `retried`, `not_found` or
            `permission_denied`.

        Raises:
            InvalidArgumentError: an id is not a non-empty str, or a header not str to str.
            PermissionDeniedError: the token lacks `admin` on messages.
            UnprocessableEntityError: a header is malformed or one the service sets.
        """
        bulk = _Bulk(retrying=True, headers=headers)
        results: builtins.list[DeadLetterResult] = []
        for chunk in bulk.ids(message_ids):
            answered = await self._transport.send(bulk.by_ids(chunk), options)
            results += answered
        return results

    @takes_request_options
    async def retry_all(
        self,
        *,
        url: str | None = None,
        url_group: str | None = None,
        label: str | None = None,
        schedule: str | None = None,
        flow_control_key: str | None = None,
        since: Timestamp | None = None,
        until: Timestamp | None = None,
        headers: Mapping[str, str] | None = None,
        page_size: int = 100,
        **options: Unpack[RequestOptions],
    ) -> int:
        """Retry, as `retry` does, every dead letter that matches all the filters given (every
        one when none is): to `url`, published to `url_group`, with `label`, by `schedule`,
        under `flow_control_key` (as `messages.list` takes them), filed from `since` (included)
        until `until` (not included). One request per `page_size` dead letters looked at,
        oldest first, so a large DLQ is handled in bounded requests; letters the token lacks
        `admin` on are passed over. Only the dead letters filed by the time of the first request
        are looked at, so a letter retried here that fails again waits for the next call.

        Returns:
            How many dead letters were retried.

        Raises:
            InvalidArgumentError: `page_size` is not between 1 and 1000, `url` is empty or too
                long, `label` is not a label, `since` or `until` is a naive datetime, or a
                header is not str to str.
            InvalidNameError: `url_group`, `schedule` or `flow_control_key` is not a valid
                name.
            PermissionDeniedError: the token lacks `admin` on messages.
            UnprocessableEntityError: a header is malformed or one the service sets.
        """
        bulk = _Bulk(retrying=True, headers=headers)
        selection = _selection(
            url=url,
            url_group=url_group,
            label=label,
            schedule=schedule,
            flow_control_key=flow_control_key,
            since=since,
            until=until,
        )
        limit = _page_size(page_size)
        acted, cursor = await self._transport.send(bulk.page(selection, limit, None), options)
        while cursor is not None:
            more, cursor = await self._transport.send(bulk.page(selection, limit, cursor), options)
            acted += more
        return acted

    @takes_request_options
    async def delete(self, message_id: str, **options: Unpack[RequestOptions]) -> None:
        """Forget a dead letter; the message's status stays readable.

        Raises:
            BadRequestError: `message_id` is not a message id (`msg_...`).
            NotFoundError: there is no dead letter of that id.
            PermissionDeniedError: the token lacks `admin` on messages.
        """
        await self._transport.send(_DeadLetterCalls.delete(message_id), options)

    @takes_request_options
    async def delete_many(
        self, message_ids: Iterable[str], **options: Unpack[RequestOptions]
    ) -> builtins.list[DeadLetterResult]:
        """Forget the named dead letters as `delete` does, up to 1000 per request.

        Returns:
            One DeadLetterResult per distinct id, in order: `deleted`, `not_found` or
            `permission_denied`.

        Raises:
            InvalidArgumentError: an id is not a non-empty str.
            PermissionDeniedError: the token lacks `admin` on messages.
        """
        bulk = _Bulk(retrying=False, headers=None)
        results: builtins.list[DeadLetterResult] = []
        for chunk in bulk.ids(message_ids):
            answered = await self._transport.send(bulk.by_ids(chunk), options)
            results += answered
        return results

    @takes_request_options
    async def delete_all(
        self,
        *,
        url: str | None = None,
        url_group: str | None = None,
        label: str | None = None,
        schedule: str | None = None,
        flow_control_key: str | None = None,
        since: Timestamp | None = None,
        until: Timestamp | None = None,
        page_size: int = 100,
        **options: Unpack[RequestOptions],
    ) -> int:
        """Forget, as `delete` does, every dead letter that matches all the filters given
        (every one when none is), with the filters and pages of `retry_all`.

        Returns:
            How many dead letters were deleted.

        Raises:
            InvalidArgumentError: `page_size` is not between 1 and 1000, `url` is empty or too
                long, `label` is not a label, or `since` or `until` is a naive datetime.
            InvalidNameError: `url_group`, `schedule` or `flow_control_key` is not a valid
                name.
            PermissionDeniedError: the token lacks `admin` on messages.
        """
        bulk = _Bulk(retrying=False, headers=None)
        selection = _selection(
            url=url,
            url_group=url_group,
            label=label,
            schedule=schedule,
            flow_control_key=flow_control_key,
            since=since,
            until=until,
        )
        limit = _page_size(page_size)
        acted, cursor = await self._transport.send(bulk.page(selection, limit, None), options)
        while cursor is not None:
            more, cursor = await self._transport.send(bulk.page(selection, limit, cursor), options)
            acted += more
        return acted


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
