"""How a client finds the service: base URL and API key (arguments or environment), the
options `with_options` changes (timeout, retries and extra headers), and the ones one call
changes (`RequestOptions`).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypedDict

import httpx

from ._durations import Duration, to_timedelta
from ._exceptions import ConfigurationError, InvalidArgumentError
from ._logs import configure_logging

__all__ = [
    "API_KEY_ENV",
    "BASE_URL_ENV",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_STARTUP_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "LOOPBACK_DESTINATIONS",
    "OWNED_HEADERS",
    "REQUEST_OPTION_NAMES",
    "ClientOptions",
    "RequestOptions",
    "Settings",
    "check_proxy",
    "check_request_options",
    "check_timeout",
    "redact_url",
    "resolve_settings",
]

BASE_URL_ENV = "SPOOL_BASE_URL"
API_KEY_ENV = "SPOOL_API_KEY"
DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_RETRIES = 3
# What `Client.embedded()` allows messages to be delivered to, and how long it waits for its service.
LOOPBACK_DESTINATIONS = ("localhost", "127.0.0.0/8", "::1")
DEFAULT_STARTUP_TIMEOUT = 30.0

# A bearer token is sent in a header: printable ASCII without spaces, so a pasted newline or a
# stray space is caught here with a clear message instead of deep inside httpx.
_API_KEY = re.compile(r"[\x21-\x7E]+")
# RFC 9110's token and field value: a header the caller adds is checked here, not by h11 mid-send.
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_HEADER_VALUE = re.compile(r"[\t\x20-\x7E\x80-\xFF]*")

# Headers the SDK writes itself, each with what to use instead; an extra header may not replace
# one, since the request would then no longer say what the SDK sent (or whose it is).
OWNED_HEADERS = {
    "authorization": "pass api_key= to the client",
    "idempotency-key": "pass idempotency_key= to the publish",
    "content-type": "the SDK encodes the body",
    "content-length": "the SDK encodes the body",
    "transfer-encoding": "the SDK encodes the body",
    "host": "pass base_url= to the client",
}


class ClientOptions(TypedDict, total=False):
    """What `Client.with_options` and `AsyncClient.with_options` may change; each is checked
    as the client's own parameter of the same name is, and `headers` as described there.
    """

    timeout: float | httpx.Timeout
    max_retries: int
    retry_timeout: Duration | None
    headers: Mapping[str, str]


class RequestOptions(TypedDict, total=False):
    """What one call may change, as a keyword of the call: `client.streams.info("events",
    timeout=2, extra_headers={"X-Tenant": "acme"})`. Every call that sends requests takes them.

    * `timeout` - seconds (or an `httpx.Timeout`) each attempt of the call's requests may take,
      as the client's `timeout` bounds each of its own; retries may add to the total.
    * `max_retries` - how often the call's requests are retried, instead of the client's.
    * `extra_headers` - headers sent with the call's requests, on top of the client's (a name
      the client sends too takes this value). The SDK's own are refused, as by `with_options`.

    Each is checked as `with_options` checks it: a bad value is a ConfigurationError, raised
    before the call does anything.
    """

    timeout: float | httpx.Timeout
    max_retries: int
    extra_headers: Mapping[str, str]


REQUEST_OPTION_NAMES = frozenset(RequestOptions.__annotations__)


@dataclass(frozen=True, slots=True)
class Settings:
    """A client's resolved, validated settings."""

    base_url: str
    api_key: str | None = field(repr=False)
    timeout: httpx.Timeout
    max_retries: int
    retry_timeout: float | None = None
    # Extra headers sent with every request, as (name, value) pairs: a tuple keeps Settings
    # immutable, and `repr=False` keeps a value that is a credential out of reprs.
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @property
    def display_url(self) -> str:
        """The base URL safe to show in reprs, logs and error messages."""
        return redact_url(self.base_url)

    def with_options(self, options: ClientOptions) -> Settings:
        """These settings with `options` applied: `headers` added to the extra headers so far
        (a name given again replaces its value), the others replaced.

        Raises:
            ConfigurationError: an unknown option, a value the client's parameter of that name
                would refuse, or a header that is malformed or one the SDK writes itself.
        """
        unknown = sorted(set(options) - set(ClientOptions.__annotations__))
        if unknown:
            raise ConfigurationError(
                f"with_options takes {', '.join(sorted(ClientOptions.__annotations__))}; "
                f"got {', '.join(map(repr, unknown))}"
            )
        headers = self.headers
        if "headers" in options:
            headers = _merged(headers, _check_headers(options["headers"], option="headers"))
        return dataclasses.replace(
            self,
            timeout=check_timeout(options["timeout"]) if "timeout" in options else self.timeout,
            max_retries=(
                _check_max_retries(options["max_retries"])
                if "max_retries" in options
                else self.max_retries
            ),
            retry_timeout=(
                _check_retry_timeout(options["retry_timeout"])
                if "retry_timeout" in options
                else self.retry_timeout
            ),
            headers=headers,
        )

    def for_call(self, options: RequestOptions) -> Settings:
        """These settings with one call's `options` applied, as `with_options` applies its own;
        any other name in `options` is left alone.

        Raises:
            ConfigurationError: a value the option of that name refuses, or an extra header
                that is malformed or one the SDK writes itself.
        """
        headers = self.headers
        if "extra_headers" in options:
            checked = _check_headers(options["extra_headers"], option="extra_headers")
            headers = _merged(headers, checked)
        return dataclasses.replace(
            self,
            timeout=check_timeout(options["timeout"]) if "timeout" in options else self.timeout,
            max_retries=(
                _check_max_retries(options["max_retries"])
                if "max_retries" in options
                else self.max_retries
            ),
            headers=headers,
        )


