from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.dead_letter_outcome import DeadLetterOutcome, check_dead_letter_outcome

T = TypeVar("T", bound="DeadLetterResult")


@_attrs_define
class DeadLetterResult:
    """
    Attributes:
        message_id (str):
        outcome (DeadLetterOutcome): What became of a dead letter named by id: `retried` or `deleted`, `not_found` (no
            dead
            letter of that id, or another request took it first) or `permission_denied` (the token
            lacks `admin` on its URL and URL group; it was left alone).
    """

    message_id: str
    outcome: DeadLetterOutcome
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message_id = self.message_id

        outcome: str = self.outcome

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message_id": message_id,
                "outcome": outcome,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        message_id = d.pop("message_id")

        outcome = check_dead_letter_outcome(d.pop("outcome"))

        dead_letter_result = cls(
            message_id=message_id,
            outcome=outcome,
        )

        dead_letter_result.additional_properties = d
        return dead_letter_result

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
