"""The error hierarchy and the mapping of every answer in openapi.yaml to a typed error."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest

import sdk
from sdk._exceptions import make_status_error, parse_retry_after, status_error_class
from sdk._retry import RetryPolicy, is_retryable
from tests.generated._spec import load_spec

STATUS_CLASSES: dict[int, type[sdk.APIStatusError]] = {
    400: sdk.BadRequestError,
    401: sdk.AuthenticationError,
    403: sdk.PermissionDeniedError,
    404: sdk.NotFoundError,
    409: sdk.ConflictError,
    413: sdk.PayloadTooLargeError,
    415: sdk.UnsupportedMediaTypeError,
    422: sdk.UnprocessableEntityError,
    429: sdk.RateLimitError,
    500: sdk.InternalServerError,
    503: sdk.InternalServerError,
}

# Every ErrorCode with the status it comes with and the class it must raise; the spec's shared
# responses name each code in their descriptions, and a test checks the two agree.
CODE_CLASSES: dict[str, tuple[int, type[sdk.APIStatusError]]] = {
    "malformed_request": (400, sdk.BadRequestError),
    "invalid_name": (400, sdk.BadRequestError),
    "reserved_topic": (400, sdk.BadRequestError),
    "invalid_retry_delay": (400, sdk.BadRequestError),
    "invalid_cron": (400, sdk.BadRequestError),
    "invalid_timezone": (400, sdk.BadRequestError),
    "destination_not_allowed": (403, sdk.PermissionDeniedError),
    "unauthenticated": (401, sdk.AuthenticationError),
    "permission_denied": (403, sdk.PermissionDeniedError),
    "stream_not_found": (404, sdk.NotFoundError),
    "group_not_found": (404, sdk.NotFoundError),
    "queue_not_found": (404, sdk.NotFoundError),
    "job_not_found": (404, sdk.NotFoundError),
    "message_not_found": (404, sdk.NotFoundError),
    "url_group_not_found": (404, sdk.NotFoundError),
    "dead_letter_not_found": (404, sdk.NotFoundError),
    "schedule_not_found": (404, sdk.NotFoundError),
    "not_found": (404, sdk.NotFoundError),
    "method_not_allowed": (405, sdk.APIStatusError),
    "conflict": (409, sdk.ConflictError),
    "group_exists": (409, sdk.ConflictError),
    "lease_expired": (409, sdk.ConflictError),
    "invalid_state": (409, sdk.ConflictError),
    "payload_too_large": (413, sdk.PayloadTooLargeError),
    "unsupported_media_type": (415, sdk.UnsupportedMediaTypeError),
    "validation_failed": (422, sdk.UnprocessableEntityError),
    "destination_not_found": (422, sdk.UnprocessableEntityError),
    "rate_limited": (429, sdk.RateLimitError),
    "quota_exceeded": (429, sdk.QuotaExceededError),
    "internal_error": (500, sdk.InternalServerError),
    "unavailable": (503, sdk.InternalServerError),
    "store_full": (503, sdk.StoreFullError),
}


def spec_error_statuses() -> set[int]:
    """Every 4xx and 5xx status any operation documents."""
    return {
        int(status)
        for path in load_spec()["paths"].values()
        for operation in path.values()
        if isinstance(operation, dict)
        for status in operation.get("responses", {})
        if int(status) >= 400
    }


def spec_codes_by_status() -> dict[str, int]:
    """The codes each shared error response names, with its status (or the one written first)."""
    statuses = {
        "BadRequest": 400,
        "Unauthenticated": 401,
        "PermissionDenied": 403,
        "NotFound": 404,
        "Conflict": 409,
        "PayloadTooLarge": 413,
        "UnsupportedMediaType": 415,
        "UnprocessableEntity": 422,
        "TooManyRequests": 429,
        "InternalError": 500,
        "Unavailable": 503,
        "UnavailableOrFull": 503,
    }
    responses = load_spec()["components"]["responses"]
    assert set(responses) == set(statuses), "a shared error response was added or renamed"
    codes = set(load_spec()["components"]["schemas"]["ErrorCode"]["enum"])
    return {
        code: int(status) if status else statuses[name]
        for name, response in responses.items()
        for status, code in re.findall(r"(?:(\d{3}) )?`([a-z_]+)`", response["description"])
        if code in codes
    }


def body(code: str | None, **fields: Any) -> bytes:
    """A problem document."""
    document: dict[str, Any] = {"type": "about:blank", "title": "t", "status": 400, **fields}
    if code is not None:
        document["code"] = code
    return json.dumps(document).encode()


@pytest.mark.parametrize("status", sorted(spec_error_statuses()))
def test_every_status_in_the_spec_maps_to_its_class(status: int) -> None:
    """Each error status an operation documents raises the class written for it."""
    error = make_status_error(status, {}, body(None))
    assert type(error) is STATUS_CLASSES[status]
    assert error.status_code == status


def test_the_code_table_covers_exactly_the_spec_enum() -> None:
    """A code added to (or removed from) ErrorCode fails here until it is mapped."""
    assert set(CODE_CLASSES) == set(load_spec()["components"]["schemas"]["ErrorCode"]["enum"])


def test_the_code_table_agrees_with_the_responses_that_name_codes() -> None:
    """Where the spec says which status a code comes with, the table says the same."""
    named = spec_codes_by_status()
    assert set(named) == set(CODE_CLASSES), "every code is named by some response"
    assert {code: status for code, (status, _) in CODE_CLASSES.items()} == named


@pytest.mark.parametrize("code", sorted(CODE_CLASSES))
def test_every_error_code_maps_to_its_class(code: str) -> None:
    """Each ErrorCode, with its status, raises its class and keeps the code."""
    status, cls = CODE_CLASSES[code]
    error = make_status_error(status, {}, body(code, detail="why"))
    assert type(error) is cls
    assert error.code == code
    assert error.detail == "why"
    assert str(error) == f"{status} {code}: why"


def test_an_unknown_status_is_a_plain_api_status_error() -> None:
    """A 4xx no class claims (418) is still an APIStatusError with its status."""
    assert status_error_class(418, None) is sdk.APIStatusError
    assert status_error_class(599, None) is sdk.InternalServerError


def test_429_without_quota_code_is_a_rate_limit() -> None:
    """Only `quota_exceeded` makes a 429 a QuotaExceededError; anything else is a rate limit."""
    assert status_error_class(429, None) is sdk.RateLimitError
    assert status_error_class(429, "rate_limited") is sdk.RateLimitError
    assert status_error_class(429, "quota_exceeded") is sdk.QuotaExceededError


def test_store_full_is_a_server_error_retried_after_its_retry_after() -> None:
    """Only `store_full` makes a 503 a StoreFullError: still an InternalServerError, retried
    like any 503, after the Retry-After the service sent.
    """
    assert status_error_class(503, None) is sdk.InternalServerError
    assert status_error_class(503, "unavailable") is sdk.InternalServerError
    error = make_status_error(503, {"Retry-After": "5"}, body("store_full", detail="full"))
    assert isinstance(error, sdk.StoreFullError)
    assert isinstance(error, sdk.InternalServerError)
    assert is_retryable(error)
    assert RetryPolicy(max_retries=3).delay(0, error) == 5.0


def test_problem_fields_are_kept() -> None:
    """request_id, field errors and Retry-After come from the answer."""
    error = make_status_error(
        422,
        {"X-Request-Id": "req_header", "Retry-After": "7"},
        body(
            "validation_failed",
            detail="1 field is invalid",
            request_id="req_body",
            errors=[{"location": "body.maxlen", "message": "too small"}],
        ),
    )
    assert error.request_id == "req_header"
    assert error.errors == (sdk.FieldError(location="body.maxlen", message="too small"),)
    assert error.retry_after == 7.0
    assert str(error) == (
        "422 validation_failed: 1 field is invalid (body.maxlen: too small) (request req_header)"
    )


def test_request_id_falls_back_to_the_problem_body() -> None:
    """Without an X-Request-Id header the problem's request_id is used."""
    error = make_status_error(404, {}, body("queue_not_found", request_id="req_body"))
    assert error.request_id == "req_body"


