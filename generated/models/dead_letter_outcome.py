from typing import Literal

DeadLetterOutcome = Literal["deleted", "not_found", "permission_denied", "retried"]

DEAD_LETTER_OUTCOME_VALUES: set[DeadLetterOutcome] = {
    "deleted",
    "not_found",
    "permission_denied",
    "retried",
}


def check_dead_letter_outcome(value: str) -> DeadLetterOutcome:
    if value in DEAD_LETTER_OUTCOME_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {DEAD_LETTER_OUTCOME_VALUES!r}"
    )
