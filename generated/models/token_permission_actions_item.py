from typing import Literal

TokenPermissionActionsItem = Literal["admin", "consume", "publish"]

TOKEN_PERMISSION_ACTIONS_ITEM_VALUES: set[TokenPermissionActionsItem] = {
    "admin",
    "consume",
    "publish",
}


def check_token_permission_actions_item(value: str) -> TokenPermissionActionsItem:
    if value in TOKEN_PERMISSION_ACTIONS_ITEM_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {TOKEN_PERMISSION_ACTIONS_ITEM_VALUES!r}"
    )