@pytest.mark.parametrize("content", [b"<html>Bad gateway</html>", b"", b"[1, 2]", b'"text"'])
def test_an_answer_that_is_not_a_problem_keeps_its_status(content: bytes) -> None:
    """A proxy's HTML page or an empty body still gives the status's class, without a code."""
    error = make_status_error(502, {}, content)
    assert type(error) is sdk.InternalServerError
    assert error.code is None
    assert str(error) == "HTTP 502"


def test_retry_after_parses_seconds_and_http_dates() -> None:
    """Retry-After is seconds or an HTTP date; anything else is ignored."""
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("-1") is None
    in_a_minute = format_datetime(datetime.now(UTC) + timedelta(seconds=60), usegmt=True)
    seconds = parse_retry_after(in_a_minute)
    assert seconds is not None and 0 < seconds <= 60


def test_the_hierarchy() -> None:
    """Every error is a SpoolError; input errors are also ValueErrors."""
    assert issubclass(sdk.APIStatusError, sdk.APIError)
    assert issubclass(sdk.APITimeoutError, sdk.APIConnectionError)
    assert issubclass(sdk.APIConnectionError, sdk.APIError)
    assert issubclass(sdk.APIResponseValidationError, sdk.APIError)
    assert issubclass(sdk.APIError, sdk.SpoolError)
    assert issubclass(sdk.PublishError, sdk.SpoolError)
    assert not issubclass(sdk.PublishError, sdk.APIError)
    assert issubclass(sdk.SignatureError, sdk.SpoolError)
    assert issubclass(sdk.EmbeddedServiceError, sdk.SpoolError)
    for cls in (
        sdk.ConfigurationError,
        sdk.InvalidArgumentError,
        sdk.InvalidNameError,
        sdk.InvalidTopicError,
        sdk.ReservedTopicError,
        sdk.InvalidDurationError,
    ):
        assert issubclass(cls, sdk.SpoolError)
        assert issubclass(cls, ValueError)
    assert issubclass(sdk.ReservedTopicError, sdk.InvalidTopicError)
    for status_class in set(STATUS_CLASSES.values()) | {sdk.QuotaExceededError}:
        assert issubclass(status_class, sdk.APIStatusError)


