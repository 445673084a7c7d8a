from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.delivered_entry import DeliveredEntry


T = TypeVar("T", bound="ClaimResult")


@_attrs_define
class ClaimResult:
    """
    Attributes:
        stream (str):
        group (str):
        next_start_id (str): A stream entry id, `<milliseconds>-<sequence>`, each part at most 18446744073709551615
            (2^64 - 1, as in Redis).
        entries (list[DeliveredEntry]):
        deleted_ids (list[str]): Pending ids whose entries were trimmed away; they are no longer pending.
        dead_lettered_ids (list[str] | Unset): Pending ids that used up the group's `max_deliveries`; they are no longer
            pending and
            their entries were appended to `<stream>.dead`. Always sent by this version; a service
            from before max_deliveries leaves it out.
    """

    stream: str
    group: str
    next_start_id: str
    entries: list[DeliveredEntry]
    deleted_ids: list[str]
    dead_lettered_ids: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        stream = self.stream

        group = self.group

        next_start_id = self.next_start_id

        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        deleted_ids = self.deleted_ids

        dead_lettered_ids: list[str] | Unset = UNSET
        if not isinstance(self.dead_lettered_ids, Unset):
            dead_lettered_ids = self.dead_lettered_ids

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "stream": stream,
                "group": group,
                "next_start_id": next_start_id,
                "entries": entries,
                "deleted_ids": deleted_ids,
            }
        )
        if dead_lettered_ids is not UNSET:
            field_dict["dead_lettered_ids"] = dead_lettered_ids

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.delivered_entry import DeliveredEntry  # noqa: PLC0415

        d = dict(src_dict)
        stream = d.pop("stream")

        group = d.pop("group")

        next_start_id = d.pop("next_start_id")

        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = DeliveredEntry.from_dict(entries_item_data)

            entries.append(entries_item)

        deleted_ids = cast(list[str], d.pop("deleted_ids"))

        dead_lettered_ids = cast(list[str], d.pop("dead_lettered_ids", UNSET))

        claim_result = cls(
            stream=stream,
            group=group,
            next_start_id=next_start_id,
            entries=entries,
            deleted_ids=deleted_ids,
            dead_lettered_ids=dead_lettered_ids,
        )

        claim_result.additional_properties = d
        return claim_result

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