def check_request_options(options: RequestOptions) -> None:
    """Refuse a bad value among one call's `options` before the call does anything, as
    `Settings.for_call` would when its request is sent: a call may have nothing to send
    (`publish_many` of no bodies), and its options are checked all the same.

    Raises:
        ConfigurationError: as `Settings.for_call` raises.
    """
    if "timeout" in options:
        check_timeout(options["timeout"])
    if "max_retries" in options:
        _check_max_retries(options["max_retries"])
    if "extra_headers" in options:
        _check_headers(options["extra_headers"], option="extra_headers")


def _merged(
    headers: tuple[tuple[str, str], ...], added: list[tuple[str, str]]
) -> tuple[tuple[str, str], ...]:
    """`headers` with `added` after them; a name already there, in any letter case, takes the
    added value, so a request never carries one header twice.
    """
    merged = {name.lower(): (name, value) for name, value in headers}
    for name, value in added:
        merged[name.lower()] = (name, value)
    return tuple(merged.values())


def resolve_settings(
    *,
    base_url: str | None,
    api_key: str | None,
    timeout: float | httpx.Timeout,
    max_retries: int,
    retry_timeout: Duration | None = None,
    http_client_base_url: str | None = None,
) -> Settings:
    """Settings from the arguments, then the HTTP client, then $SPOOL_BASE_URL/$SPOOL_API_KEY;
    $SPOOL_LOG, if set, is applied here too, where a bad value can be a ConfigurationError.
    """
    configure_logging()
    url = base_url or http_client_base_url or os.environ.get(BASE_URL_ENV) or None
    if url is None:
        raise ConfigurationError(
            f"no base URL for the Spool service: pass base_url= or set ${BASE_URL_ENV}"
        )
    key = api_key if api_key is not None else (os.environ.get(API_KEY_ENV) or None)
    return Settings(
        base_url=_check_base_url(url),
        api_key=_check_api_key(key),
        timeout=check_timeout(timeout),
        max_retries=_check_max_retries(max_retries),
        retry_timeout=_check_retry_timeout(retry_timeout),
    )


