from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateGroupRequest")


@_attrs_define
class CreateGroupRequest:
    """
    Attributes:
        group (str): A consumer group or consumer name.
        start_id (str | Unset): Deliver entries after this id (or just its milliseconds part; see EntryId); `$` is the
            current end, `0` the very start.
             Default: '$'.
        mkstream (bool | Unset): Create the stream, empty, if it does not exist. Default: False.
        max_deliveries (int | Unset): How many times the group delivers one entry (its first read included) before
            claimEntries
            moves it to the stream `<stream>.dead` instead of handing it out again. Absent: no limit.
            That stream's name must be a stream name too, so a group with `max_deliveries` needs a
            stream name of at most 123 characters (`422 validation_failed` otherwise).
    """

    group: str
    start_id: str | Unset = "$"
    mkstream: bool | Unset = False
    max_deliveries: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        group = self.group

        start_id = self.start_id

        mkstream = self.mkstream

        max_deliveries = self.max_deliveries

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "group": group,
            }
        )
        if start_id is not UNSET:
            field_dict["start_id"] = start_id
        if mkstream is not UNSET:
            field_dict["mkstream"] = mkstream
        if max_deliveries is not UNSET:
            field_dict["max_deliveries"] = max_deliveries

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        group = d.pop("group")

        start_id = d.pop("start_id", UNSET)

        mkstream = d.pop("mkstream", UNSET)

        max_deliveries = d.pop("max_deliveries", UNSET)

        create_group_request = cls(
            group=group,
            start_id=start_id,
            mkstream=mkstream,
            max_deliveries=max_deliveries,
        )

        return create_group_request
