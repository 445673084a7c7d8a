from typing import Literal

ScheduleCatchUp = Literal["once", "skip"]

SCHEDULE_CATCH_UP_VALUES: set[ScheduleCatchUp] = {
    "once",
    "skip",
}


def check_schedule_catch_up(value: str) -> ScheduleCatchUp:
    if value in SCHEDULE_CATCH_UP_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {SCHEDULE_CATCH_UP_VALUES!r}"
    )
