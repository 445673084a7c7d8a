"""Errors as RFC 9457 problems: one exception type for every refusal and the response it becomes.

Routes raise :class:`ProblemError` with an ``ErrorCode`` of openapi.yaml; the app turns it into an
``application/problem+json`` response that also names the request path and the request id, so a
client can quote exactly which call failed, and says with ``X-Should-Retry`` whether repeating the
request can help, so that a client need not guess from the status.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from starlette.responses import Response

from .encoding import json_bytes

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "PROBLEM_TYPE_BASE",
    "RETRYABLE_CODES",
    "SHOULD_RETRY_HEADER",
    "TITLES",
    "FieldIssue",
    "ProblemError",
    "problem_response",
    "should_retry",
]

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_TYPE_BASE = "https://spool.dev/problems/"

TITLES: dict[str, str] = {
    "malformed_request": "Malformed request",
    "invalid_name": "Invalid name",
    "reserved_topic": "Reserved topic",
    "invalid_retry_delay": "Invalid retry delay",
    "invalid_cron": "Invalid cron",
    "invalid_timezone": "Invalid time zone",
    "destination_not_allowed": "Destination not allowed",
    "unauthenticated": "Unauthenticated",
    "permission_denied": "Permission denied",
    "stream_not_found": "Stream not found",
    "group_not_found": "Group not found",
    "queue_not_found": "Queue not found",
    "job_not_found": "Job not found",
    "message_not_found": "Message not found",
    "url_group_not_found": "URL group not found",
    "dead_letter_not_found": "Dead letter not found",
    "schedule_not_found": "Schedule not found",
    "not_found": "Not found",
    "method_not_allowed": "Method not allowed",
    "conflict": "Conflict",
    "group_exists": "Group exists",
    "lease_expired": "Lease expired",
    "invalid_state": "Invalid state",
    "payload_too_large": "Payload too large",
    "unsupported_media_type": "Unsupported media type",
    "validation_failed": "Validation failed",
    "destination_not_found": "Destination not found",
    "rate_limited": "Rate limited",
    "quota_exceeded": "Quota exceeded",
    "internal_error": "Internal error",
    "unavailable": "Unavailable",
    "store_full": "Store full",
}


SHOULD_RETRY_HEADER = "X-Should-Retry"

# The refusals that pass with time: a rate limit refills, a store comes back or gets room, and an
# unexpected failure may not happen again. Every other refusal (a 429 quota_exceeded among them)
# answers the same until the request or the service's state changes.
RETRYABLE_CODES = frozenset({"rate_limited", "unavailable", "store_full", "internal_error"})


@dataclasses.dataclass(frozen=True, slots=True)
class FieldIssue:
    """One invalid part of a request, such as ``body.maxlen`` or ``query.count``."""

    location: str
    message: str


class ProblemError(Exception):
    """A request the service refuses, carrying everything its problem response needs."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        errors: Sequence[FieldIssue] = (),
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if code not in TITLES:
            raise ValueError(f"{code!r} is not an ErrorCode of openapi.yaml")
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = tuple(errors)
        self.headers = dict(headers or {})


def should_retry(error: ProblemError) -> bool:
    """Whether sending the request refused with ``error`` again may succeed."""
    return error.code in RETRYABLE_CODES


def problem_response(error: ProblemError, *, instance: str, request_id: str) -> Response:
    """The ``application/problem+json`` response for ``error`` raised while serving ``instance``,
    with ``X-Should-Retry``.
    """
    document: dict[str, object] = {
        "type": PROBLEM_TYPE_BASE + error.code,
        "title": TITLES[error.code],
        "status": error.status,
        "detail": error.detail,
        "instance": instance,
        "code": error.code,
        "request_id": request_id,
    }
    if error.errors:
        document["errors"] = [
            {"location": issue.location, "message": issue.message} for issue in error.errors
        ]
    headers = {SHOULD_RETRY_HEADER: "true" if should_retry(error) else "false", **error.headers}
    return Response(
        json_bytes(document),
        status_code=error.status,
        headers=headers,
        media_type=PROBLEM_MEDIA_TYPE,
    )
