from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="DeliveredEntry")


@_attrs_define
class DeliveredEntry:
    """
    Attributes:
        id (str): A stream entry id, `<milliseconds>-<sequence>`, each part at most 18446744073709551615
            (2^64 - 1, as in Redis).
        body (Any): The JSON value that was appended.
        delivery_count (int):
        traceparent (str | Unset): The W3C Trace Context `traceparent` the item was published under, when its publish
            sent
            a valid one: a consumer links its processing to that trace.
             Example: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01.
    """

    id: str
    body: Any
    delivery_count: int
    traceparent: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        body = self.body

        delivery_count = self.delivery_count

        traceparent = self.traceparent

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "body": body,
                "delivery_count": delivery_count,
            }
        )
        if traceparent is not UNSET:
            field_dict["traceparent"] = traceparent

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        body = d.pop("body")

        delivery_count = d.pop("delivery_count")

        traceparent = d.pop("traceparent", UNSET)

        delivered_entry = cls(
            id=id,
            body=body,
            delivery_count=delivery_count,
            traceparent=traceparent,
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
