from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.pending_entry import PendingEntry


T = TypeVar("T", bound="PendingList")


@_attrs_define
class PendingList:
    """
    Attributes:
        stream (str):
        group (str):
        pending (list[PendingEntry]):
    """

    stream: str
    group: str
    pending: list[PendingEntry]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        stream = self.stream

        group = self.group

        pending = []
        for pending_item_data in self.pending:
            pending_item = pending_item_data.to_dict()
            pending.append(pending_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "stream": stream,
                "group": group,
                "pending": pending,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pending_entry import PendingEntry  # noqa: PLC0415

        d = dict(src_dict)
        stream = d.pop("stream")

        group = d.pop("group")

        pending = []
        _pending = d.pop("pending")
        for pending_item_data in _pending:
            pending_item = PendingEntry.from_dict(pending_item_data)

            pending.append(pending_item)

        pending_list = cls(
            stream=stream,
            group=group,
            pending=pending,
        )

        pending_list.additional_properties = d
        return pending_list

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
