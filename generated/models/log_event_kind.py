from typing import Literal

LogEventKind = Literal[
    "cancelled", "created", "dead_letter", "delivered", "failed", "retry", "scheduled"
]

LOG_EVENT_KIND_VALUES: set[LogEventKind] = {
    "cancelled",
    "created",
    "dead_letter",
    "delivered",
    "failed",
    "retry",
    "scheduled",
}


def check_log_event_kind(value: str) -> LogEventKind:
    if value in LOG_EVENT_KIND_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {LOG_EVENT_KIND_VALUES!r}"
    )
