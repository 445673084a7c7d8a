from typing import Literal

JobReleaseResultCode = Literal["job_not_found", "lease_expired"]

JOB_RELEASE_RESULT_CODE_VALUES: set[JobReleaseResultCode] = {
    "job_not_found",
    "lease_expired",
}


def check_job_release_result_code(value: str) -> JobReleaseResultCode:
    if value in JOB_RELEASE_RESULT_CODE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {JOB_RELEASE_RESULT_CODE_VALUES!r}"
    )
