from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.url_group import UrlGroup


T = TypeVar("T", bound="UrlGroupList")


@_attrs_define
class UrlGroupList:
    """
    Attributes:
        url_groups (list[UrlGroup]):
    """

    url_groups: list[UrlGroup]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        url_groups = []
        for url_groups_item_data in self.url_groups:
            url_groups_item = url_groups_item_data.to_dict()
            url_groups.append(url_groups_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "url_groups": url_groups,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.url_group import UrlGroup  # noqa: PLC0415

        d = dict(src_dict)
        url_groups = []
        _url_groups = d.pop("url_groups")
        for url_groups_item_data in _url_groups:
            url_groups_item = UrlGroup.from_dict(url_groups_item_data)

            url_groups.append(url_groups_item)

        url_group_list = cls(
            url_groups=url_groups,
        )

        url_group_list.additional_properties = d
        return url_group_list

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
