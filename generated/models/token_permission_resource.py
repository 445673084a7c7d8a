from typing import Literal

TokenPermissionResource = Literal[
    "*", "message", "queue", "schedule", "stream", "url_group"
]

TOKEN_PERMISSION_RESOURCE_VALUES: set[TokenPermissionResource] = {
    "*",
    "message",
    "queue",
    "schedule",
    "stream",
    "url_group",
}


def check_token_permission_resource(value: str) -> TokenPermissionResource:
    if value in TOKEN_PERMISSION_RESOURCE_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {TOKEN_PERMISSION_RESOURCE_VALUES!r}"
    )
