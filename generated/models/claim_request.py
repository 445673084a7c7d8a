from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ClaimRequest")


@_attrs_define
class ClaimRequest:
    """
    Attributes:
        consumer (str): A consumer group or consumer name.
        min_idle_ms (int):
        count (int | Unset):  Default: 100.
        start_id (str | Unset): A stream entry id, or just its milliseconds part (see EntryId).
    """

    consumer: str
    min_idle_ms: int
    count: int | Unset = 100
    start_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        consumer = self.consumer

        min_idle_ms = self.min_idle_ms

        count = self.count

        start_id = self.start_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "consumer": consumer,
                "min_idle_ms": min_idle_ms,
            }
        )
        if count is not UNSET:
            field_dict["count"] = count
        if start_id is not UNSET:
            field_dict["start_id"] = start_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        consumer = d.pop("consumer")

        min_idle_ms = d.pop("min_idle_ms")

        count = d.pop("count", UNSET)

        start_id = d.pop("start_id", UNSET)

        claim_request = cls(
            consumer=consumer,
            min_idle_ms=min_idle_ms,
            count=count,
            start_id=start_id,
        )

        return claim_request
