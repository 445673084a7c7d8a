"""Every error the SDK raises, in one hierarchy.

```
SpoolError
├── APIError
│   ├── APIStatusError                 (any non-2xx answer)
│   │   ├── BadRequestError            (400)
│   │   ├── AuthenticationError        (401)
│   │   ├── PermissionDeniedError      (403)
│   │   ├── NotFoundError              (404)
│   │   ├── ConflictError              (409)
│   │   ├── PayloadTooLargeError       (413)
│   │   ├── UnsupportedMediaTypeError  (415)
│   │   ├── UnprocessableEntityError   (422)
│   │   ├── RateLimitError             (429 rate_limited)
│   │   ├── QuotaExceededError         (429 quota_exceeded)
│   │   └── InternalServerError        (>= 500)
│   │       └── StoreFullError         (503 store_full)
│   ├── APIConnectionError
│   │   └── APITimeoutError
│   └── APIResponseValidationError     (an answer that is not Spool's: HTML, other JSON, ...)
├── PublishError                       (the cause is chained as __cause__)
├── SignatureError                     (a Spool-Signature that does not verify; see `reason`)
├── EmbeddedServiceError               (the embedded service failed to start)
├── ConfigurationError                 (also a ValueError)
└── InvalidArgumentError               (also a ValueError)
    ├── InvalidNameError
    ├── InvalidTopicError
    │   └── ReservedTopicError
    └── InvalidDurationError
```

What each error carries besides its message: an APIStatusError has `status_code`, `code` (the
problem's code, such as `stream_not_found`), `detail`, `request_id`, `errors` (a FieldError for each
invalid part of the request), `retry_after` (seconds, from Retry-After-Ms or Retry-After),
`should_retry` (the service's x-should-retry, when it sent one) and `headers`; an
APIResponseValidationError has `status_code`, `url` and `expected` (what a Spool answer would have
been); a PublishError `target` and `reason`, with its cause
(the APIError, or the encoding error) chained as `__cause__`; a SignatureError `reason` and
`failures` (each key tried, with its reason and detail); an EmbeddedServiceError `log` and
`exit_code`.

Messages never contain the API key: the SDK builds them only from statuses, problem documents and
the redacted base URL.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, ClassVar, Literal, TypeAlias

import httpx

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "ConflictError",
    "EmbeddedServiceError",
    "FieldError",
    "InternalServerError",
    "InvalidArgumentError",
    "InvalidDurationError",
    "InvalidNameError",
    "InvalidTopicError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "PublishError",
    "QuotaExceededError",
    "RateLimitError",
    "ReservedTopicError",
    "SignatureError",
    "SignatureFailure",
    "SpoolError",
    "StoreFullError",
    "UnprocessableEntityError",
    "UnsupportedMediaTypeError",
]


class SpoolError(Exception):
    """The base of every error the SDK raises."""


class APIError(SpoolError):
    """The service could not be reached, or answered with an error."""


@dataclass(frozen=True, slots=True)
class FieldError:
    """One invalid part of a request, as the service reported it (`body.maxlen`, ...)."""

    location: str
    message: str


class APIStatusError(APIError):
    """The service answered with a status other than 2xx."""

    status: ClassVar[int | None] = None

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        code: str | None = None,
        detail: str | None = None,
        request_id: str | None = None,
        errors: tuple[FieldError, ...] = (),
        retry_after: float | None = None,
        should_retry: bool | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.code = code
        self.detail = detail
        self.request_id = request_id
        self.errors = errors
        self.retry_after = retry_after
        self.should_retry = should_retry
        self.headers = httpx.Headers(headers)


class BadRequestError(APIStatusError):
    """400: the request is malformed, names something invalid or asks for something refused."""

    status = 400


class AuthenticationError(APIStatusError):
    """401: no API key, or one the service does not know."""

    status = 401


class PermissionDeniedError(APIStatusError):
    """403: the API key may not do this to this resource."""

    status = 403


class NotFoundError(APIStatusError):
    """404: the stream, group, queue, job, message, URL group or dead letter does not exist."""

    status = 404


class ConflictError(APIStatusError):
    """409: the request conflicts with the resource's current state."""

    status = 409


class PayloadTooLargeError(APIStatusError):
    """413: the request body is over the service's size limit."""

    status = 413


class UnsupportedMediaTypeError(APIStatusError):
    """415: the request body was sent as something other than JSON."""

    status = 415


class UnprocessableEntityError(APIStatusError):
    """422: the request breaks the schema; `errors` says where."""

    status = 422


class RateLimitError(APIStatusError):
    """429 `rate_limited`: slow down; retried automatically, honouring Retry-After."""

    status = 429


class QuotaExceededError(APIStatusError):
    """429 `quota_exceeded`: the key's hard quota is used up; retrying will not help."""

    status = 429


class InternalServerError(APIStatusError):
    """5xx: the service or its store failed; retried automatically."""


class StoreFullError(InternalServerError):
    """503 `store_full`: the store has no room left and wrote nothing; retried automatically."""


class APIConnectionError(APIError):
    """No answer arrived: the connection was refused, reset or could not be made."""


class APITimeoutError(APIConnectionError):
    """No answer arrived within the client's timeout."""


class APIResponseValidationError(APIError):
    """A 2xx answer that is not Spool's (HTML, other JSON, missing fields): check the base URL."""

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        url: str | None = None,
        expected: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.url = url
        self.expected = expected