def check_proxy(
    proxy: str | httpx.URL | httpx.Proxy | None, http_client: object
) -> httpx.Proxy | None:
    """`proxy` as httpx takes it; a ConfigurationError if it is no proxy URL, or if it comes
    with an `http_client`, whose own proxies the SDK leaves alone.
    """
    if proxy is None:
        return None
    if http_client is not None:
        raise ConfigurationError(
            "pass proxy= or http_client=, not both: give your http_client its proxy"
        )
    if isinstance(proxy, httpx.Proxy):
        return proxy
    if not isinstance(proxy, str | httpx.URL):
        raise ConfigurationError(
            f"proxy must be a URL (str or httpx.URL) or an httpx.Proxy, got {type(proxy).__name__}"
        )
    # The messages show the URL redacted: a proxy's user info is a credential.
    try:
        return httpx.Proxy(proxy)
    except httpx.InvalidURL as error:
        raise ConfigurationError(f"proxy {redact_url(str(proxy))} is not a valid URL") from error
    except ValueError as error:
        raise ConfigurationError(
            f"proxy {redact_url(str(proxy))} must be an http://, https:// or socks5:// URL"
        ) from error


def redact_url(url: str) -> str:
    """`url` without its user info, query and fragment, which may carry credentials."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        return "<invalid URL>"
    return str(parsed.copy_with(userinfo=b"", query=None, fragment=None))


def _check_base_url(url: str) -> str:
    if not isinstance(url, str):
        raise ConfigurationError(f"base_url must be a str, got {type(url).__name__}")
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        raise ConfigurationError(f"base_url {redact_url(url)} is not a valid URL") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ConfigurationError(
            f"base_url must be an http:// or https:// URL with a host, got {redact_url(url)}"
        )
    return url.rstrip("/")


def _check_api_key(key: str | None) -> str | None:
    if key is None:
        return None
    if not isinstance(key, str) or not _API_KEY.fullmatch(key):
        # Never echo the value: it is a secret even when it is malformed.
        raise ConfigurationError(
            "api_key must be printable ASCII without spaces (check for a stray newline)"
        )
    return key


def check_timeout(timeout: float | httpx.Timeout, *, name: str = "timeout") -> httpx.Timeout:
    """`timeout` as an httpx.Timeout.

    Raises:
        ConfigurationError: it is neither a positive number of seconds nor an httpx.Timeout;
            the message calls it `name`.
    """
    if isinstance(timeout, httpx.Timeout):
        return timeout
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise ConfigurationError(
            f"{name} must be seconds (a number) or an httpx.Timeout, got {timeout!r}"
        )
    if not math.isfinite(timeout) or timeout <= 0:
        raise ConfigurationError(f"{name} must be a positive number of seconds, got {timeout!r}")
    return httpx.Timeout(float(timeout))


def _check_max_retries(max_retries: int) -> int:
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ConfigurationError(f"max_retries must be an int >= 0, got {max_retries!r}")
    return max_retries


def _check_headers(headers: object, *, option: str) -> list[tuple[str, str]]:
    if not isinstance(headers, Mapping):
        raise ConfigurationError(
            f"{option} must be a mapping of names to values, got {type(headers).__name__}"
        )
    checked = []
    for name, value in headers.items():
        if not isinstance(name, str) or not _HEADER_NAME.fullmatch(name):
            raise ConfigurationError(f"header name {name!r} is not a valid HTTP header name")
        instead = OWNED_HEADERS.get(name.lower())
        if instead is not None:
            raise ConfigurationError(f"the SDK sets the {name} header itself: {instead}")
        # Never echo a value: extra headers often carry credentials.
        if not isinstance(value, str):
            raise ConfigurationError(
                f"header {name} must have a str value, got {type(value).__name__}"
            )
        if not _HEADER_VALUE.fullmatch(value) or value != value.strip(" \t"):
            raise ConfigurationError(
                f"header {name} has a value HTTP cannot send (a line break, a control "
                "character or surrounding spaces)"
            )
        checked.append((name, value))
    return checked


def _check_retry_timeout(retry_timeout: Duration | None) -> float | None:
    if retry_timeout is None:
        return None
    try:
        return to_timedelta(retry_timeout, name="retry_timeout").total_seconds()
    except InvalidArgumentError as error:
        raise ConfigurationError(str(error)) from None
