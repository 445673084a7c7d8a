"""Calling the generated client: typed errors for every failure, retries, PublishError on publish.

The generated layer returns documented 4xx answers as values, lets httpx errors escape and raises
plain ValueError/TypeError/KeyError when an answer does not match the document (an error code
added after this SDK was built, an HTML page from a proxy). Here every non-2xx answer becomes the
typed APIStatusError, built from the raw answer so unreadable problem documents still keep their
status; httpx errors become APIConnectionError/APITimeoutError raised from the original.
"""

from __future__ import annotations

import contextvars
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import httpx

from generated.client import Client as GeneratedClient
from generated.types import Response, Unset

from ._checks import check_idempotency_key
from ._config import Settings
from ._exceptions import (
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APITimeoutError,
    ConfigurationError,
    PublishError,
    make_status_error,
)
from ._retry import RetryPolicy, retry_async, retry_sync

__all__ = [
    "AsyncTransport",
    "Call",
    "Endpoint",
    "SyncTransport",
    "resolve_idempotency_key",
    "make_call",
    "optional",
]

T = TypeVar("T")

# The raw answers to the request in flight, so an answer the generated layer fails to read can
# still be turned into the right typed error. A context variable keeps concurrent requests (threads
# or tasks sharing one client) from seeing each other's answers.
_ANSWERS: contextvars.ContextVar[list[httpx.Response] | None] = contextvars.ContextVar(
    "spool_answers", default=None
)

# What the generated layer raises when an answer does not match the document.
_UNREADABLE = (ValueError, TypeError, KeyError, AttributeError)


class Endpoint(Protocol):
    """A generated endpoint module (`generated.api.<tag>.<operation>`)."""

    __name__: str

    def sync_detailed(self, *args: Any, **kwargs: Any) -> Response[Any]: ...

    async def asyncio_detailed(self, *args: Any, **kwargs: Any) -> Response[Any]: ...


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One API call: the endpoint, its arguments and how to read a successful answer.

    `publish_target` names what is published to; when set, every failure is a PublishError.
    Its arguments (and so its Idempotency-Key) are fixed, so every retry sends the same request.
    """

    endpoint: Endpoint
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    read: Callable[[Any], T]
    publish_target: str | None = None

    @property
    def what(self) -> str:
        """The operation's name, for logs."""
        return self.endpoint.__name__.rpartition(".")[2]


def make_call(
    endpoint: Endpoint,
    *args: Any,
    read: Callable[[Any], T],
    publish_target: str | None = None,
    **kwargs: Any,
) -> Call[T]:
    """A Call of `endpoint` with the generated function's own arguments."""
    return Call(endpoint, args, kwargs, read, publish_target)


def resolve_idempotency_key(given: str | None) -> str:
    """The caller's Idempotency-Key, or a fresh one: one per publish call, reused by its retries."""
    return check_idempotency_key(given) if given is not None else str(uuid.uuid4())


def optional(value: T | Unset) -> T | None:
    """A generated optional field with UNSET turned into None."""
    return None if isinstance(value, Unset) else value


def _record_answer(response: httpx.Response) -> None:
    answers = _ANSWERS.get()
    if answers is not None:
        answers.append(response)


async def _arecord_answer(response: httpx.Response) -> None:
    _record_answer(response)


def _adopt(
    http: httpx.Client | httpx.AsyncClient, settings: Settings, record_answer: Callable[..., Any]
) -> None:
    """Point ``http`` at the service with the client's settings and record its raw answers.

    A caller's own client may be handed to several SDK clients, so the hook is added only once.
    """
    http.base_url = httpx.URL(settings.base_url)
    http.timeout = settings.timeout
    if settings.api_key is not None:
        http.headers["Authorization"] = f"Bearer {settings.api_key}"
    if record_answer not in http.event_hooks["response"]:
        http.event_hooks["response"].append(record_answer)


