"""`Client`: the synchronous entry point; `AsyncClient` (sdk/_async_client.py) is its twin."""

from __future__ import annotations

import builtins
import contextlib
import os
import threading
from collections.abc import Callable, Iterable, Iterator
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
from ._dead_letters import DeadLetters
from ._durations import Duration, Timestamp
from ._flow_control import FlowControlKeys
from ._http import SyncTransport, own_client
from ._keywords import suggests_keywords, takes_request_options
from ._message_filter import filter_arguments
from ._message_listing import LOG_STATES, log_page
from ._messages import Messages
from ._pages import iterate_pages
from ._publisher import Publisher
from ._queue_calls import job_batcher, job_sender
from ._queues import Queue, Queues
from ._response import ClientWithRawResponse
from ._schedules import Schedules
from ._stream import Stream
from ._stream_calls import stream_batcher, stream_sender
from ._streams import Streams
from ._subscriptions import Subscription
from ._url_groups import UrlGroups

# Imported when first needed: the embedded service (subprocess machinery), the worker loop and
# asyncio cost an application that only publishes nothing.
if TYPE_CHECKING:
    from concurrent.futures import Future

    from ._arguments import LogState
    from ._embedded import EmbeddedService
    from ._types import Health, LogEvent, TokenInfo

__all__ = ["Client"]


