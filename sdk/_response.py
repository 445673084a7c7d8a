"""Raw responses: `client.with_raw_response.<resource>.<method>(...)` returns a RawResponse, the
HTTP answer (status, headers, request id, elapsed time) together with what the plain call returns.

The calls are the client's own, made unchanged; the transport hands each answer it reads to the
Capture that the call's context holds (a ContextVar, so threads and tasks each have their own),
and the wrapper builds the RawResponse from the last one (the last page's, for a call such as
`dead_letters.retry_all` that sends one request per page). So every operation gets a raw form
without a second code path through the resources: a view class per resource names the methods,
typed from the methods themselves (ParamSpec keeps parameters and overloads), and a test holds
each view to its resource. The views use a client without batching, since a call's own answer
is what they show, not a batch's.

Only calls that make their request when called have a raw form: not the listings that page as
they are iterated, nor `publish_nowait`, the decorators and the worker loop.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar

import httpx

from ._exceptions import InvalidArgumentError

if TYPE_CHECKING:
    from ._async_client import AsyncClient
    from ._client import Client
    from ._dead_letters import AsyncDeadLetters, DeadLetters
    from ._flow_control import AsyncFlowControlKeys, FlowControlKeys
    from ._messages import AsyncMessages, Messages
    from ._queues import AsyncQueue, AsyncQueues, Queue, Queues
    from ._schedules import AsyncSchedules, Schedules
    from ._streams import AsyncStreams, Streams
    from ._url_groups import AsyncUrlGroups, UrlGroups

__all__ = [
    "CAPTURE",
    "AsyncClientWithRawResponse",
    "AsyncDeadLettersWithRawResponse",
    "AsyncFlowControlKeysWithRawResponse",
    "AsyncMessagesWithRawResponse",
    "AsyncQueueWithRawResponse",
    "AsyncQueuesWithRawResponse",
    "AsyncSchedulesWithRawResponse",
    "AsyncStreamsWithRawResponse",
    "AsyncUrlGroupsWithRawResponse",
    "Capture",
    "ClientWithRawResponse",
    "DeadLettersWithRawResponse",
    "FlowControlKeysWithRawResponse",
    "MessagesWithRawResponse",
    "QueueWithRawResponse",
    "QueuesWithRawResponse",
    "RawResponse",
    "SchedulesWithRawResponse",
    "StreamsWithRawResponse",
    "UrlGroupsWithRawResponse",
    "raw_async",
    "raw_sync",
]

P = ParamSpec("P")
T = TypeVar("T")


class RawResponse(Generic[T]):
    """The HTTP answer to one call and its result: what `client.with_raw_response` returns.

    ```python
    raw = client.with_raw_response.streams.info("events")
    print(raw.status_code, raw.request_id, raw.elapsed, raw.headers["content-type"])
    info = raw.parse()  # the StreamInfo `client.streams.info("events")` returns
    ```

    A call retried is the answer of its last attempt (`retries_taken` says how many came
    before). A failure raises the same typed error as the plain call.
    """

    __slots__ = ("_parsed", "http_response", "retries_taken")

    def __init__(self, http_response: httpx.Response, parsed: T, *, retries_taken: int) -> None:
        self.http_response = http_response
        self.retries_taken = retries_taken
        self._parsed = parsed

    @property
    def status_code(self) -> int:
        """The HTTP status, such as 201."""
        return self.http_response.status_code

    @property
    def headers(self) -> httpx.Headers:
        """The answer's headers (case-insensitive)."""
        return self.http_response.headers

    @property
    def request_id(self) -> str | None:
        """The service's id for the request (`X-Request-Id`), to quote in a support request."""
        request_id: str | None = self.http_response.headers.get("x-request-id")
        return request_id

    @property
    def elapsed(self) -> datetime.timedelta:
        """From sending the request to the end of the answer."""
        return self.http_response.elapsed

    @property
    def method(self) -> str:
        """The request's method."""
        return self.http_response.request.method

    @property
    def url(self) -> httpx.URL:
        """The request's URL."""
        return self.http_response.request.url

    @property
    def content(self) -> bytes:
        """The answer's body, as sent."""
        return self.http_response.content

    @property
    def text(self) -> str:
        """The answer's body, decoded."""
        return self.http_response.text

    def json(self) -> Any:
        """The response's body as parsed JSON, exactly as the service wrote it.

        Returns:
            The decoded JSON value.

        Raises:
            json.JSONDecodeError: The body is not JSON (a `ValueError`).
        """
        return self.http_response.json()

    def parse(self) -> T:
        """What the plain call returns, such as the entry id of a publish.

        Returns:
            The plain call's result, read when the response arrived.
        """
        return self._parsed

    def __repr__(self) -> str:
        request = self.http_response.request
        return f"<RawResponse [{self.status_code}] {request.method} {request.url.path}>"


