"""Calling the API: typed errors for every failure, retries, PublishError on publish.

Every call is described by a generated endpoint module (`generated.api.<tag>.<operation>`): its
`_get_kwargs` says what to send (method, path, query, headers and the JSON document built from the
generated request model) and its `_parse_response` reads a documented answer into the generated
response model. The transport sends what lies between: it encodes the JSON document once, with the
codec's rules, when the call is made (so an unencodable body fails before anything is sent, and
retries resend the same bytes), and it joins the path to the base URL once per client and path.

`make_call` is typed by the endpoint module itself: the arguments it passes on are checked against
`_get_kwargs`, and `read` takes the operation's success model, so a field renamed in openapi.yaml
fails type checking where the facade sends or reads it.

Every non-2xx answer becomes the typed APIStatusError, built from the raw answer so that unreadable
problem documents still keep their status; a 2xx answer the generated layer cannot read, or with a
status the operation does not document, becomes APIResponseValidationError naming the URL, the
status and what a Spool answer would have been; httpx errors become
APIConnectionError/APITimeoutError raised from the original.

Each attempt is logged on the ``sdk`` logger (sdk/_logs.py) and handed to the raw-response Capture
of its context, if any (sdk/_response.py): so logging and `with_raw_response` cover every call
from here. `with_settings` makes a transport for `with_options` on the same HTTP client, and
`send(call, options)` applies one call's RequestOptions (sdk/_config.py) the same way to that
call's attempts alone: its timeout, retry policy and headers, on the same HTTP client.

With OpenTelemetry in use (sdk/_tracing.py), every publish request, retries included, runs in a
PRODUCER span whose W3C trace context it sends as ``traceparent``, and every other request sends
the context of the span current then, if any (sdk/_otel.py).

The generated modules are imported when a call first needs them (sdk/_endpoints.py), so
`import sdk` stays cheap.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import ssl
import time
import uuid
from collections.abc import Callable, Iterator
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, ParamSpec, Protocol, TypeVar

import httpx

from ._checks import check_idempotency_key
from ._codec import PLAIN_ENCODER, Codec, encode_document
from ._config import RequestOptions, Settings, redact_url
from ._exceptions import (
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APITimeoutError,
    ConfigurationError,
    PublishError,
    PublishTarget,
    describe_target,
    make_status_error,
)
from ._logs import log_failure, log_response, logger
from ._response import CAPTURE, Capture
from ._retry import RetryPolicy, retry_async, retry_sync
from ._tracing import publish_tracing

if TYPE_CHECKING:
    from generated.client import Client as GeneratedClient
    from generated.models import Problem
    from generated.types import Unset

__all__ = [
    "ASYNC_LIMITS",
    "AsyncTransport",
    "Call",
    "Endpoint",
    "SYNC_LIMITS",
    "SyncTransport",
    "make_call",
    "make_publish_call",
    "optional",
    "own_async_client",
    "own_client",
    "resolve_idempotency_key",
    "tls_context",
]

P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)
T = TypeVar("T")

# What the generated layer raises when an answer does not match the document (and, once it is
# loaded, its UnexpectedStatus for a status the document does not give).
_UNREADABLE: tuple[type[Exception], ...] = (ValueError, TypeError, KeyError, AttributeError)
# How much of an answer that is not Spool's its error quotes, to show what answered instead.
_EXCERPT = 80

# The reference service (uvicorn) closes a connection idle for 5 s, and a client keeping one as
# long races that close: a request sent just then is reset, with nothing to say whether it
# arrived. The SDK's clients let theirs go a second earlier.
_KEEPALIVE_SECONDS = 4.0
# httpx's default pool, but for the idle time.
SYNC_LIMITS = httpx.Limits(
    max_connections=100, max_keepalive_connections=20, keepalive_expiry=_KEEPALIVE_SECONDS
)
# As many connections kept idle as may be in flight, so that tasks publishing at once reuse
# their connections rather than open new ones each time.
ASYNC_LIMITS = httpx.Limits(
    max_connections=100, max_keepalive_connections=100, keepalive_expiry=_KEEPALIVE_SECONDS
)

# Joined URLs kept per client; the paths of a busy client are few (one per stream, queue or
# message id it touches), and past this many the cache starts over rather than grow without bound.
_URL_CACHE_SIZE = 512


class Endpoint(Protocol[P, R_co]):
    """A generated endpoint module (`generated.api.<tag>.<operation>`): its request half, taking
    the operation's arguments `P`, and its response half, reading a documented answer into the
    operation's success model `R_co` (or a Problem, which the transport never asks it to read).
    """

    __name__: str

    def _get_kwargs(self, *args: P.args, **kwargs: P.kwargs) -> dict[str, Any]: ...

    def _parse_response(
        self, *, client: GeneratedClient, response: httpx.Response
    ) -> R_co | Problem | None: ...


class Call(NamedTuple, Generic[T]):
    """One API call, ready to send: the request (encoded once) and how to read a success.

    When `publish_target` is set every failure is a PublishError naming it. The request, and so
    its Idempotency-Key and body bytes, is the same for every retry. A NamedTuple rather than a
    frozen dataclass: one is made per call, and a tuple is the cheapest immutable record.
    """

    endpoint: Endpoint[..., object]
    method: str
    path: str
    params: dict[str, Any] | None
    headers: dict[str, str] | None
    content: bytes | None
    # make_call checked `read` against the endpoint's success model; a Call's type names only its
    # result, so the pair is kept here without the model's type.
    read: Callable[[Any], T]
    publish_target: PublishTarget | None = None

    @property
    def what(self) -> str:
        """The operation's name, for logs."""
        return self.endpoint.__name__.rpartition(".")[2]

    def target(self) -> str:
        """What the publish failed to publish to, for its PublishError."""
        assert self.publish_target is not None
        return describe_target(self.publish_target)


