from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.token_permission import TokenPermission
    from ..models.token_rate_limit import TokenRateLimit


T = TypeVar("T", bound="TokenInfo")


@_attrs_define
class TokenInfo:
    """
    Attributes:
        id (str): The token's id in the service's configuration.
        development (bool): Whether this is the token of a service in development mode, which holds every permission.
        permissions (list[TokenPermission]): What the token may do, as configured.
        quota (int | Unset): The most items the token may publish in all, when it has a quota.
        rate_limit (TokenRateLimit | Unset): The token's rate limit, a bucket of `burst` requests refilled at
            `per_second`.
    """

    id: str
    development: bool
    permissions: list[TokenPermission]
    quota: int | Unset = UNSET
    rate_limit: TokenRateLimit | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        development = self.development

        permissions = []
        for permissions_item_data in self.permissions:
            permissions_item = permissions_item_data.to_dict()
            permissions.append(permissions_item)

        quota = self.quota

        rate_limit: dict[str, Any] | Unset = UNSET
        if not isinstance(self.rate_limit, Unset):
            rate_limit = self.rate_limit.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "development": development,
                "permissions": permissions,
            }
        )
        if quota is not UNSET:
            field_dict["quota"] = quota
        if rate_limit is not UNSET:
            field_dict["rate_limit"] = rate_limit

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.token_permission import TokenPermission  # noqa: PLC0415
        from ..models.token_rate_limit import TokenRateLimit  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        development = d.pop("development")

        permissions = []
        _permissions = d.pop("permissions")
        for permissions_item_data in _permissions:
            permissions_item = TokenPermission.from_dict(permissions_item_data)

            permissions.append(permissions_item)

        quota = d.pop("quota", UNSET)

        _rate_limit = d.pop("rate_limit", UNSET)
        rate_limit: TokenRateLimit | Unset
        if isinstance(_rate_limit, Unset):
            rate_limit = UNSET
        else:
            rate_limit = TokenRateLimit.from_dict(_rate_limit)

        token_info = cls(
            id=id,
            development=development,
            permissions=permissions,
            quota=quota,
            rate_limit=rate_limit,
        )

        token_info.additional_properties = d
        return token_info

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
