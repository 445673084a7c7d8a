from typing import Literal

LogState = Literal[
    "cancelled", "created", "dead_lettered", "delivered", "failed", "retry", "scheduled"
]

LOG_STATE_VALUES: set[LogState] = {
    "cancelled",
    "created",
    "dead_lettered",
    "delivered",
    "failed",
    "retry",
    "scheduled",
}


def check_log_state(value: str) -> LogState:
    if value in LOG_STATE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LOG_STATE_VALUES!r}")
