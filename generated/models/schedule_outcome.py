from typing import Literal

ScheduleOutcome = Literal["failed", "published", "skipped"]

SCHEDULE_OUTCOME_VALUES: set[ScheduleOutcome] = {
    "failed",
    "published",
    "skipped",
}


def check_schedule_outcome(value: str) -> ScheduleOutcome:
    if value in SCHEDULE_OUTCOME_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SCHEDULE_OUTCOME_VALUES!r}"
    )
