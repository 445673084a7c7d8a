"""The options of a message publish (`MessageOptions`) and the checks of their values, made
before any request: destinations, methods, headers and retry delays; and the publish's own
request options among them (`request_options`).
"""

from __future__ import annotations

import difflib
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from functools import cache
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, get_args

import httpx

from ._arguments import FlowControl, HttpMethod, Redact, SignatureScheme
from ._checks import check_count, check_resource_name
from ._config import RequestOptions, check_timeout
from ._durations import Duration, Timestamp, parse_duration_text, to_millis, to_seconds
from ._exceptions import InvalidArgumentError
from ._keywords import unexpected_keyword
from ._limits import (
    FLOW_CONTROL_PARALLELISM_MAX,
    FLOW_CONTROL_PERIOD_MAX_SECONDS,
    FLOW_CONTROL_RATE_MAX,
    LABEL_PATTERN,
    LABELS_MAX,
    URL_PATTERN,
)

if TYPE_CHECKING:
    from generated.models import (
        FlowControl as GeneratedFlowControl,
        ForwardedHeaders,
        PublishMessageRequestCallbackHeaders,
        PublishMessageRequestFailureCallbackHeaders,
        PublishMessageRequestHeaders,
        Redact as GeneratedRedact,
    )

__all__ = [
    "OPTION_NAMES",
    "MessageOptions",
    "callback_request_headers",
    "failure_callback_request_headers",
    "check_labels",
    "check_method",
    "flow_control_request",
    "forwarded_headers",
    "check_option_names",
    "check_signature_scheme",
    "check_url",
    "lists_options",
    "redact_request",
    "request_headers",
    "request_options",
    "retry_delay_text",
]

_METHODS: dict[str, HttpMethod] = {method: method for method in get_args(HttpMethod)}
_SIGNATURE_SCHEMES: dict[str, SignatureScheme] = {
    scheme: scheme for scheme in get_args(SignatureScheme)
}


class MessageOptions(TypedDict, total=False):
    """Options of `messages.publish` and `messages.publish_json`; None means "not given".

    `delay` and `timeout` take durations (`"3s"`, `30`, a timedelta); `not_before` an aware
    datetime or Unix seconds, at most 7 days ahead by the service's clock, as far as `delay` goes
    (later: a `PublishError` caused by `UnprocessableEntityError`). `retry_delay` is a duration (a
    fixed wait) or the API's expression in milliseconds over `retried`, such as
    `"1000 * pow(2, retried)"`. `idempotency_key` makes the publish safe to repeat; one is
    generated per call when it is not given. `callback_headers` and `failure_callback_headers`
    go with each request to `callback` and `failure_callback`, by the rules of `headers`.
    `redact` (a `Redact`, or a dict of its fields) keeps the body or the values of the headers
    it names from every reader of the message; they are still delivered. `flow_control` (a
    `FlowControl`, or a dict of its fields) puts the message under its key's limits.
    `signature_scheme="standard_webhooks"` signs its deliveries with the Standard Webhooks
    headers instead of `Spool-Signature` (the secrets are in `messages.signing_keys()`).
    `labels` (at most 10, each like a URL group name of up to 64 characters) are what
    `messages.list` and `client.logs` find the message by.

    `request_timeout`, `max_retries` and `extra_headers` are the publish's own request options
    (`RequestOptions`), not the message's: `request_timeout` is what `timeout=` is to every other
    call (seconds or an `httpx.Timeout` for each attempt of the request), since `timeout` here
    is how long a delivery may take; `max_retries` counts the SDK's retries of the request, where
    `retries` counts the service's deliveries; `extra_headers` go to the service with the
    request, where `headers` go with each delivery.
    """

    content_type: str | None
    method: HttpMethod | None
    headers: Mapping[str, str] | None
    delay: Duration | None
    not_before: Timestamp | None
    retries: int | None
    retry_delay: str | timedelta | None
    callback: str | None
    callback_headers: Mapping[str, str] | None
    failure_callback: str | None
    failure_callback_headers: Mapping[str, str] | None
    timeout: Duration | None
    deduplication_id: str | None
    content_based_deduplication: bool
    redact: Redact | Mapping[str, Any] | None
    flow_control: FlowControl | Mapping[str, Any] | None
    signature_scheme: SignatureScheme | None
    labels: Sequence[str] | None
    idempotency_key: str | None
    request_timeout: float | httpx.Timeout
    max_retries: int
    extra_headers: Mapping[str, str]