def make_call(
    endpoint: Endpoint[P, R], read: Callable[[R], T], /, *args: P.args, **kwargs: P.kwargs
) -> Call[T]:
    """A Call of `endpoint` with the generated function's own arguments; `read` makes the result
    of the operation's success model. A JSON document is encoded here, once, as plain JSON.
    """
    return _call(endpoint, read, endpoint._get_kwargs(*args, **kwargs), None, None)


def make_publish_call(
    endpoint: Endpoint[P, R],
    read: Callable[[R], T],
    publish_target: PublishTarget,
    codec: Codec,
    /,
    *args: P.args,
    **kwargs: P.kwargs,
) -> Call[T]:
    """A `make_call` that publishes to `publish_target`: its JSON document carries bodies and is
    encoded here with `codec`'s rules, and every failure is a PublishError naming the target.
    """
    return _call(endpoint, read, endpoint._get_kwargs(*args, **kwargs), publish_target, codec)


def _call(
    endpoint: Endpoint[..., R],
    read: Callable[[R], T],
    request: dict[str, Any],
    publish_target: PublishTarget | None,
    codec: Codec | None,
) -> Call[T]:
    method = request.pop("method")
    path = request.pop("url")
    params = request.pop("params", None)
    headers = request.pop("headers", None)
    content = None
    if "json" in request:
        document = request.pop("json")
        if codec is None:
            content = PLAIN_ENCODER.encode(document).encode()
        else:
            assert publish_target is not None, "bodies are encoded for a publish"
            content = encode_document(codec, document, target=publish_target)
    if request:
        raise TypeError(f"{endpoint.__name__} asks to send {sorted(request)}, which is not JSON")
    return Call(endpoint, method, path, params or None, headers, content, read, publish_target)


def resolve_idempotency_key(given: str | None) -> str:
    """The caller's Idempotency-Key, or a fresh one: one per publish call, reused by its retries."""
    return check_idempotency_key(given) if given is not None else str(uuid.uuid4())


