"""The limits the SDK checks before it sends anything, copied from openapi.yaml.

The document stays the single source of truth: tests/sdk/test_limits.py compares every constant
here with the schema it comes from, so a change to the spec that is not made here fails the suite.
"""

from __future__ import annotations

__all__ = [
    "BATCH_MAX",
    "COUNT_MAX",
    "DEAD_LETTER_FILTER_URL_MAX_LENGTH",
    "DEAD_LETTER_IDS_MAX",
    "DEDUPLICATION_WINDOW_MAX_SECONDS",
    "DELAY_MAX_SECONDS",
    "FLOW_CONTROL_PARALLELISM_MAX",
    "FLOW_CONTROL_PERIOD_MAX_SECONDS",
    "FLOW_CONTROL_RATE_MAX",
    "GROUP_NAME_PATTERN",
    "FILTER_IDS_MAX",
    "IDEMPOTENCY_KEY_PATTERN",
    "LABELS_MAX",
    "LABEL_PATTERN",
    "LEASE_SECONDS_MAX",
    "LEASE_TOPICS_MAX",
    "MAX_ATTEMPTS_MAX",
    "MAX_DELIVERIES_MAX",
    "MAXLEN_MAX",
    "MESSAGE_TIMEOUT_MAX_SECONDS",
    "MESSAGE_TIMEOUT_MIN_SECONDS",
    "MIN_IDLE_MS_MAX",
    "NACK_ERROR_MAX_LENGTH",
    "RESERVED_TOPIC_PREFIX",
    "RESOURCE_NAME_PATTERN",
    "STREAM_NAME_PREFIX_PATTERN",
    "RETENTION_SECONDS_MAX",
    "RETENTION_SECONDS_MIN",
    "RETRIES_MAX",
    "TOPIC_PATTERN",
    "URL_PATTERN",
    "WAIT_MS_MAX",
]

RESOURCE_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"
GROUP_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"
STREAM_NAME_PREFIX_PATTERN = r"^[A-Za-z0-9_.:-]{1,128}$"
TOPIC_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"
RESERVED_TOPIC_PREFIX = "spool."
IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7E]{1,255}$"
LABEL_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"
# openapi.yaml's URL rule (see its limits table), piece by piece as the document writes it.
URL_PATTERN = (
    r"^https?://"
    r"(?:(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})+"
    r"|\[(?:(?:(?:[0-9A-Fa-f]{1,4}:){6}"
    r"|::(?:[0-9A-Fa-f]{1,4}:){5}"
    r"|(?:[0-9A-Fa-f]{1,4})?::(?:[0-9A-Fa-f]{1,4}:){4}"
    r"|(?:(?:[0-9A-Fa-f]{1,4}:){0,1}[0-9A-Fa-f]{1,4})?::(?:[0-9A-Fa-f]{1,4}:){3}"
    r"|(?:(?:[0-9A-Fa-f]{1,4}:){0,2}[0-9A-Fa-f]{1,4})?::(?:[0-9A-Fa-f]{1,4}:){2}"
    r"|(?:(?:[0-9A-Fa-f]{1,4}:){0,3}[0-9A-Fa-f]{1,4})?::[0-9A-Fa-f]{1,4}:"
    r"|(?:(?:[0-9A-Fa-f]{1,4}:){0,4}[0-9A-Fa-f]{1,4})?::)"
    r"(?:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}"
    r"|(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
    r"(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3})"
    r"|(?:(?:[0-9A-Fa-f]{1,4}:){0,5}[0-9A-Fa-f]{1,4})?::[0-9A-Fa-f]{1,4}"
    r"|(?:(?:[0-9A-Fa-f]{1,4}:){0,6}[0-9A-Fa-f]{1,4})?::)"
    r"(?:%25[A-Za-z0-9._~-]+)?\])"
    r"(?::(?:[0-9]{1,4}|[0-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])?)?"
    r"(?:[/?#][!-~]*)?$"
)

MAXLEN_MAX = 1_000_000_000
COUNT_MAX = 1000
BATCH_MAX = 1000
DEAD_LETTER_IDS_MAX = 1000
DEAD_LETTER_FILTER_URL_MAX_LENGTH = 2048
DELAY_MAX_SECONDS = 604_800
RETRIES_MAX = 20
FLOW_CONTROL_RATE_MAX = 10_000
FLOW_CONTROL_PERIOD_MAX_SECONDS = 86_400
FLOW_CONTROL_PARALLELISM_MAX = 1000
MESSAGE_TIMEOUT_MIN_SECONDS = 1
MESSAGE_TIMEOUT_MAX_SECONDS = 900
WAIT_MS_MAX = 30_000
LEASE_SECONDS_MAX = 43_200
LEASE_TOPICS_MAX = 100
LABELS_MAX = 10
FILTER_IDS_MAX = 100
MIN_IDLE_MS_MAX = 2_592_000_000
NACK_ERROR_MAX_LENGTH = 2000
MAX_ATTEMPTS_MAX = 100
MAX_DELIVERIES_MAX = 1_000_000
RETENTION_SECONDS_MIN = 60
RETENTION_SECONDS_MAX = 2_592_000
DEDUPLICATION_WINDOW_MAX_SECONDS = 604_800
