from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.delivered_entry import DeliveredEntry


T = TypeVar("T", bound="DeliveredEntryList")


@_attrs_define
class DeliveredEntryList:
    """
    Attributes:
        stream (str):
        group (str):
        entries (list[DeliveredEntry]):
    """

    stream: str
    group: str
    entries: list[DeliveredEntry]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        stream = self.stream

        group = self.group

        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "stream": stream,
                "group": group,
                "entries": entries,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivered_entry import DeliveredEntry  # noqa: PLC0415

        d = dict(src_dict)
        stream = d.pop("stream")

        group = d.pop("group")

        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = DeliveredEntry.from_dict(entries_item_data)

            entries.append(entries_item)

        delivered_entry_list = cls(
            stream=stream,
            group=group,
            entries=entries,
        )

        delivered_entry_list.additional_properties = d
        return delivered_entry_list

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
