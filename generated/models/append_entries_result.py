from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AppendEntriesResult")


@_attrs_define
class AppendEntriesResult:
    """
    Attributes:
        stream (str):
        ids (list[str]): One id per entry, in request order.
        length (int):
        trimmed (int):
    """

    stream: str
    ids: list[str]
    length: int
    trimmed: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        stream = self.stream

        ids = self.ids

        length = self.length

        trimmed = self.trimmed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "stream": stream,
                "ids": ids,
                "length": length,
                "trimmed": trimmed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        stream = d.pop("stream")

        ids = cast(list[str], d.pop("ids"))

        length = d.pop("length")

        trimmed = d.pop("trimmed")

        append_entries_result = cls(
            stream=stream,
            ids=ids,
            length=length,
            trimmed=trimmed,
        )

        append_entries_result.additional_properties = d
        return append_entries_result

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