def optional(value: T | Unset) -> T | None:
    """A generated optional field with UNSET turned into None."""
    from generated.types import Unset

    return None if isinstance(value, Unset) else value


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The TLS context of every HTTP client the SDK makes: httpx's default (certifi's CA bundle,
    verification on), made once. Loading the CA bundle is most of the time and memory an
    httpx client costs (~800 KiB each), and the SDK never changes the context once made.
    """
    return httpx.create_ssl_context()


def _no_cookies() -> CookieJar:
    """A jar whose policy refuses every cookie: the API authenticates by bearer token, so the
    SDK's own clients send back no cookie that the service or a load balancer in front of it set.
    """
    return CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))


def own_client(proxy: httpx.Proxy | None, *, trust_env: bool = True) -> httpx.Client:
    """An `httpx.Client` as the SDK makes one: httpx's own transport, made by httpx so that it
    mounts the proxies the environment names (unless `proxy` or `trust_env=False` says
    otherwise), with the shared TLS context, keeping no cookies.
    """
    with _proxy_support():
        return httpx.Client(
            verify=tls_context(),
            limits=SYNC_LIMITS,
            proxy=proxy,
            trust_env=trust_env,
            cookies=_no_cookies(),
        )


def own_async_client(proxy: httpx.Proxy | None, *, trust_env: bool = True) -> httpx.AsyncClient:
    """The `httpx.AsyncClient` twin of `own_client`, keeping ASYNC_LIMITS' idle connections."""
    with _proxy_support():
        return httpx.AsyncClient(
            verify=tls_context(),
            limits=ASYNC_LIMITS,
            proxy=proxy,
            trust_env=trust_env,
            cookies=_no_cookies(),
        )


@contextlib.contextmanager
def _proxy_support() -> Iterator[None]:
    """A ConfigurationError for the one ImportError httpx raises as it makes a client: a SOCKS
    proxy (given, or named by $ALL_PROXY and the like) without the package that speaks it.
    """
    try:
        yield
    except ImportError as error:
        raise ConfigurationError(
            f"{error} (a socks5:// proxy needs it: pip install 'httpx[socks]')"
        ) from error


def _base_url(base_url: str) -> httpx.URL:
    """`base_url` ending in a slash, as httpx keeps a client's base URL, so that a path prefix
    (``http://host/prefix``) stays in every joined URL.
    """
    url = httpx.URL(base_url)
    if url.raw_path.endswith(b"/"):
        return url
    return url.copy_with(raw_path=url.raw_path + b"/")


class _CallSettings(NamedTuple):
    """What a call's RequestOptions make of the client's settings, for each of its attempts."""

    timeout: httpx.Timeout
    headers: dict[str, str]
    policy: RetryPolicy