OPTION_NAMES = frozenset(MessageOptions.__annotations__)
# What a misspelled keyword may have meant besides an option: the publishes' own parameters.
_KEYWORDS = OPTION_NAMES | {"url", "url_group", "body"}
_OPTIONS_HELP = """

        Options, all keyword-only and optional (see `MessageOptions`): `content_type`, `method`,
        `headers`, `delay`, `not_before`, `retries`, `retry_delay`, `callback`,
        `callback_headers`, `failure_callback`, `failure_callback_headers`, `timeout`,
        `deduplication_id`, `content_based_deduplication`, `redact`, `flow_control`,
        `signature_scheme`, `labels`, `idempotency_key`; and the request's own `request_timeout`,
        `max_retries` and `extra_headers` (`timeout` being the delivery's). Any other keyword is a
        TypeError, as for every other publish.
"""
_RETURNS = "\n\n        Returns:"
PublishT = TypeVar("PublishT", bound=Callable[..., Any])


def lists_options(method: PublishT) -> PublishT:
    """`method` with the message options in its docstring, which `**options` hides from help():
    before its `Returns:` section, or at the end.
    """
    summary, returns, sections = (method.__doc__ or "").rstrip().partition(_RETURNS)
    method.__doc__ = summary + _OPTIONS_HELP.rstrip() + returns + sections + "\n"
    return method


def request_options(options: MessageOptions) -> RequestOptions:
    """The RequestOptions of a publish given `options`: `request_timeout` as `timeout`.

    Returns:
        The options for the transport to send the publish with.

    Raises:
        ConfigurationError: `request_timeout` is neither a positive number of seconds nor an
            httpx.Timeout.
    """
    request = RequestOptions()
    if "request_timeout" in options:
        request["timeout"] = check_timeout(options["request_timeout"], name="request_timeout")
    if "max_retries" in options:
        request["max_retries"] = options["max_retries"]
    if "extra_headers" in options:
        request["extra_headers"] = options["extra_headers"]
    return request


def check_option_names(options: Mapping[str, Any], method: str) -> None:
    """Refuse any name in `options` that is not a message option, as Python refuses keywords.

    Raises:
        TypeError: a name is not an option; the message suggests the closest keyword, as every
            publish's does (sdk/_keywords.py).
    """
    # `**options: Unpack[MessageOptions]` is checked by type checkers only; at run time a typo
    # such as `dealy=` would be dropped in silence and the message sent with the defaults.
    for name in options:
        if name not in OPTION_NAMES:
            raise unexpected_keyword(f"messages.{method}", name, _KEYWORDS)


# What a refused URL's message leaves out: user info, which may hold a password.
_USER_INFO = re.compile(r"(?<=://)[^/?#@]*@")


@cache
def _url_rule() -> re.Pattern[str]:
    # Compiled on first use rather than at import: the URL rule is a long pattern.
    return re.compile(URL_PATTERN)


def check_url(url: str, *, name: str) -> str:
    """`url` if the service accepts it as a destination or callback URL.

    Raises:
        InvalidArgumentError: it is not an http:// or https:// URL with a host and no user
            info; the message leaves user info out.
    """
    # fullmatch: the pattern's `$` would let re.match take a trailing newline, which the service
    # (reading it as JSON Schema does) refuses.
    if not isinstance(url, str) or not _url_rule().fullmatch(url):
        shown = _USER_INFO.sub("<user info>@", url) if isinstance(url, str) else url
        raise InvalidArgumentError(
            f"{name} must be an http:// or https:// URL with a host and no user info (see the "
            f"limits in openapi.yaml), got {shown!r}"
        )
    return url


