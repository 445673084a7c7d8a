from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.dead_letter import DeadLetter


T = TypeVar("T", bound="DeadLetterList")


@_attrs_define
class DeadLetterList:
    """
    Attributes:
        dead_letters (list[DeadLetter]):
    """

    dead_letters: list[DeadLetter]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dead_letters = []
        for dead_letters_item_data in self.dead_letters:
            dead_letters_item = dead_letters_item_data.to_dict()
            dead_letters.append(dead_letters_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dead_letters": dead_letters,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.dead_letter import DeadLetter  # noqa: PLC0415

        d = dict(src_dict)
        dead_letters = []
        _dead_letters = d.pop("dead_letters")
        for dead_letters_item_data in _dead_letters:
            dead_letters_item = DeadLetter.from_dict(dead_letters_item_data)

            dead_letters.append(dead_letters_item)

        dead_letter_list = cls(
            dead_letters=dead_letters,
        )

        dead_letter_list.additional_properties = d
        return dead_letter_list

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