def test_every_error_class_has_a_one_line_docstring() -> None:
    """The house style: each class says what it is in one line."""
    for name in sdk.__all__:
        member = getattr(sdk, name)
        if isinstance(member, type) and issubclass(member, Exception):
            assert member.__doc__ and "\n" not in member.__doc__.strip(), name


def test_publish_error_names_its_target_and_reason() -> None:
    """The message is `could not publish to <target>: <reason>`."""
    error = sdk.PublishError("events", "connection refused")
    assert str(error) == "could not publish to events: connection refused"
    assert (error.target, error.reason) == ("events", "connection refused")


def test_the_message_names_at_most_three_field_errors() -> None:
    """Each field and reason is in the message, up to three, then how many more there are."""
    errors = [{"location": f"body.f{n}", "message": "bad"} for n in range(5)]
    document = json.dumps({"code": "validation_failed", "detail": "5 fields are invalid"})
    error = make_status_error(
        422, {}, document.replace("}", f', "errors": {json.dumps(errors)}}}').encode()
    )
    assert str(error) == (
        "422 validation_failed: 5 fields are invalid "
        "(body.f0: bad; body.f1: bad; body.f2: bad; and 2 more)"
    )


def test_a_code_from_a_newer_service_keeps_its_status_class() -> None:
    """A code this SDK does not know still gives the status's typed error, with the code kept."""
    error = make_status_error(409, {}, b'{"code": "added_later", "detail": "new rule"}')
    assert isinstance(error, sdk.ConflictError)
    assert (error.code, error.detail) == ("added_later", "new rule")
