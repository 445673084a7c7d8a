"""`AsyncClient`: the asyncio entry point, the twin of `Client` (sdk/_client.py)."""

from __future__ import annotations

import builtins
import contextlib
import inspect
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, Unpack

import httpx

from ._batching import Batching, batching_of
from ._checks import check_resource_name
from ._client_common import (
    HandlerT,
    client_codec,
    client_repr,
    client_settings,
    health_call,
    publisher_stream,
    stream_subscription,
    whoami_call,
)
from ._codec import Codec
from ._config import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_STARTUP_TIMEOUT,
    DEFAULT_TIMEOUT,
    LOOPBACK_DESTINATIONS,
    ClientOptions,
    RequestOptions,
    check_proxy,
)
from ._dead_letters import AsyncDeadLetters
from ._durations import Duration, Timestamp
from ._flow_control import AsyncFlowControlKeys
from ._http import AsyncTransport, own_async_client
from ._keywords import suggests_keywords, takes_request_options
from ._message_filter import filter_arguments
from ._message_listing import LOG_STATES, log_page
from ._messages import AsyncMessages
from ._pages import aiterate_pages
from ._publisher import AsyncPublisher
from ._queue_calls import async_job_batcher, async_job_sender
from ._queues import AsyncQueue, AsyncQueues
from ._response import AsyncClientWithRawResponse
from ._schedules import AsyncSchedules
from ._stream import Stream
from ._stream_calls import async_stream_batcher, async_stream_sender
from ._streams import AsyncStreams
from ._subscriptions import Subscription
from ._url_groups import AsyncUrlGroups

# Imported when first needed: the embedded service (subprocess machinery), the worker loop and
# asyncio cost an application that only publishes nothing.
if TYPE_CHECKING:
    import asyncio
    from asyncio import Future as AsyncFuture

    from ._arguments import LogState
    from ._embedded import EmbeddedService
    from ._types import Health, LogEvent, TokenInfo

__all__ = ["AsyncClient"]


def _stop_started_service(starting: asyncio.Future[EmbeddedService]) -> None:
    if not starting.cancelled() and starting.exception() is None:
        # Stopping waits for the process: not on the event loop.
        starting.get_loop().run_in_executor(None, starting.result().stop)


