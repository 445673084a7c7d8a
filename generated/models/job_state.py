from typing import Literal

JobState = Literal["dead", "delayed", "leased", "ready", "succeeded"]

JOB_STATE_VALUES: set[JobState] = {
    "dead",
    "delayed",
    "leased",
    "ready",
    "succeeded",
}


def check_job_state(value: str) -> JobState:
    if value in JOB_STATE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOB_STATE_VALUES!r}")