class Capture:
    """Where the transport leaves the answers of the calls a raw wrapper makes."""

    __slots__ = ("attempts", "response", "retries_taken")

    def __init__(self) -> None:
        self.attempts = 0
        self.response: httpx.Response | None = None
        self.retries_taken = 0

    def sending(self) -> None:
        """A call starts: its attempts are counted from here."""
        self.attempts = 0

    def attempting(self) -> None:
        """One attempt of the call is made."""
        self.attempts += 1

    def answered(self, response: httpx.Response) -> None:
        """An attempt got `response`; the last one is the call's."""
        self.response = response
        self.retries_taken = self.attempts - 1

    def raw(self, parsed: T, where: str) -> RawResponse[T]:
        """The RawResponse of the captured answer and `parsed`.

        Raises:
            InvalidArgumentError: the call sent no request, as when there was nothing to send.
        """
        if self.response is None:
            raise InvalidArgumentError(
                f"{where}() sent no request (its arguments left nothing to send), "
                "so it has no raw response"
            )
        return RawResponse(self.response, parsed, retries_taken=self.retries_taken)


CAPTURE: ContextVar[Capture | None] = ContextVar("sdk_raw_response", default=None)


def raw_sync(method: Callable[P, T]) -> Callable[P, RawResponse[T]]:
    """`method`, returning the RawResponse of its request instead of its result."""

    @functools.wraps(method)
    def call(*args: P.args, **kwargs: P.kwargs) -> RawResponse[T]:
        capture = Capture()
        token = CAPTURE.set(capture)
        try:
            result = method(*args, **kwargs)
        finally:
            CAPTURE.reset(token)
        return capture.raw(result, method.__qualname__)

    return call


def raw_async(
    method: Callable[P, Awaitable[T]],
) -> Callable[P, Coroutine[Any, Any, RawResponse[T]]]:
    """`raw_sync` for a coroutine method: awaiting the wrapper gives the RawResponse."""

    @functools.wraps(method)
    async def call(*args: P.args, **kwargs: P.kwargs) -> RawResponse[T]:
        capture = Capture()
        token = CAPTURE.set(capture)
        try:
            result = await method(*args, **kwargs)
        finally:
            CAPTURE.reset(token)
        return capture.raw(result, method.__qualname__)

    return call


class StreamsWithRawResponse:
    """`Streams`' calls, each returning a RawResponse."""

    def __init__(self, streams: Streams) -> None:
        self.publish = raw_sync(streams.publish)
        self.publish_many = raw_sync(streams.publish_many)
        self.length = raw_sync(streams.length)
        self.info = raw_sync(streams.info)
        self.range = raw_sync(streams.range)
        self.trim = raw_sync(streams.trim)
        self.delete = raw_sync(streams.delete)
        self.create_group = raw_sync(streams.create_group)
        self.delete_group = raw_sync(streams.delete_group)
        self.read_group = raw_sync(streams.read_group)
        self.ack = raw_sync(streams.ack)
        self.claim = raw_sync(streams.claim)
        self.pending = raw_sync(streams.pending)


class AsyncStreamsWithRawResponse:
    """`AsyncStreams`' calls, each returning a RawResponse."""

    def __init__(self, streams: AsyncStreams) -> None:
        self.publish = raw_async(streams.publish)
        self.publish_many = raw_async(streams.publish_many)
        self.length = raw_async(streams.length)
        self.info = raw_async(streams.info)
        self.range = raw_async(streams.range)
        self.trim = raw_async(streams.trim)
        self.delete = raw_async(streams.delete)
        self.create_group = raw_async(streams.create_group)
        self.delete_group = raw_async(streams.delete_group)
        self.read_group = raw_async(streams.read_group)
        self.ack = raw_async(streams.ack)
        self.claim = raw_async(streams.claim)
        self.pending = raw_async(streams.pending)


class QueuesWithRawResponse:
    """`Queues`' calls, each returning a RawResponse."""

    def __init__(self, queues: Queues) -> None:
        self.create = raw_sync(queues.create)
        self.get = raw_sync(queues.get)
        self.list = raw_sync(queues.list)
        self.delete = raw_sync(queues.delete)


