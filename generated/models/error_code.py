from typing import Literal

ErrorCode = Literal[
    "conflict",
    "dead_letter_not_found",
    "destination_not_allowed",
    "destination_not_found",
    "group_exists",
    "group_not_found",
    "internal_error",
    "invalid_cron",
    "invalid_name",
    "invalid_retry_delay",
    "invalid_state",
    "invalid_timezone",
    "job_not_found",
    "lease_expired",
    "malformed_request",
    "message_not_found",
    "method_not_allowed",
    "not_found",
    "payload_too_large",
    "permission_denied",
    "queue_not_found",
    "quota_exceeded",
    "rate_limited",
    "reserved_topic",
    "schedule_not_found",
    "store_full",
    "stream_not_found",
    "unauthenticated",
    "unavailable",
    "unsupported_media_type",
    "url_group_not_found",
    "validation_failed",
]

ERROR_CODE_VALUES: set[ErrorCode] = {
    "conflict",
    "dead_letter_not_found",
    "destination_not_allowed",
    "destination_not_found",
    "group_exists",
    "group_not_found",
    "internal_error",
    "invalid_cron",
    "invalid_name",
    "invalid_retry_delay",
    "invalid_state",
    "invalid_timezone",
    "job_not_found",
    "lease_expired",
    "malformed_request",
    "message_not_found",
    "method_not_allowed",
    "not_found",
    "payload_too_large",
    "permission_denied",
    "queue_not_found",
    "quota_exceeded",
    "rate_limited",
    "reserved_topic",
    "schedule_not_found",
    "store_full",
    "stream_not_found",
    "unauthenticated",
    "unavailable",
    "unsupported_media_type",
    "url_group_not_found",
    "validation_failed",
}


def check_error_code(value: str) -> ErrorCode:
    if value in ERROR_CODE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {ERROR_CODE_VALUES!r}"
    )