class _Transport:
    """What the sync and async transports share: settings, retry policy, requests and reading.

    The HTTP client, the SDK's own or the caller's, is used as it is: the base URL, the API key
    and the timeout go on each request (an absolute URL, an Authorization header, the request's
    timeout), so a caller's client sends nothing of Spool's on its other requests.
    """

    _http: httpx.Client | httpx.AsyncClient

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._policy = _policy(settings)
        self._base = _base_url(settings.base_url)
        self._urls: dict[str, httpx.URL] = {}
        self._headers = _headers(settings)
        self._generated_client: GeneratedClient | None = None
        self._unreadable = _UNREADABLE
        self._tracing = publish_tracing()

    def _url(self, path: str) -> httpx.URL:
        """`path` joined to the base URL exactly as httpx joins a relative URL, once per path."""
        url = self._urls.get(path)
        if url is None:
            if len(self._urls) >= _URL_CACHE_SIZE:
                self._urls.clear()
            base = self._base
            url = base.copy_with(raw_path=base.raw_path + httpx.URL(path).raw_path.lstrip(b"/"))
            self._urls[path] = url
        return url

    def _for_call(self, options: RequestOptions | None) -> _CallSettings | None:
        """The settings of a call given `options`; None, for the client's own, without any.

        Raises:
            ConfigurationError: an option's value is refused (see `Settings.for_call`).
        """
        if not options:
            return None
        settings = self.settings.for_call(options)
        return _CallSettings(settings.timeout, _headers(settings), _policy(settings))

    def _request(
        self,
        call: Call[Any],
        http: httpx.Client | httpx.AsyncClient,
        for_call: _CallSettings | None,
    ) -> httpx.Request:
        if for_call is None:
            headers, timeout = self._headers, self.settings.timeout
        else:
            headers, timeout = for_call.headers, for_call.timeout
        if call.headers:
            headers = {**headers, **call.headers}
        return http.build_request(
            call.method,
            self._url(call.path),
            params=call.params,
            headers=headers,
            content=call.content,
            timeout=timeout,
        )

    def _generated(self) -> GeneratedClient:
        # `_parse_response` only asks it whether to raise on undocumented statuses: yes, as a
        # status the operation never answers with is no answer of Spool's.
        if self._generated_client is None:
            from generated.client import Client as GeneratedClient
            from generated.errors import UnexpectedStatus

            self._unreadable = (*_UNREADABLE, UnexpectedStatus)
            self._generated_client = GeneratedClient(
                base_url=self.settings.base_url, raise_on_unexpected_status=True
            )
        return self._generated_client

    def _transport_error(self, error: httpx.RequestError) -> APIConnectionError:
        where = self.settings.display_url
        if isinstance(error, httpx.TimeoutException):
            return APITimeoutError(f"no answer from {where} in time ({type(error).__name__})")
        return APIConnectionError(
            f"could not connect to {where}: {str(error) or type(error).__name__}"
        )

    def _attempting(self, capture: Capture | None) -> float:
        """Note the start of an attempt; its start time, for the log."""
        if capture is not None:
            capture.attempting()
        return time.perf_counter()

    def _answered(
        self, call: Call[Any], response: httpx.Response, started: float, capture: Capture | None
    ) -> None:
        if logger.isEnabledFor(logging.INFO):
            log_response(call.what, response, time.perf_counter() - started)
        if capture is not None:
            capture.answered(response)

    def _unanswered(
        self, call: Call[Any], request: httpx.Request, started: float, error: httpx.RequestError
    ) -> APIConnectionError:
        failure = self._transport_error(error)
        if logger.isEnabledFor(logging.INFO):
            log_failure(call.what, request, time.perf_counter() - started, failure)
        return failure

    def _read(self, call: Call[T], response: httpx.Response) -> T:
        status = response.status_code
        if not 200 <= status < 300:
            # The raw answer says everything, even when its problem document is unreadable.
            raise make_status_error(status, response.headers, response.content)
        generated = self._generated()
        try:
            return call.read(call.endpoint._parse_response(client=generated, response=response))
        except self._unreadable as error:
            raise self._not_spool(call, response, error) from error

    def _not_spool(
        self, call: Call[Any], response: httpx.Response, error: Exception
    ) -> APIResponseValidationError:
        """The error for a 2xx answer that is not what Spool answers to `call`."""
        status = response.status_code
        url = redact_url(str(response.request.url))
        kind = response.headers.get("content-type", "").partition(";")[0].strip()
        if isinstance(error, ValueError | TypeError | KeyError | AttributeError):
            if isinstance(error, json.JSONDecodeError):
                expected = "a JSON document (application/json)"
            elif isinstance(error, KeyError):
                expected = f"a document with the field {error.args[0]!r}"
            elif not isinstance(_json_or_none(response), dict | None):
                expected = "a JSON object"
            else:
                expected = f"its documented answer ({type(error).__name__}: {error})"
        else:
            expected = "one of the statuses it is documented to answer with"
        message = (
            f"the {status} answer ({kind or 'no content type'}) of "
            f"{response.request.method} {url} to {call.what} is not a Spool API answer: "
            f"expected {expected}"
        )
        excerpt = " ".join(response.text[:_EXCERPT].split())
        if excerpt and "json" not in kind:
            message += f"; it begins {excerpt!r}"
        message += f". Is {self.settings.display_url} the Spool API?"
        return APIResponseValidationError(message, status_code=status, url=url, expected=expected)

    @staticmethod
    def _publish_error(call: Call[Any], error: APIError) -> PublishError:
        return PublishError(call.target(), str(error))


def _policy(settings: Settings) -> RetryPolicy:
    return RetryPolicy(max_retries=settings.max_retries, timeout=settings.retry_timeout)


def _headers(settings: Settings) -> dict[str, str]:
    """The headers of every request made with `settings`: the extra ones, then the API key."""
    headers = dict(settings.headers)
    if settings.api_key is not None:
        headers["Authorization"] = f"Bearer {settings.api_key}"
    return headers


def _json_or_none(response: httpx.Response) -> object:
    """The answer's JSON, or None when it has none."""
    try:
        return response.json()
    except ValueError:
        return None


