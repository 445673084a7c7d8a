from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.dead_letter_result import DeadLetterResult


T = TypeVar("T", bound="DeadLetterBulkResult")


@_attrs_define
class DeadLetterBulkResult:
    """
    Attributes:
        acted (int): How many dead letters this request retried or deleted.
        message_ids (list[str]): Their messages, oldest dead letter first (with `ids`, in the order given).
        next_cursor (None | str): The `cursor` to send next, or null when no dead letter is left to look at.
        results (list[DeadLetterResult] | Unset): With `ids`, what became of each id, in the order given.
    """

    acted: int
    message_ids: list[str]
    next_cursor: None | str
    results: list[DeadLetterResult] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        acted = self.acted

        message_ids = self.message_ids

        next_cursor: None | str
        next_cursor = self.next_cursor

        results: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.results, Unset):
            results = []
            for results_item_data in self.results:
                results_item = results_item_data.to_dict()
                results.append(results_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "acted": acted,
                "message_ids": message_ids,
                "next_cursor": next_cursor,
            }
        )
        if results is not UNSET:
            field_dict["results"] = results

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.dead_letter_result import DeadLetterResult  # noqa: PLC0415

        d = dict(src_dict)
        acted = d.pop("acted")

        message_ids = cast(list[str], d.pop("message_ids"))

        def _parse_next_cursor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor"))

        _results = d.pop("results", UNSET)
        results: list[DeadLetterResult] | Unset = UNSET
        if _results is not UNSET:
            results = []
            for results_item_data in _results:
                results_item = DeadLetterResult.from_dict(results_item_data)

                results.append(results_item)

        dead_letter_bulk_result = cls(
            acted=acted,
            message_ids=message_ids,
            next_cursor=next_cursor,
            results=results,
        )

        dead_letter_bulk_result.additional_properties = d
        return dead_letter_bulk_result

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