class Client:
    """A synchronous Spool client: streams, queues and HTTP messages, and workers consuming them.

    Resources:

    * `client.streams` - `Streams`: append, read, trim and consume streams through groups;
      `client.publish`, `publish_many` and `publish_nowait` are its shortcuts.
    * `client.queues` - `Queues`: create, list, inspect and delete queues;
      `client.init_queue(name)` gives a `Queue` to publish jobs to and subscribe to.
    * `client.messages` - `Messages`: publish HTTP messages to URLs and URL groups, list,
      read and cancel them.
    * `client.url_groups` - `UrlGroups`: named sets of endpoints messages fan out to.
    * `client.dead_letters` - `DeadLetters`: messages that used up their retries.
    * `client.schedules` - `Schedules`: publish a message, a job or an entry on a cron timetable.
    * `client.flow_control` - `FlowControlKeys`: the keys messages' rate and parallelism are
      limited by; their state, pause, resume and reset.
    * `client.subscribe`, `client.publisher`, `client.run`, `client.stop` - the worker.
    * `client.with_options(...)` - the same client with another timeout, retries or headers;
      `client.with_raw_response` - every call's HTTP response; `client.whoami()` - the token sent.

    Every call that sends requests (all but `publish_nowait`, the worker and the decorators)
    also takes `timeout=`, `max_retries=` and `extra_headers=` for itself alone
    (`RequestOptions`; `request_timeout=` on the message publishes, whose `timeout` is the
    delivery's): `client.streams.info("events", timeout=2, extra_headers={"X-Tenant": "acme"})`.

    `spool-dev-token` is the token of a service in development mode.

    Usage:

    ```python
    import sdk

    with sdk.Client("http://127.0.0.1:8321", api_key="spool-dev-token") as client:
        entry_id = client.publish("events", {"type": "signup", "user": 42})

        EVENTS = sdk.Stream("events", maxlen=1000)
        client.publish(EVENTS, {"type": "login"}, maxlen=500)  # the call's maxlen wins

        queue = client.init_queue("jobs")  # NotFoundError unless the queue was created
        receipt = queue.publish("email-jobs", {"userId": "12345"})

        res = client.messages.publish_json(url="https://example.com/hook", body={}, delay="3s")

        @client.subscribe(sdk.Stream("orders", group="billing"))
        @client.publisher("invoices")
        def bill(order: dict) -> dict:
            return {"order": order["id"]}

        client.run()  # until client.stop(), Ctrl+C, max_messages or stop_after

    with sdk.Client.embedded() as client:  # a local service of its own, for development
        client.publish("events", {"type": "signup", "user": 42})
    ```

    **Parameters:**

    * `base_url` - the service's URL; default `$SPOOL_BASE_URL`, or the base URL of
      `http_client`. A missing one is a ConfigurationError.
    * `api_key` - the bearer token; default `$SPOOL_API_KEY`. It never appears in reprs, logs or
      error messages.
    * `timeout` - seconds (or an `httpx.Timeout`) one request may take; 10 by default.
    * `max_retries` - how often a failed request is retried (connection errors, 408, 429
      `rate_limited` and 5xx) with exponential backoff and jitter; 3 by default. Publishes keep
      one Idempotency-Key across their retries, so a retry never creates a duplicate.
    * `retry_timeout` - a time budget for the same retries (seconds, a `timedelta` or `"30s"`):
      after `max_retries` retries, keep retrying while the next attempt starts within
      `retry_timeout` of the first, waiting as `Retry-After` says. Set it to ride out a restart
      of the service or its store: `retry_timeout="30s"`. None (the default) counts retries only.
    * `codec` - how bodies are encoded; default `JsonCodec` (`json.dumps(body, default=str)`).
    * `http_client` - an `httpx.Client` of your own (custom transport, proxies, limits, event
      hooks). The SDK never changes it: the base URL, the Authorization header and the timeout
      go on each of its own requests, and closing the client is left to you
      (`client.close_with(http.close)` closes it with this one).
    * `proxy` - the proxy for every request (`"http://proxy.internal:3128"`, an `httpx.URL` or an
      `httpx.Proxy`), instead of the ones `$HTTPS_PROXY`, `$HTTP_PROXY`, `$ALL_PROXY` and
      `$NO_PROXY` name, which apply otherwise; with `http_client` a ConfigurationError.
    * `batching` - `True` or a `Batching(linger=..., max_items=...)` to coalesce single publishes
      to one stream (same trim options) or one queue, made at the same time from several threads,
      into batch requests; each caller still gets its own id or receipt. Off by default. A
      publish with its own `idempotency_key` or request options is always sent alone. See the
      README's "Batching".

    A parameter of the wrong type or out of range is a ConfigurationError.
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
        http_client: httpx.Client | None = None,
        proxy: str | httpx.URL | httpx.Proxy | None = None,
        batching: Batching | bool = False,
    ) -> None:
        settings = client_settings(
            base_url, api_key, timeout, max_retries, retry_timeout, http_client
        )
        checked_codec = client_codec(codec)
        checked_batching = batching_of(batching)
        transport = SyncTransport(
            settings, http_client=http_client, proxy=check_proxy(proxy, http_client)
        )
        self._assemble(transport, checked_codec, checked_batching)

    def _assemble(self, transport: SyncTransport, codec: Codec, batching: Batching | None) -> None:
        # A client around its transport: what __init__ and with_options share.
        self._settings = transport.settings
        self._codec = codec
        self._batching = batching
        self._transport = transport
        self._raw: ClientWithRawResponse | None = None
        self._exit_stack = contextlib.ExitStack()
        self._exit_stack.callback(self._transport.close)
        # Runs before the transport closes: what publish_nowait queued is sent first.
        self._exit_stack.callback(self.flush)
        self._subscriptions: builtins.list[Subscription] = []
        self._stop = threading.Event()
        self._embedded_service: EmbeddedService | None = None
        self._jobs_sender = job_sender(self._transport, self._codec)
        self._entries_sender = stream_sender(self._transport)
        self._jobs_batched = (
            None
            if self._batching is None
            else job_batcher(self._transport, self._codec, self._batching)
        )
        self._entries_batched = (
            None if self._batching is None else stream_batcher(self._transport, self._batching)
        )
        self.streams = Streams(
            self._transport,
            codec=self._codec,
            batched=self._entries_batched,
            sender=self._entries_sender,
        )
        self.queues = Queues(self._transport)
        self.messages = Messages(self._transport, codec=self._codec)
        self.url_groups = UrlGroups(self._transport)
        self.schedules = Schedules(self._transport, codec=self._codec)
        self.dead_letters = DeadLetters(self._transport)
        self.flow_control = FlowControlKeys(self._transport)

    @classmethod
    def embedded(
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
        """A client of its own reference service, started in a child process; for development.

        ```python
        with sdk.Client.embedded() as client:
            client.publish("events", {"type": "signup"})
        ```

        The service (`python -m server`, which needs `pip install 'spool[server]'`) listens on a
        free loopback port and accepts only `token` (random by default). The client reaches it
        directly, never through a proxy the environment names. Closing the client stops it:
        SIGTERM, then SIGKILL after a grace period.

        * `path` - the SQLite file to keep the data in. Without it the data lives in a temporary
          directory that closing the client removes.
        * `store` - any store URL instead, such as `redis://127.0.0.1:6379/0?prefix=dev`.
        * `allow_destinations` - where HTTP messages may be delivered besides public addresses:
          loopback by default, so messages reach an app on this machine; `()` refuses them too.
        * `startup_timeout` - seconds to wait for the service; then EmbeddedServiceError, with
          the end of its log. A missing `server` extra is a ConfigurationError.
        * `tracing` - run the service with OpenTelemetry configured from the `OTEL_*`
          environment variables, as `opentelemetry-instrument` would (OTLP over HTTP unless they
          say otherwise), its spans named `spool-server`; needs `pip install 'spool[otel]'`.
        * `timeout`, `max_retries`, `retry_timeout`, `codec`, `batching` - as for `Client`.

        Returns:
            A client of the started service; closing it stops the service.

        Raises:
            ConfigurationError: a bad argument (both `path` and `store`, a token that is not
                printable ASCII, a `startup_timeout` that is not a positive number, a client
                parameter as for `Client`, ...), the `server` extra is missing, or the service
                refused its settings.
            EmbeddedServiceError: the service could not be started, exited before it was
                ready, or took longer than `startup_timeout`; `log` holds the end of its log.
        """
        from ._embedded import EmbeddedService

        service = EmbeddedService.start(
            path,
            store=store,
            token=token,
            allow_destinations=allow_destinations,
            startup_timeout=startup_timeout,
            tracing=tracing,
        )
        # The service is on loopback: no proxy the environment names could reach it.
        http = own_client(None, trust_env=False)
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
            http.close()
            service.stop()
            raise
        client.close_with(http.close)
        client._stop_on_close(service)
        return client

    def _stop_on_close(self, service: EmbeddedService) -> None:
        self._embedded_service = service
        # Connections close first, so the service stops with no request of ours in flight.
        self.close_with(service.stop)

    @property
    def embedded_service(self) -> EmbeddedService | None:
        """The service `embedded()` started for this client, or None for a client of another
        one: its `base_url`, `console_url` and `token` (to sign in to its console), `pid`,
        `running` and `log_tail()`.
        """
        return self._embedded_service

    def close_with(self, callback: Callable[[], object]) -> None:
        """Have `close()` call `callback` once the client's own closing is done, such as
        `http.close` of an `http_client` you want closed with the client. Callbacks run in the
        order they were given.
        """
        closing = contextlib.ExitStack()
        closing.callback(callback)
        closing.push(self._exit_stack)
        self._exit_stack = closing

    def with_options(self, **options: Unpack[ClientOptions]) -> Self:
        """A client like this one with some options changed, on the same connections.

        ```python
        client.with_options(timeout=2, max_retries=0).streams.length("events")
        acme = client.with_options(headers={"X-Tenant": "acme"})
        ```

        * `timeout`, `max_retries`, `retry_timeout` - as for `Client`.
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
            ConfigurationError: an option this method does not take, a value `Client` would
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
    def with_raw_response(self) -> ClientWithRawResponse:
        """The client's calls, each returning a `RawResponse`: the HTTP answer (`status_code`,
        `headers`, `request_id`, `elapsed`) and, from `.parse()`, what the call returns.

        ```python
        raw = client.with_raw_response.streams.info("events")
        print(raw.status_code, raw.request_id, raw.headers["content-type"])
        info = raw.parse()
        raw = client.with_raw_response.queue("jobs").publish("email", {"to": "a@b.test"})
        ```

        Every call that sends its request when called is there, under the same name; not the
        listings that page as they are iterated, `publish_nowait`, the decorators or the worker.
        Publishes are sent on their own, never batched, so each has its own answer. A failure
        raises the plain call's typed error.
        """
        if self._raw is None:
            plain: Client = type(self).__new__(type(self))
            plain._assemble(self._transport.with_settings(self._settings), self._codec, None)
            self._raw = ClientWithRawResponse(plain, plain._queue)
        return self._raw

    def __repr__(self) -> str:
        return client_repr("Client", self._settings)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Wait for what `publish_nowait` queued, then release the connections (an
        `http_client` you passed stays open).

        Every callback given to `close_with` runs even when one fails; the error of a failed
        one is raised once all have run.
        """
        self._exit_stack.close()

    def flush(self) -> None:
        """Wait until every `publish_nowait` so far has its answer (its future resolved).

        Raises nothing itself: a publish that failed raises its PublishError from its future.
        """
        self._jobs_sender.flush()
        self._entries_sender.flush()

    @takes_request_options
    def publish(
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

        `maxlen` (the call's, else the Stream's) caps the stream, approximately unless
        `approximate=False`; `minid` trims ids below it; `nomkstream` refuses a missing stream.
        `idempotency_key` makes a retry of the same publish return the first one's id.

        Returns:
            The new entry's id (`<ms>-<seq>`).

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `maxlen` or `idempotency_key` is invalid.
            PublishError: the body cannot be encoded, or the service is unreachable or refuses;
                `__cause__` is the typed error, such as NotFoundError (`nomkstream` and no such
                stream), ConflictError (`idempotency_key` reused for another request),
                PayloadTooLargeError (a request over 1 MiB), UnprocessableEntityError (`minid`
                is not an entry id), QuotaExceededError (the token's quota is used up),
                AuthenticationError, PermissionDeniedError or, once the retries are used up,
                RateLimitError, InternalServerError or APIConnectionError.
        """
        return self.streams.publish(
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
    ) -> Future[str]:
        """Append `body` to `stream` without waiting for the service; the returned future says
        how it went.

        The entry joins the next request a background sender makes to this stream (with the
        same trim options), together with whatever else was submitted meanwhile, so a producer
        publishing one entry at a time is not held up by round trips. Durability is confirmed
        only when the future resolves: `future.result()` returns the entry id once the service
        has appended it (from then on it is as durable as a `publish`), or raises the
        `PublishError` that refused it (an entry refused for its content is sent again on its
        own, so it fails alone). Until then the entry may be lost with this process.
        `flush()` waits for every future so far; `close()` flushes first. At most 10,000
        entries wait at once: past that this call blocks until the sender catches up. It takes
        no request options, as its requests carry other publishes too: set them with
        `client.with_options(...)`, whose `publish_nowait` has a sender of its own.

        Returns:
            A `concurrent.futures.Future` of the new entry's id.

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `maxlen` is invalid.
            PublishError: the body cannot be encoded.
        """
        return self.streams.publish_nowait(
            stream, body, maxlen=maxlen, approximate=approximate, minid=minid, nomkstream=nomkstream
        )

    @takes_request_options
    def publish_many(
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
        return self.streams.publish_many(
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
    ) -> Publisher:
        """A Publisher for `stream`: call `.publish(body)`, or stack it on a handler.

        Returns:
            A Publisher appending to `stream`, capped at `maxlen` (else the Stream's).

        Raises:
            InvalidNameError: `stream` is not a valid stream name.
            InvalidArgumentError: `maxlen` is not an int between 0 and 1000000000.
        """
        return Publisher(self.streams, publisher_stream(stream, maxlen), approximate=approximate)

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
        """Consume `stream` through its consumer group in `run()`; returns the handler unchanged.

        The group is created with the stream if missing, delivering entries after `start_id`
        (`$`: only new ones; `0`: everything kept). The handler gets each body; a return
        acknowledges it, an exception leaves it pending to be delivered again once it has been
        idle for `redeliver_after`. Entries are read ahead of the handlers: by default as many as
        they get through in a quarter of `redeliver_after` (10 to 1,000); `count` fixes how
        many. With
        `max_deliveries`, the group `run()` creates hands one entry out at most that many times:
        then it goes to the stream `<name>.dead` as `{"stream", "id", "group", "delivery_count",
        "body"}` and `run()` moves on (a group that already exists keeps its own setting).

        Returns:
            A decorator that records the handler for `run()` and returns it unchanged.

        Raises:
            ConfigurationError: `stream` is not a `Stream`, or neither it nor `group` names a
                consumer group; raised by the decorator, for a handler that is not callable or
                is an `async def` (subscribe those on an AsyncClient).
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
            asynchronous=False,
        )

    @takes_request_options
    def init_queue(self, name: str, **options: Unpack[RequestOptions]) -> Queue:
        """The existing queue `name`, to publish jobs to and subscribe to; one request checks it.

        Returns:
            The Queue.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
            NotFoundError: the queue was never created (`queues.create`).
        """
        queue = self._queue(name)
        queue.info(**options)
        return queue

    def _queue(self, name: str) -> Queue:
        return Queue(
            self._transport,
            check_resource_name(name, what="queue"),
            codec=self._codec,
            subscriptions=self._subscriptions,
            batched=self._jobs_batched,
            sender=self._jobs_sender,
        )

    def run(
        self,
        *,
        consumer: str | None = None,
        max_messages: int | None = None,
        stop_after: Duration | None = None,
        poll_wait: Duration = 1,
        concurrency: int = 1,
    ) -> None:
        """Consume every subscription until `stop()`, Ctrl+C, `max_messages` or `stop_after`.

        `consumer` names this worker in consumer groups and leases (default `<host>-<pid>`).
        While handlers run, the next messages are fetched (up to each subscription's `count`
        taken and not yet handled), and acknowledgements go in batches beside them. Messages
        are acknowledged only after their handler returns, so whatever a stop or a crash
        interrupts is delivered again. `concurrency` handlers run at once, each in a thread of
        its own (default 1: in the calling thread, one message at a time). Failures the
        service may recover from (it is unreachable, overloaded) are logged and retried; others
        (a missing queue, a bad API key) end the run with their typed error.

        Raises:
            ConfigurationError: nothing is subscribed, `max_messages` or `concurrency` is out of
                range, a handler returned an awaitable, or a handler's publisher belongs to an
                AsyncClient.
            InvalidNameError: `consumer` is not a valid consumer name.
            InvalidDurationError: `stop_after` or `poll_wait` is malformed or negative, or
                `poll_wait` is not whole milliseconds up to 30 s.
            APIError: the typed error of a failure no wait cures, such as NotFoundError (a
                subscribed queue does not exist), AuthenticationError or PermissionDeniedError;
                raised once the run has closed.
        """
        from ._worker import RunOptions, SyncWorker

        options = RunOptions.build(
            consumer=consumer,
            max_messages=max_messages,
            stop_after=stop_after,
            poll_wait=poll_wait,
            request_timeout=self._settings.timeout.read,
            concurrency=concurrency,
        )
        self._stop.clear()
        SyncWorker(
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
    ) -> Iterator[LogEvent]:
        """Every event of the messages the token may see, newest first: one per change of a
        message's state (`created`, `scheduled`, `retry`, `delivered`, `failed`,
        `dead_lettered`, `cancelled`), kept for the service's log retention.

        The filters are `messages.list()`'s, but `state` is the event's and `since` and `until`
        bound when it happened. Pages of up to `limit` events are fetched as the iterator
        reaches them.

        Returns:
            An iterator of LogEvent.

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
        return iterate_pages(partial(self._transport.send, options=options), page)

    @takes_request_options
    def health(self, **options: Unpack[RequestOptions]) -> Health:
        """Whether the service and its store answer; needs no token.

        Returns:
            A Health: the status, the kind of store and the service's version.

        Raises:
            InternalServerError: the service cannot reach its store (503), once the retries
                are used up.
            APIConnectionError: the service does not answer.
        """
        return self._transport.send(health_call(), options)

    @takes_request_options
    def whoami(self, **options: Unpack[RequestOptions]) -> TokenInfo:
        """The token this client sends, as the service knows it: a check of the key at
        startup (`health()` needs none, so it cannot tell a bad key).

        Returns:
            A TokenInfo: the token's id (never its secret), its permissions as configured,
            its quota and rate limit, and whether it is a development mode service's token.

        Raises:
            AuthenticationError: no key, or one the service does not know (401).
            APIConnectionError: the service does not answer.
        """
        return self._transport.send(whoami_call(), options)
