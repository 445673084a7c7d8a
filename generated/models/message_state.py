from typing import Literal

MessageState = Literal["cancelled", "delivered", "delivering", "failed", "scheduled"]

MESSAGE_STATE_VALUES: set[MessageState] = {
    "cancelled",
    "delivered",
    "delivering",
    "failed",
    "scheduled",
}


def check_message_state(value: str) -> MessageState:
    if value in MESSAGE_STATE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {MESSAGE_STATE_VALUES!r}"
    )
