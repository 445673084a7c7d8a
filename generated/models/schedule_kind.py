from typing import Literal

ScheduleKind = Literal["job", "message", "stream"]

SCHEDULE_KIND_VALUES: set[ScheduleKind] = {
    "job",
    "message",
    "stream",
}


def check_schedule_kind(value: str) -> ScheduleKind:
    if value in SCHEDULE_KIND_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SCHEDULE_KIND_VALUES!r}"
    )