class AsyncQueuesWithRawResponse:
    """`AsyncQueues`' calls, each returning a RawResponse."""

    def __init__(self, queues: AsyncQueues) -> None:
        self.create = raw_async(queues.create)
        self.get = raw_async(queues.get)
        self.list = raw_async(queues.list)
        self.delete = raw_async(queues.delete)


class QueueWithRawResponse:
    """A `Queue`'s calls, each returning a RawResponse."""

    def __init__(self, queue: Queue) -> None:
        self.info = raw_sync(queue.info)
        self.publish = raw_sync(queue.publish)
        self.publish_many = raw_sync(queue.publish_many)
        self.lease = raw_sync(queue.lease)
        self.ack = raw_sync(queue.ack)
        self.ack_many = raw_sync(queue.ack_many)
        self.nack = raw_sync(queue.nack)
        self.release = raw_sync(queue.release)
        self.release_many = raw_sync(queue.release_many)
        self.extend = raw_sync(queue.extend)
        self.retry = raw_sync(queue.retry)
        self.job = raw_sync(queue.job)
        self.jobs = raw_sync(queue.jobs)
        self.delete_job = raw_sync(queue.delete_job)


class AsyncQueueWithRawResponse:
    """An `AsyncQueue`'s calls, each returning a RawResponse."""

    def __init__(self, queue: AsyncQueue) -> None:
        self.info = raw_async(queue.info)
        self.publish = raw_async(queue.publish)
        self.publish_many = raw_async(queue.publish_many)
        self.lease = raw_async(queue.lease)
        self.ack = raw_async(queue.ack)
        self.ack_many = raw_async(queue.ack_many)
        self.nack = raw_async(queue.nack)
        self.release = raw_async(queue.release)
        self.release_many = raw_async(queue.release_many)
        self.extend = raw_async(queue.extend)
        self.retry = raw_async(queue.retry)
        self.job = raw_async(queue.job)
        self.jobs = raw_async(queue.jobs)
        self.delete_job = raw_async(queue.delete_job)


class MessagesWithRawResponse:
    """`Messages`' calls, each returning a RawResponse."""

    def __init__(self, messages: Messages) -> None:
        self.publish = raw_sync(messages.publish)
        self.publish_json = raw_sync(messages.publish_json)
        self.batch = raw_sync(messages.batch)
        self.get = raw_sync(messages.get)
        self.cancel = raw_sync(messages.cancel)
        self.signing_keys = raw_sync(messages.signing_keys)


class AsyncMessagesWithRawResponse:
    """`AsyncMessages`' calls, each returning a RawResponse."""

    def __init__(self, messages: AsyncMessages) -> None:
        self.publish = raw_async(messages.publish)
        self.publish_json = raw_async(messages.publish_json)
        self.batch = raw_async(messages.batch)
        self.get = raw_async(messages.get)
        self.cancel = raw_async(messages.cancel)
        self.signing_keys = raw_async(messages.signing_keys)


class UrlGroupsWithRawResponse:
    """`UrlGroups`' calls, each returning a RawResponse."""

    def __init__(self, url_groups: UrlGroups) -> None:
        self.upsert = raw_sync(url_groups.upsert)
        self.get = raw_sync(url_groups.get)
        self.list = raw_sync(url_groups.list)
        self.delete = raw_sync(url_groups.delete)


class AsyncUrlGroupsWithRawResponse:
    """`AsyncUrlGroups`' calls, each returning a RawResponse."""

    def __init__(self, url_groups: AsyncUrlGroups) -> None:
        self.upsert = raw_async(url_groups.upsert)
        self.get = raw_async(url_groups.get)
        self.list = raw_async(url_groups.list)
        self.delete = raw_async(url_groups.delete)


class DeadLettersWithRawResponse:
    """`DeadLetters`' calls, each returning a RawResponse."""

    def __init__(self, dead_letters: DeadLetters) -> None:
        self.list = raw_sync(dead_letters.list)
        self.retry = raw_sync(dead_letters.retry)
        self.retry_many = raw_sync(dead_letters.retry_many)
        self.retry_all = raw_sync(dead_letters.retry_all)
        self.delete = raw_sync(dead_letters.delete)
        self.delete_many = raw_sync(dead_letters.delete_many)
        self.delete_all = raw_sync(dead_letters.delete_all)


class AsyncDeadLettersWithRawResponse:
    """`AsyncDeadLetters`' calls, each returning a RawResponse."""

    def __init__(self, dead_letters: AsyncDeadLetters) -> None:
        self.list = raw_async(dead_letters.list)
        self.retry = raw_async(dead_letters.retry)
        self.retry_many = raw_async(dead_letters.retry_many)
        self.retry_all = raw_async(dead_letters.retry_all)
        self.delete = raw_async(dead_letters.delete)
        self.delete_many = raw_async(dead_letters.delete_many)
        self.delete_all = raw_async(dead_letters.delete_all)


