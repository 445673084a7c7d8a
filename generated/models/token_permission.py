from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.token_permission_actions_item import (
    TokenPermissionActionsItem,
    check_token_permission_actions_item,
)
from ..models.token_permission_resource import (
    TokenPermissionResource,
    check_token_permission_resource,
)

T = TypeVar("T", bound="TokenPermission")


@_attrs_define
class TokenPermission:
    """
    Attributes:
        resource (TokenPermissionResource): The kind of resource, or `*` for every kind.
        name (str): The glob the resources' names (for messages, their URLs or URL groups) must match.
        actions (list[TokenPermissionActionsItem]):
    """

    resource: TokenPermissionResource
    name: str
    actions: list[TokenPermissionActionsItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        resource: str = self.resource

        name = self.name

        actions = []
        for actions_item_data in self.actions:
            actions_item: str = actions_item_data
            actions.append(actions_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "resource": resource,
                "name": name,
                "actions": actions,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        resource = check_token_permission_resource(d.pop("resource"))

        name = d.pop("name")

        actions = []
        _actions = d.pop("actions")
        for actions_item_data in _actions:
            actions_item = check_token_permission_actions_item(actions_item_data)

            actions.append(actions_item)

        token_permission = cls(
            resource=resource,
            name=name,
            actions=actions,
        )

        token_permission.additional_properties = d
        return token_permission

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