class _Transport:
    """What the sync and async transports share: settings, retry policy and error reading."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._policy = RetryPolicy(max_retries=settings.max_retries)

    def _transport_error(self, error: httpx.RequestError) -> APIConnectionError:
        where = self.settings.display_url
        if isinstance(error, httpx.TimeoutException):
            return APITimeoutError(f"no answer from {where} in time ({type(error).__name__})")
        return APIConnectionError(
            f"could not connect to {where}: {str(error) or type(error).__name__}"
        )

    def _read(self, call: Call[T], response: Response[Any]) -> T:
        status = int(response.status_code)
        if not 200 <= status < 300:
            raise make_status_error(status, response.headers, response.content)
        try:
            return call.read(response.parsed)
        except _UNREADABLE as error:
            raise _unreadable(call, status, error) from error


def _unreadable(call: Call[Any], status: int, error: Exception) -> APIResponseValidationError:
    return APIResponseValidationError(
        f"could not read the {status} answer to {call.what}: {type(error).__name__}: {error}",
        status_code=status,
    )


class SyncTransport(_Transport):
    """Sends calls with an httpx.Client."""

    def __init__(self, settings: Settings, *, http_client: httpx.Client | None) -> None:
        super().__init__(settings)
        if http_client is not None and not isinstance(http_client, httpx.Client):
            raise ConfigurationError(
                f"http_client must be an httpx.Client, got {type(http_client).__name__}"
            )
        self._owns_http_client = http_client is None
        self._http = http_client if http_client is not None else httpx.Client()
        _adopt(self._http, settings, _record_answer)
        self._generated = GeneratedClient(base_url=settings.base_url).set_httpx_client(self._http)

    def send(self, call: Call[T]) -> T:
        """The call's result, retried as the policy allows; failures raise typed errors."""
        try:
            return retry_sync(lambda: self._send_once(call), policy=self._policy, what=call.what)
        except APIError as error:
            if call.publish_target is None:
                raise
            raise PublishError(call.publish_target, str(error)) from error

    def _send_once(self, call: Call[T]) -> T:
        answers: list[httpx.Response] = []
        token = _ANSWERS.set(answers)
        try:
            response = call.endpoint.sync_detailed(
                *call.args, client=self._generated, **call.kwargs
            )
        except httpx.RequestError as error:
            raise self._transport_error(error) from error
        except _UNREADABLE as error:
            if not answers:
                raise
            answer = answers[-1]
            if 200 <= answer.status_code < 300:
                raise _unreadable(call, answer.status_code, error) from error
            # The raw answer says everything the unreadable problem document would have.
            raise make_status_error(answer.status_code, answer.headers, answer.content) from None
        finally:
            _ANSWERS.reset(token)
        return self._read(call, response)

    def close(self) -> None:
        """Close the HTTP client if the SDK created it."""
        if self._owns_http_client:
            self._http.close()


class AsyncTransport(_Transport):
    """Sends calls with an httpx.AsyncClient."""

    def __init__(self, settings: Settings, *, http_client: httpx.AsyncClient | None) -> None:
        super().__init__(settings)
        if http_client is not None and not isinstance(http_client, httpx.AsyncClient):
            raise ConfigurationError(
                f"http_client must be an httpx.AsyncClient, got {type(http_client).__name__}"
            )
        self._owns_http_client = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient()
        _adopt(self._http, settings, _arecord_answer)
        self._generated = GeneratedClient(base_url=settings.base_url).set_async_httpx_client(
            self._http
        )

    async def send(self, call: Call[T]) -> T:
        """The call's result, retried as the policy allows; failures raise typed errors."""
        try:
            return await retry_async(
                lambda: self._send_once(call), policy=self._policy, what=call.what
            )
        except APIError as error:
            if call.publish_target is None:
                raise
            raise PublishError(call.publish_target, str(error)) from error

    async def _send_once(self, call: Call[T]) -> T:
        answers: list[httpx.Response] = []
        token = _ANSWERS.set(answers)
        try:
            response = await call.endpoint.asyncio_detailed(
                *call.args, client=self._generated, **call.kwargs
            )
        except httpx.RequestError as error:
            raise self._transport_error(error) from error
        except _UNREADABLE as error:
            if not answers:
                raise
            answer = answers[-1]
            if 200 <= answer.status_code < 300:
                raise _unreadable(call, answer.status_code, error) from error
            # The raw answer says everything the unreadable problem document would have.
            raise make_status_error(answer.status_code, answer.headers, answer.content) from None
        finally:
            _ANSWERS.reset(token)
        return self._read(call, response)

    async def aclose(self) -> None:
        """Close the HTTP client if the SDK created it."""
        if self._owns_http_client:
            await self._http.aclose()