class SyncTransport(_Transport):
    """Sends calls with an httpx.Client."""

    _http: httpx.Client

    def __init__(
        self,
        settings: Settings,
        *,
        http_client: httpx.Client | None,
        proxy: httpx.Proxy | None = None,
    ) -> None:
        super().__init__(settings)
        if http_client is not None and not isinstance(http_client, httpx.Client):
            raise ConfigurationError(
                f"http_client must be an httpx.Client, got {type(http_client).__name__}"
            )
        self._owns_http_client = http_client is None
        self._http = http_client if http_client is not None else own_client(proxy)

    def send(self, call: Call[T], options: RequestOptions | None = None) -> T:
        """The call's result, retried as the policy allows; failures raise typed errors.
        `options`, the call's own, change its timeout, retries and headers.

        Raises:
            ConfigurationError: an option's value is refused, before anything is sent.
        """
        for_call = self._for_call(options)
        if self._tracing is not None:
            with self._tracing.sending(call) as traced:
                return self._send(traced, for_call)
        return self._send(call, for_call)

    def _send(self, call: Call[T], for_call: _CallSettings | None) -> T:
        capture = CAPTURE.get()
        if capture is not None:
            capture.sending()
        policy = self._policy if for_call is None else for_call.policy
        try:
            return retry_sync(
                lambda: self._send_once(call, for_call), policy=policy, what=call.what
            )
        except APIError as error:
            if call.publish_target is None:
                raise
            raise self._publish_error(call, error) from error

    def _send_once(self, call: Call[T], for_call: _CallSettings | None) -> T:
        request = self._request(call, self._http, for_call)
        capture = CAPTURE.get()
        started = self._attempting(capture)
        try:
            response = self._http.send(request)
        except httpx.RequestError as error:
            raise self._unanswered(call, request, started, error) from error
        self._answered(call, response, started, capture)
        return self._read(call, response)

    def with_settings(self, settings: Settings) -> SyncTransport:
        """A transport with `settings` on this one's HTTP client, which it never closes."""
        return SyncTransport(settings, http_client=self._http)

    def close(self) -> None:
        """Close the HTTP client if the SDK created it."""
        if self._owns_http_client:
            self._http.close()


class AsyncTransport(_Transport):
    """Sends calls with an httpx.AsyncClient: the caller's one (such as `sdk.AioHttpClient()`),
    or the SDK's own on httpx's default transport.
    """

    _http: httpx.AsyncClient

    def __init__(
        self,
        settings: Settings,
        *,
        http_client: httpx.AsyncClient | None,
        proxy: httpx.Proxy | None = None,
    ) -> None:
        super().__init__(settings)
        if http_client is not None and not isinstance(http_client, httpx.AsyncClient):
            raise ConfigurationError(
                f"http_client must be an httpx.AsyncClient, got {type(http_client).__name__}"
            )
        self._owns_http_client = http_client is None
        self._http = http_client if http_client is not None else own_async_client(proxy)

    async def send(self, call: Call[T], options: RequestOptions | None = None) -> T:
        """The call's result, retried as the policy allows; failures raise typed errors.
        `options`, the call's own, change its timeout, retries and headers.

        Raises:
            ConfigurationError: an option's value is refused, before anything is sent.
        """
        for_call = self._for_call(options)
        if self._tracing is not None:
            with self._tracing.sending(call) as traced:
                return await self._send(traced, for_call)
        return await self._send(call, for_call)

    async def _send(self, call: Call[T], for_call: _CallSettings | None) -> T:
        capture = CAPTURE.get()
        if capture is not None:
            capture.sending()
        policy = self._policy if for_call is None else for_call.policy
        try:
            return await retry_async(
                lambda: self._send_once(call, for_call), policy=policy, what=call.what
            )
        except APIError as error:
            if call.publish_target is None:
                raise
            raise self._publish_error(call, error) from error

    async def _send_once(self, call: Call[T], for_call: _CallSettings | None) -> T:
        http = self._http
        request = self._request(call, http, for_call)
        capture = CAPTURE.get()
        started = self._attempting(capture)
        try:
            response = await http.send(request)
        except httpx.RequestError as error:
            raise self._unanswered(call, request, started, error) from error
        self._answered(call, response, started, capture)
        return self._read(call, response)

    def with_settings(self, settings: Settings) -> AsyncTransport:
        """A transport with `settings` on this one's HTTP client, which it never closes."""
        return AsyncTransport(settings, http_client=self._http)

    async def aclose(self) -> None:
        """Close the HTTP client if the SDK created it."""
        if self._owns_http_client:
            await self._http.aclose()
