from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="GroupInfo")


@_attrs_define
class GroupInfo:
    """
    Attributes:
        group (str):
        consumers (int):
        pending (int):
        last_delivered_id (str): A stream entry id, `<milliseconds>-<sequence>`, each part at most 18446744073709551615
            (2^64 - 1, as in Redis).
        max_deliveries (int | Unset): How many times the group delivers one entry (its first read included) before
            claimEntries
            moves it to the stream `<stream>.dead` instead of handing it out again. Absent: no limit.
            That stream's name must be a stream name too, so a group with `max_deliveries` needs a
            stream name of at most 123 characters (`422 validation_failed` otherwise).
    """

    group: str
    consumers: int
    pending: int
    last_delivered_id: str
    max_deliveries: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        group = self.group

        consumers = self.consumers

        pending = self.pending

        last_delivered_id = self.last_delivered_id

        max_deliveries = self.max_deliveries

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "group": group,
                "consumers": consumers,
                "pending": pending,
                "last_delivered_id": last_delivered_id,
            }
        )
        if max_deliveries is not UNSET:
            field_dict["max_deliveries"] = max_deliveries

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        group = d.pop("group")

        consumers = d.pop("consumers")

        pending = d.pop("pending")

        last_delivered_id = d.pop("last_delivered_id")

        max_deliveries = d.pop("max_deliveries", UNSET)

        group_info = cls(
            group=group,
            consumers=consumers,
            pending=pending,
            last_delivered_id=last_delivered_id,
            max_deliveries=max_deliveries,
        )

        group_info.additional_properties = d
        return group_info

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