class SchedulesWithRawResponse:
    """`Schedules`' calls, each returning a RawResponse."""

    def __init__(self, schedules: Schedules) -> None:
        self.set = raw_sync(schedules.set)
        self.get = raw_sync(schedules.get)
        self.delete = raw_sync(schedules.delete)
        self.pause = raw_sync(schedules.pause)
        self.resume = raw_sync(schedules.resume)


class AsyncSchedulesWithRawResponse:
    """`AsyncSchedules`' calls, each returning a RawResponse."""

    def __init__(self, schedules: AsyncSchedules) -> None:
        self.set = raw_async(schedules.set)
        self.get = raw_async(schedules.get)
        self.delete = raw_async(schedules.delete)
        self.pause = raw_async(schedules.pause)
        self.resume = raw_async(schedules.resume)


class FlowControlKeysWithRawResponse:
    """`FlowControlKeys`' calls, each returning a RawResponse."""

    def __init__(self, keys: FlowControlKeys) -> None:
        self.get = raw_sync(keys.get)
        self.pause = raw_sync(keys.pause)
        self.resume = raw_sync(keys.resume)
        self.reset = raw_sync(keys.reset)


class AsyncFlowControlKeysWithRawResponse:
    """`AsyncFlowControlKeys`' calls, each returning a RawResponse."""

    def __init__(self, keys: AsyncFlowControlKeys) -> None:
        self.get = raw_async(keys.get)
        self.pause = raw_async(keys.pause)
        self.resume = raw_async(keys.resume)
        self.reset = raw_async(keys.reset)


class ClientWithRawResponse:
    """`client.with_raw_response`: the client's calls, each returning a RawResponse.

    ```python
    raw = client.with_raw_response.publish("events", {"type": "signup"})
    entry_id = raw.parse()
    raw = client.with_raw_response.queue("jobs").publish("email", {"to": "a@example.com"})
    ```
    """

    def __init__(self, client: Client, queue: Callable[[str], Queue]) -> None:
        self.streams = StreamsWithRawResponse(client.streams)
        self.queues = QueuesWithRawResponse(client.queues)
        self.messages = MessagesWithRawResponse(client.messages)
        self.url_groups = UrlGroupsWithRawResponse(client.url_groups)
        self.dead_letters = DeadLettersWithRawResponse(client.dead_letters)
        self.schedules = SchedulesWithRawResponse(client.schedules)
        self.flow_control = FlowControlKeysWithRawResponse(client.flow_control)
        self.publish = raw_sync(client.publish)
        self.publish_many = raw_sync(client.publish_many)
        self.init_queue = raw_sync(client.init_queue)
        self.health = raw_sync(client.health)
        self.whoami = raw_sync(client.whoami)
        self._queue = queue

    def queue(self, name: str) -> QueueWithRawResponse:
        """The calls of queue `name` (sending nothing yet), each returning a RawResponse.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
        """
        return QueueWithRawResponse(self._queue(name))


class AsyncClientWithRawResponse:
    """`client.with_raw_response` of an AsyncClient: its calls, each returning a RawResponse.

    ```python
    raw = await client.with_raw_response.publish("events", {"type": "signup"})
    entry_id = raw.parse()
    ```
    """

    def __init__(self, client: AsyncClient, queue: Callable[[str], AsyncQueue]) -> None:
        self.streams = AsyncStreamsWithRawResponse(client.streams)
        self.queues = AsyncQueuesWithRawResponse(client.queues)
        self.messages = AsyncMessagesWithRawResponse(client.messages)
        self.url_groups = AsyncUrlGroupsWithRawResponse(client.url_groups)
        self.dead_letters = AsyncDeadLettersWithRawResponse(client.dead_letters)
        self.schedules = AsyncSchedulesWithRawResponse(client.schedules)
        self.flow_control = AsyncFlowControlKeysWithRawResponse(client.flow_control)
        self.publish = raw_async(client.publish)
        self.publish_many = raw_async(client.publish_many)
        self.init_queue = raw_async(client.init_queue)
        self.health = raw_async(client.health)
        self.whoami = raw_async(client.whoami)
        self._queue = queue

    def queue(self, name: str) -> AsyncQueueWithRawResponse:
        """The calls of queue `name` (sending nothing yet), each returning a RawResponse.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
        """
        return AsyncQueueWithRawResponse(self._queue(name))