class AsyncClient:
    """An asyncio Spool client; the same surface as `Client`, with awaitable calls.

    Resources, as on `Client`: `streams` (`AsyncStreams`), `queues` (`AsyncQueues`, and
    `await aclient.init_queue(name)` for an `AsyncQueue`), `messages` (`AsyncMessages`),
    `url_groups` (`AsyncUrlGroups`), `dead_letters` (`AsyncDeadLetters`) and `schedules`
    (`AsyncSchedules`), and the worker: `subscribe`, `publisher`, `run`, `stop`. `with_options(...)`
    gives the same client with another timeout, retries or headers, `with_raw_response` every
    call's HTTP response, and `await client.whoami()` the token sent. Every call that sends
    requests takes `timeout=`, `max_retries=` and `extra_headers=` for itself, as on `Client`.

    `spool-dev-token` is the token of a service in development mode.

    Usage:

    ```python
    import sdk

    async with sdk.AsyncClient("http://127.0.0.1:8321", api_key="spool-dev-token") as client:
        entry_id = await client.publish("events", {"type": "signup", "user": 42})

        @client.subscribe(sdk.Stream("orders", group="billing"))
        async def bill(order: dict) -> None:
            ...

        await client.run(max_messages=10)

    async with await sdk.AsyncClient.embedded() as client:  # see Client.embedded
        await client.publish("events", {"type": "signup", "user": 42})
    ```

    The parameters are `Client`'s (a bad one is a ConfigurationError); `http_client` is an
    `httpx.AsyncClient`, and `batching` coalesces the publishes that concurrent tasks make. For
    aiohttp's HTTP stack (the `spool[aiohttp]` extra), pass `http_client=sdk.AioHttpClient()`
    and close it yourself:

    ```python
    async with sdk.AioHttpClient() as http, sdk.AsyncClient(http_client=http) as client:
        await client.publish("events", {"type": "signup"})
    ```
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry_timeout: Duration | None = None,
        codec: Codec | None = None,
        http_client: httpx.AsyncClient | None = None,
        proxy: str | httpx.URL | httpx.Proxy | None = None,
        batching: Batching | bool = False,
    ) -> None:
        settings = client_settings(
            base_url, api_key, timeout, max_retries, retry_timeout, http_client
        )
        checked_codec = client_codec(codec)
        checked_batching = batching_of(batching)
        transport = AsyncTransport(
            settings, http_client=http_client, proxy=check_proxy(proxy, http_client)
        )
        self._assemble(transport, checked_codec, checked_batching)

    def _assemble(self, transport: AsyncTransport, codec: Codec, batching: Batching | None) -> None:
        # A client around its transport: what __init__ and with_options share.
        self._settings = transport.settings
        self._codec = codec
        self._batching = batching
        self._transport = transport
        self._raw: AsyncClientWithRawResponse | None = None
        self._exit_stack = contextlib.AsyncExitStack()
        self._exit_stack.push_async_callback(self._transport.aclose)
        self._subscriptions: builtins.list[Subscription] = []
        self._stop = threading.Event()
        self._embedded_service: EmbeddedService | None = None
        self._jobs_batched = (
            None
            if self._batching is None
            else async_job_batcher(self._transport, self._codec, self._batching)
        )
        self._entries_batched = (
            None
            if self._batching is None
            else async_stream_batcher(self._transport, self._batching)
        )
        self._jobs_sender = async_job_sender(self._transport, self._codec)
        self._entries_sender = async_stream_sender(self._transport)
        self.streams = AsyncStreams(
            self._transport,
            codec=self._codec,
            batched=self._entries_batched,
            sender=self._entries_sender,
        )
        # Publishes still lingering in an open batch go out before the connections close.
        self._exit_stack.push_async_callback(self._flush_batches)
        self.queues = AsyncQueues(self._transport)
        self.messages = AsyncMessages(self._transport, codec=self._codec)
        self.url_groups = AsyncUrlGroups(self._transport)
        self.schedules = AsyncSchedules(self._transport, codec=self._codec)
        self.dead_letters = AsyncDeadLetters(self._transport)
        self.flow_control = AsyncFlowControlKeys(self._transport)

    @classmethod
    async def embedded(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        store: str | None = None,
        token: str | None = None,
        allow_destinations: Iterable[str] = LOOPBACK_DESTINATIONS,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        tracing: bool = False,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry_timeout: Duration | None = None,
        codec: Codec | None = None,
        batching: Batching | bool = False,
    ) -> Self:
        """An AsyncClient of its own reference service; awaitable, otherwise `Client.embedded`.

        ```python
        async with await sdk.AsyncClient.embedded() as client:
            await client.publish("events", {"type": "signup"})
        ```

        Starting and stopping wait in a worker thread, so the event loop keeps running.

        Returns:
            An AsyncClient of the started service; closing it stops the service.

        Raises:
            ConfigurationError: a bad argument, the `server` extra is missing, or the service
                refused its settings; as for `Client.embedded`.
            EmbeddedServiceError: the service could not be started, exited before it was
                ready, or took longer than `startup_timeout`; `log` holds the end of its log.
        """
        import asyncio

        from ._embedded import EmbeddedService

        starting = asyncio.ensure_future(
            asyncio.to_thread(
                EmbeddedService.start,
                path,
                store=store,
                token=token,
                allow_destinations=allow_destinations,
                startup_timeout=startup_timeout,
                tracing=tracing,
            )
        )
        try:
            service = await asyncio.shield(starting)
        except asyncio.CancelledError:
            # The thread cannot be interrupted: stop the service as soon as it has started.
            starting.add_done_callback(_stop_started_service)
            raise
        # The service is on loopback: no proxy the environment names could reach it.
        http = own_async_client(None, trust_env=False)
        try:
            client = cls(
                service.base_url,
                service.token,
                timeout=timeout,
                max_retries=max_retries,
                retry_timeout=retry_timeout,
                codec=codec,
                http_client=http,
                batching=batching,
            )
        except BaseException:
            await http.aclose()
            await asyncio.to_thread(service.stop)
            raise
        client.close_with(http.aclose)
        client._stop_on_close(service)
        return client

    def _stop_on_close(self, service: EmbeddedService) -> None:
        import asyncio

        self._embedded_service = service
        # Connections close first, so the service stops with no request of ours in flight.
        self.close_with(lambda: asyncio.to_thread(service.stop))

    @property
    def embedded_service(self) -> EmbeddedService | None:
        """The service `embedded()` started for this client, or None for a client of another
        one: its `base_url`, `console_url` and `token` (to sign in to its console), `pid`,
        `running` and `log_tail()`.
        """
        return self._embedded_service

    def close_with(self, callback: Callable[[], object]) -> None:
        """Have `close()` call `callback` once the client's own closing is done, and await what
        it returns if that is awaitable, such as `http.aclose` of an `http_client` you want
        closed with the client. Callbacks run in the order they were given.
        """
        closing = contextlib.AsyncExitStack()
        closing.push_async_callback(_called, callback)
        closing.push_async_exit(self._exit_stack)
        self._exit_stack = closing

    def with_options(self, **options: Unpack[ClientOptions]) -> Self:
        """A client like this one with some options changed, on the same connections.

        ```python
        client.with_options(timeout=2, max_retries=0).streams.length("events")
        acme = client.with_options(headers={"X-Tenant": "acme"})
        ```

        * `timeout`, `max_retries`, `retry_timeout` - as for `AsyncClient`.
        * `headers` - extra headers sent with every request, added to those given so far (a
          name given again replaces its value). The SDK's own (Authorization, Idempotency-Key,
          Content-Type, Content-Length, Transfer-Encoding, Host) are refused: `api_key=` and
          `idempotency_key=` set those that are yours to set.

        Making one opens no connection and starts nothing, so it also serves one call. It
        shares this client's connection pool, codec and batching, with subscriptions and
        `publish_nowait` of its own (its `close()` waits for those); the pool closes with
        this client, after which the new one may no longer be used.

        Returns:
            The new client.

        Raises:
            ConfigurationError: an option this method does not take, a value `AsyncClient` would
                refuse, or a header that is malformed or one the SDK sets.
        """
        derived: Self = type(self).__new__(type(self))
        derived._assemble(
            self._transport.with_settings(self._settings.with_options(options)),
            self._codec,
            self._batching,
        )
        derived._embedded_service = self._embedded_service
        return derived

    @property
    def with_raw_response(self) -> AsyncClientWithRawResponse:
        """The client's calls, each returning a `RawResponse`: the HTTP answer (`status_code`,
        `headers`, `request_id`, `elapsed`) and, from `.parse()`, what the call returns.

        ```python
        raw = await client.with_raw_response.streams.info("events")
        print(raw.status_code, raw.request_id, raw.headers["content-type"])
        info = raw.parse()
        raw = await client.with_raw_response.queue("jobs").publish("email", {"to": "a@b.test"})
        ```

        Every call that sends its request when called is there, under the same name; not the
        listings that page as they are iterated, `publish_nowait`, the decorators or the worker.
        Publishes are sent on their own, never batched, so each has its own answer. A failure
        raises the plain call's typed error.
        """
        if self._raw is None:
            plain: AsyncClient = type(self).__new__(type(self))
            plain._assemble(self._transport.with_settings(self._settings), self._codec, None)
            self._raw = AsyncClientWithRawResponse(plain, plain._queue)
        return self._raw

    def __repr__(self) -> str:
        return client_repr("AsyncClient", self._settings)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Wait for what `publish_nowait` queued, then release the connections (an
        `http_client` you passed stays open).

        Every callback given to `close_with` runs even when one fails; the error of a failed
        one is raised once all have run.
        """
        await self._exit_stack.aclose()

    async def flush(self) -> None:
        """Wait until every `publish_nowait` so far has its answer (its future resolved).

        Raises nothing itself: a publish that failed raises its PublishError from its future.
        """
        await self._jobs_sender.flush()
        await self._entries_sender.flush()

    @takes_request_options
    async def publish(
        self,
        stream: str | Stream,
        body: Any,
        *,
        maxlen: int | None = None,
        approximate: bool = True,
        minid: str | None = None,
        nomkstream: bool = False,
        idempotency_key: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> str:
        """Append `body` to `stream` (a name or a `Stream`) and return the new entry id.

        See `Client.publish`.

        Returns:
            The new entry's id (`<ms>-<seq>`).

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `maxlen` or `idempotency_key` is invalid.
            PublishError: the body cannot be encoded, or the service is unreachable or refuses;
                `__cause__` is the typed error, as for `Client.publish`.
        """
        return await self.streams.publish(
            stream,
            body,
            maxlen=maxlen,
            approximate=approximate,
            minid=minid,
            nomkstream=nomkstream,
            idempotency_key=idempotency_key,
            **options,
        )

    @suggests_keywords
    def publish_nowait(
        self,
        stream: str | Stream,
        body: Any,
        *,
        maxlen: int | None = None,
        approximate: bool = True,
        minid: str | None = None,
        nomkstream: bool = False,
    ) -> AsyncFuture[str]:
        """Append `body` to `stream` without waiting for the service; see
        `Client.publish_nowait`.

        Returns:
            An `asyncio.Future` of the new entry's id: await it to know the entry is appended.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `maxlen` is invalid.
            PublishError: the body cannot be encoded.
        """
        return self.streams.publish_nowait(
            stream, body, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=nomkstream
        )

    @takes_request_options
    async def publish_many(
        self,
        stream: str | Stream,
        bodies: Iterable[Any],
        *,
        maxlen: int | None = None,
        approximate: bool = True,
        minid: str | None = None,
        nomkstream: bool = False,
        idempotency_key: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[str]:
        """Append every body in one request, all or none, and return their ids in order.

        Returns:
            The new entries' ids, in the order of `bodies`; `[]`, sending nothing, for none.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: more than 1000 bodies, or an invalid `maxlen` or
                `idempotency_key`.
            PublishError: as for `publish`; nothing was appended.
        """
        return await self.streams.publish_many(
            stream,
            bodies,
            maxlen=maxlen,
            approximate=approximate,
            minid=minid,
            nomkstream=nomkstream,
            idempotency_key=idempotency_key,
            **options,
        )

    @suggests_keywords
    def publisher(
        self, stream: str | Stream, *, maxlen: int | None = None, approximate: bool = True
    ) -> AsyncPublisher:
        """An AsyncPublisher for `stream`: `await .publish(body)`, or stack it on a handler.

        Returns:
            An AsyncPublisher appending to `stream`, capped at `maxlen` (else the Stream's).

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `maxlen` is not an int between 0 and 1000000000.
        """
        return AsyncPublisher(
            self.streams, publisher_stream(stream, maxlen), approximate=approximate
        )

    def subscribe(
        self,
        stream: Stream,
        *,
        group: str | None = None,
        start_id: str = "$",
        count: int | None = None,
        redeliver_after: Duration = 30,
        max_deliveries: int | None = None,
    ) -> Callable[[HandlerT], HandlerT]:
        """Consume `stream` through its consumer group in `run()`; see `Client.subscribe`.

        Handlers may be `async def` or plain functions.

        Returns:
            A decorator that records the handler for `run()` and returns it unchanged.

        Raises:
            ConfigurationError: `stream` is not a `Stream`, or neither it nor `group` names a
                consumer group; raised by the decorator, for a handler that is not callable.
            InvalidArgumentError: `count` is not an int from 1 to 1000, or `max_deliveries`
                not one from 1 to 1000000.
            InvalidNameError: `group` is not a valid consumer group name, or, with
                `max_deliveries`, `<stream>.dead` is not a valid stream name.
            InvalidDurationError: `redeliver_after` is malformed, not whole milliseconds or over
                30 days.
        """
        return stream_subscription(
            stream,
            group=group,
            start_id=start_id,
            count=count,
            redeliver_after=redeliver_after,
            max_deliveries=max_deliveries,
            subscriptions=self._subscriptions,
            asynchronous=True,
        )

    @takes_request_options
    async def init_queue(self, name: str, **options: Unpack[RequestOptions]) -> AsyncQueue:
        """The existing queue `name`, to publish jobs to and subscribe to; one request checks it.

        Returns:
            The AsyncQueue.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
            NotFoundError: the queue was never created (`queues.create`).
        """
        queue = self._queue(name)
        await queue.info(**options)
        return queue

    def _queue(self, name: str) -> AsyncQueue:
        return AsyncQueue(
            self._transport,
            check_resource_name(name, what="queue"),
            codec=self._codec,
            subscriptions=self._subscriptions,
            batched=self._jobs_batched,
            sender=self._jobs_sender,
        )

    async def _flush_batches(self) -> None:
        for batched in (self._entries_batched, self._jobs_batched):
            if batched is not None:
                await batched.flush()
        await self.flush()

    async def run(
        self,
        *,
        consumer: str | None = None,
        max_messages: int | None = None,
        stop_after: Duration | None = None,
        poll_wait: Duration = 1,
        concurrency: int = 1,
    ) -> None:
        """Consume every subscription until `stop()`, `max_messages` or `stop_after`.

        See `Client.run`; `concurrency` handlers run at once as tasks (async handlers gain from
        it; a plain function runs in the event loop, one at a time). Cancelling the task also
        stops it, and the interrupted message is delivered again.

        Raises:
            ConfigurationError: nothing is subscribed, `max_messages` or `concurrency` is out of
                range, or a handler's publisher belongs to a Client.
            InvalidNameError: `consumer` is not a valid consumer name.
            InvalidDurationError: `stop_after` or `poll_wait` is malformed or negative, or
                `poll_wait` is not whole milliseconds up to 30 s.
            APIError: the typed error of a failure no wait cures, such as NotFoundError (a
                subscribed queue does not exist), AuthenticationError or PermissionDeniedError;
                raised once the run has closed.
        """
        from ._worker import AsyncWorker, RunOptions

        options = RunOptions.build(
            consumer=consumer,
            max_messages=max_messages,
            stop_after=stop_after,
            poll_wait=poll_wait,
            request_timeout=self._settings.timeout.read,
            concurrency=concurrency,
        )
        self._stop.clear()
        await AsyncWorker(
            self._subscriptions,
            options,
            stop=self._stop,
            streams=self.streams,
            queue=self._queue,
        ).run()

    def stop(self) -> None:
        """End `run()` before its next message; safe from a handler or another thread."""
        self._stop.set()

    @takes_request_options
    def logs(
        self,
        *,
        message_ids: Iterable[str] | None = None,
        state: LogState | None = None,
        url: str | None = None,
        url_group: str | None = None,
        label: str | None = None,
        schedule: str | None = None,
        flow_control_key: str | None = None,
        since: Timestamp | None = None,
        until: Timestamp | None = None,
        limit: int = 100,
        **options: Unpack[RequestOptions],
    ) -> AsyncIterator[LogEvent]:
        """Every event of the messages the token may see, newest first, for `async for`; see
        `Client.logs`.

        Returns:
            An async iterator of LogEvent.

        Raises:
            InvalidArgumentError: a filter or `limit` (1 to 1000) is invalid; raised by this
                call, before any request.
            InvalidNameError: `url_group`, `schedule` or `flow_control_key` is not a valid
                name; raised by this call.
            PermissionDeniedError: while iterating, when the token may not consume messages.
            APIConnectionError: while iterating, when the service does not answer.
        """
        filters = filter_arguments(
            states=LOG_STATES,
            message_ids=message_ids,
            state=state,
            url=url,
            url_group=url_group,
            label=label,
            schedule=schedule,
            flow_control_key=flow_control_key,
            since=since,
            until=until,
        )
        page = partial(log_page, filters, limit)
        return aiterate_pages(partial(self._transport.send, options=options), page)

    @takes_request_options
    async def health(self, **options: Unpack[RequestOptions]) -> Health:
        """Whether the service and its store answer; needs no token.

        Returns:
            A Health: the status, the kind of store and the service's version.

        Raises:
            InternalServerError: the service cannot reach its store (503), once the retries
                are used up.
            APIConnectionError: the service does not answer.
        """
        return await self._transport.send(health_call(), options)

    @takes_request_options
    async def whoami(self, **options: Unpack[RequestOptions]) -> TokenInfo:
        """The token this client sends, as the service knows it: a check of the key at
        startup (`health()` needs none, so it cannot tell a bad key).

        Returns:
            A TokenInfo: the token's id (never its secret), its permissions as configured,
            its quota and rate limit, and whether it is a development mode service's token.

        Raises:
            AuthenticationError: no key, or one the service does not know (401).
            APIConnectionError: the service does not answer.
        """
        return await self._transport.send(whoami_call(), options)


async def _called(callback: Callable[[], object]) -> None:
    result = callback()
    if inspect.isawaitable(result):
        await result
