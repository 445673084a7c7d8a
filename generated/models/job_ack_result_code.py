from typing import Literal

JobAckResultCode = Literal["job_not_found", "lease_expired"]

JOB_ACK_RESULT_CODE_VALUES: set[JobAckResultCode] = {
    "job_not_found",
    "lease_expired",
}


def check_job_ack_result_code(value: str) -> JobAckResultCode:
    if value in JOB_ACK_RESULT_CODE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {JOB_ACK_RESULT_CODE_VALUES!r}"
    )