def check_signature_scheme(scheme: str) -> SignatureScheme:
    """`scheme` as a SignatureScheme.

    Raises:
        InvalidArgumentError: it is not one of the schemes the service signs with.
    """
    if scheme not in _SIGNATURE_SCHEMES:
        close = difflib.get_close_matches(str(scheme), _SIGNATURE_SCHEMES, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise InvalidArgumentError(
            f"signature_scheme must be one of {sorted(_SIGNATURE_SCHEMES)}, got {scheme!r}{hint}"
        )
    return _SIGNATURE_SCHEMES[scheme]


def check_labels(labels: Sequence[str]) -> list[str]:
    """`labels` as the service takes them: each once, in the order first given.

    Raises:
        InvalidArgumentError: `labels` is a single string rather than a sequence, holds more than
            10 labels, or one that is not 1 to 64 letters, digits and `_.:-` starting with a
            letter or digit.
    """
    if isinstance(labels, str | bytes) or not isinstance(labels, Sequence):
        raise InvalidArgumentError(f"labels must be a list of strings, got {labels!r}")
    distinct = list(dict.fromkeys(labels))
    if len(distinct) > LABELS_MAX:
        raise InvalidArgumentError(f"a message takes at most {LABELS_MAX} labels, got {labels!r}")
    for label in distinct:
        if not isinstance(label, str) or not _label_rule().fullmatch(label):
            raise InvalidArgumentError(f"label {label!r} does not match {LABEL_PATTERN}")
    return distinct


@cache
def _label_rule() -> re.Pattern[str]:
    return re.compile(LABEL_PATTERN)


def check_method(method: str) -> HttpMethod:
    """`method` as an HttpMethod.

    Raises:
        InvalidArgumentError: it is not one of the methods the service delivers with.
    """
    if method not in _METHODS:
        raise InvalidArgumentError(f"method must be one of {sorted(_METHODS)}, got {method!r}")
    return _METHODS[method]


def _header_map(headers: Mapping[str, str], *, name: str) -> dict[str, str]:
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise InvalidArgumentError(f"{name} must map str names to str values")
    return dict(headers)


def request_headers(headers: Mapping[str, str]) -> PublishMessageRequestHeaders:
    """`headers` as the generated request's headers.

    Raises:
        InvalidArgumentError: a name or value is not a str.
    """
    from generated.models import PublishMessageRequestHeaders

    return PublishMessageRequestHeaders.from_dict(_header_map(headers, name="headers"))


def forwarded_headers(headers: Mapping[str, str]) -> ForwardedHeaders:
    """`headers` as the headers a dead letter's retry sets.

    Raises:
        InvalidArgumentError: a name or value is not a str.
    """
    from generated.models import ForwardedHeaders

    return ForwardedHeaders.from_dict(_header_map(headers, name="headers"))


def callback_request_headers(
    headers: Mapping[str, str],
) -> PublishMessageRequestCallbackHeaders:
    """`headers` as the generated request's `callback_headers`.

    Raises:
        InvalidArgumentError: a name or value is not a str.
    """
    from generated.models import PublishMessageRequestCallbackHeaders

    checked = _header_map(headers, name="callback_headers")
    return PublishMessageRequestCallbackHeaders.from_dict(checked)


def failure_callback_request_headers(
    headers: Mapping[str, str],
) -> PublishMessageRequestFailureCallbackHeaders:
    """`headers` as the generated request's `failure_callback_headers`.

    Raises:
        InvalidArgumentError: a name or value is not a str.
    """
    from generated.models import PublishMessageRequestFailureCallbackHeaders

    checked = _header_map(headers, name="failure_callback_headers")
    return PublishMessageRequestFailureCallbackHeaders.from_dict(checked)


_REDACT_FIELDS = frozenset({"body", "headers"})


def redact_request(value: Redact | Mapping[str, Any]) -> GeneratedRedact:
    """`redact` as the generated request's.

    Raises:
        InvalidArgumentError: not a Redact or a mapping of its fields, a name that is not one of
            them, `body` that is not a bool, or `headers` that is not a list of str.
    """
    from generated.models import Redact as GeneratedRedact

    if isinstance(value, Redact):
        body: object = value.body
        headers: object = value.headers
    elif isinstance(value, Mapping):
        unknown = sorted(set(value) - _REDACT_FIELDS, key=str)
        if unknown:
            raise InvalidArgumentError(
                f"redact takes body and headers, got {', '.join(map(repr, unknown))}"
            )
        body, headers = value.get("body", False), value.get("headers", ())
    else:
        raise InvalidArgumentError(f"redact must be a Redact or a dict, got {value!r}")
    if not isinstance(body, bool):
        raise InvalidArgumentError(f"redact body must be a bool, got {body!r}")
    # A lone string would otherwise be read as a list of one-letter names.
    if isinstance(headers, str | bytes) or not isinstance(headers, list | tuple):
        raise InvalidArgumentError(f"redact headers must be a list of names, got {headers!r}")
    if not all(isinstance(name, str) for name in headers):
        raise InvalidArgumentError(f"redact headers must be str names, got {headers!r}")
    return GeneratedRedact(body=body, headers=list(headers))


_FLOW_CONTROL_FIELDS = ("key", "rate", "period", "parallelism")


def flow_control_request(value: FlowControl | Mapping[str, Any]) -> GeneratedFlowControl:
    """`flow_control` as the generated request's, `period` in whole seconds.

    Raises:
        InvalidArgumentError: not a FlowControl or a mapping of its fields (a misspelled name
            is refused with the closest field), a key that is not a valid name, neither `rate`
            nor `parallelism`, or one out of range.
        InvalidDurationError: a `period` that is malformed or not 1 second to a day.
    """
    from generated.models import FlowControl as GeneratedFlowControl
    from generated.types import UNSET

    if isinstance(value, Mapping):
        for name in value:
            if name not in _FLOW_CONTROL_FIELDS:
                close = difflib.get_close_matches(str(name), _FLOW_CONTROL_FIELDS, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise InvalidArgumentError(
                    f"flow_control takes key, rate, period and parallelism, got {name!r}{hint}"
                )
        if "key" not in value:
            raise InvalidArgumentError("flow_control needs a key")
        value = FlowControl(
            value["key"],
            rate=value.get("rate"),
            period=value.get("period"),
            parallelism=value.get("parallelism"),
        )
    elif not isinstance(value, FlowControl):
        raise InvalidArgumentError(f"flow_control must be a FlowControl or a dict, got {value!r}")
    if value.rate is None and value.parallelism is None:
        raise InvalidArgumentError("flow_control needs at least one of rate and parallelism")
    key = check_resource_name(value.key, what="flow control key")
    return GeneratedFlowControl(
        key=key,
        rate=UNSET
        if value.rate is None
        else check_count(value.rate, name="rate", minimum=1, maximum=FLOW_CONTROL_RATE_MAX),
        period=UNSET
        if value.period is None
        else to_seconds(
            value.period, name="period", minimum=1, maximum=FLOW_CONTROL_PERIOD_MAX_SECONDS
        ),
        parallelism=UNSET
        if value.parallelism is None
        else check_count(
            value.parallelism,
            name="parallelism",
            minimum=1,
            maximum=FLOW_CONTROL_PARALLELISM_MAX,
        ),
    )


def retry_delay_text(value: str | timedelta) -> str:
    """`retry_delay` as the API's expression: whole milliseconds for a duration, any other
    string as it is.

    Raises:
        InvalidArgumentError: `value` is neither a duration nor a string.
        InvalidDurationError: a duration that is negative or not whole milliseconds.
    """
    # A duration is a fixed wait; any other string is the API's own expression, which the
    # service validates (400 invalid_retry_delay) at publish time.
    if isinstance(value, timedelta):
        duration: timedelta | None = value
    elif isinstance(value, str):
        duration = parse_duration_text(value)
    else:
        raise InvalidArgumentError(
            f"retry_delay must be a duration or an expression string, got {value!r}"
        )
    if duration is None:
        return str(value)
    return str(to_millis(duration, name="retry_delay", minimum=0, maximum=sys.maxsize))