# What a publish names when it fails: the target, or how to describe it. Describing a message's URL
# means redacting it (two URL parses), work that only a failure needs.
PublishTarget: TypeAlias = str | Callable[[], str]


def describe_target(target: PublishTarget) -> str:
    """The text a PublishError names for `target`."""
    return target if isinstance(target, str) else target()


class PublishError(SpoolError):
    """A publish failed; the typed reason (API, connection or encoding error) is `__cause__`."""

    def __init__(self, target: str, reason: str) -> None:
        super().__init__(f"could not publish to {target}: {reason}")
        self.target = target
        self.reason = reason


SignatureFailure: TypeAlias = Literal[
    "malformed",
    "bad_signature",
    "expired",
    "not_yet_valid",
    "body_mismatch",
    "url_mismatch",
    "wrong_issuer",
]


class SignatureError(SpoolError):
    """A `Spool-Signature` that does not verify; `reason` says why in one word."""

    # `failures` lists (key, reason, detail) for each key tried ("current", "next"); `reason` is
    # the most telling of them, as a key whose HMAC matched explains more than a mismatch.
    def __init__(
        self,
        message: str,
        *,
        reason: SignatureFailure,
        failures: tuple[tuple[str, SignatureFailure, str], ...] = (),
    ) -> None:
        super().__init__(message)
        self.reason: SignatureFailure = reason
        self.failures = failures


class EmbeddedServiceError(SpoolError):
    """The embedded service exited or timed out before it was ready; `log` is its output's end."""

    def __init__(self, message: str, *, log: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.log = log
        self.exit_code = exit_code


class ConfigurationError(SpoolError, ValueError):
    """The client or a subscription is set up wrongly (missing base URL, bad option, ...)."""


class InvalidArgumentError(SpoolError, ValueError):
    """An argument is invalid; raised before any request is sent."""


class InvalidNameError(InvalidArgumentError):
    """A stream, queue, URL group, consumer group or consumer name breaks its pattern."""


class InvalidTopicError(InvalidArgumentError):
    """A job topic breaks the topic pattern."""


class ReservedTopicError(InvalidTopicError):
    """A job topic uses the prefix reserved for the system."""


class InvalidDurationError(InvalidArgumentError):
    """A duration is malformed or outside the range the service accepts."""


_BY_STATUS: dict[int, type[APIStatusError]] = {
    cls.status: cls
    for cls in (
        BadRequestError,
        AuthenticationError,
        PermissionDeniedError,
        NotFoundError,
        ConflictError,
        PayloadTooLargeError,
        UnsupportedMediaTypeError,
        UnprocessableEntityError,
        RateLimitError,
    )
    if cls.status is not None
}


def status_error_class(status_code: int, code: str | None) -> type[APIStatusError]:
    """The class for an error answer: by status, with 429 and 503 split by their problem code."""
    if status_code == 429 and code == "quota_exceeded":
        return QuotaExceededError
    if status_code == 503 and code == "store_full":
        return StoreFullError
    if status_code >= 500:
        return InternalServerError
    return _BY_STATUS.get(status_code, APIStatusError)


_SHOWN_ERRORS = 3


def make_status_error(
    status_code: int, headers: Mapping[str, str], content: bytes
) -> APIStatusError:
    """Build the typed error for a non-2xx answer from its problem+json body and headers."""
    headers = httpx.Headers(headers)
    problem = _problem(content)
    code = _text(problem.get("code"))
    detail = _text(problem.get("detail")) or _text(problem.get("title"))
    request_id = headers.get("x-request-id") or _text(problem.get("request_id"))
    errors = _field_errors(problem.get("errors"))
    message = f"{status_code} {code}" if code else f"HTTP {status_code}"
    if detail:
        message += f": {detail}"
    if errors:
        # The field and the reason belong in the message people read, not only on `errors`.
        shown = "; ".join(f"{error.location}: {error.message}" for error in errors[:_SHOWN_ERRORS])
        more = len(errors) - _SHOWN_ERRORS
        message += f" ({shown}{f'; and {more} more' if more > 0 else ''})"
    if request_id:
        message += f" (request {request_id})"
    return status_error_class(status_code, code)(
        message,
        status_code=status_code,
        code=code,
        detail=detail,
        request_id=request_id,
        errors=errors,
        retry_after=retry_after_of(headers),
        should_retry=should_retry_of(headers),
        headers=headers,
    )


def retry_after_of(headers: httpx.Headers) -> float | None:
    """Seconds the service asks the client to wait: Retry-After-Ms (milliseconds), else
    Retry-After (seconds or an HTTP date); None when neither is there or readable.
    """
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        with contextlib.suppress(ValueError):
            value = float(milliseconds)
            if 0 <= value < math.inf:
                return value / 1000
    return parse_retry_after(headers.get("retry-after"))


_SHOULD_RETRY = {"true": True, "false": False}


def should_retry_of(headers: httpx.Headers) -> bool | None:
    """The service's `x-should-retry: true|false`, or None when it said neither."""
    return _SHOULD_RETRY.get(headers.get("x-should-retry", "").strip().lower())


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (seconds or an HTTP date), or None when absent or bad."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None
    return seconds if seconds >= 0 else None


def _problem(content: bytes) -> dict[str, Any]:
    # A proxy in front of the service may answer with HTML or nothing at all; that is still an
    # error with a status, just without the problem's details.
    try:
        parsed = json.loads(content)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _field_errors(value: object) -> tuple[FieldError, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(
        FieldError(location=str(item.get("location", "")), message=str(item.get("message", "")))
        for item in value
        if isinstance(item, dict)
    )
