from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="StreamSummary")


@_attrs_define
class StreamSummary:
    """
    Attributes:
        stream (str):
        length (int):
        group_count (int):
        first_id (str | Unset): A stream entry id, `<milliseconds>-<sequence>`, each part at most 18446744073709551615
            (2^64 - 1, as in Redis).
        last_id (str | Unset): A stream entry id, `<milliseconds>-<sequence>`, each part at most 18446744073709551615
            (2^64 - 1, as in Redis).
    """

    stream: str
    length: int
    group_count: int
    first_id: str | Unset = UNSET
    last_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        stream = self.stream

        length = self.length

        group_count = self.group_count

        first_id = self.first_id

        last_id = self.last_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "stream": stream,
                "length": length,
                "group_count": group_count,
            }
        )
        if first_id is not UNSET:
            field_dict["first_id"] = first_id
        if last_id is not UNSET:
            field_dict["last_id"] = last_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        stream = d.pop("stream")

        length = d.pop("length")

        group_count = d.pop("group_count")

        first_id = d.pop("first_id", UNSET)

        last_id = d.pop("last_id", UNSET)

        stream_summary = cls(
            stream=stream,
            length=length,
            group_count=group_count,
            first_id=first_id,
            last_id=last_id,
        )

        stream_summary.additional_properties = d
        return stream_summary

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
