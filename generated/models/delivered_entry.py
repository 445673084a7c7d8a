from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DeliveredEntry")


@_attrs_define
class DeliveredEntry:
    """
    Attributes:
        id (str): A stream entry id, `<milliseconds>-<sequence>`, each part at most 18446744073709551615
            (2^64 - 1, as in Redis).
        body (Any): The JSON value that was appended.
        delivery_count (int):
    """

    id: str
    body: Any
    delivery_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        body = self.body

        delivery_count = self.delivery_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "body": body,
                "delivery_count": delivery_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        body = d.pop("body")

        delivery_count = d.pop("delivery_count")

        delivered_entry = cls(
            id=id,
            body=body,
            delivery_count=delivery_count,
        )

        delivered_entry.additional_properties = d
        return delivered_entry

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
