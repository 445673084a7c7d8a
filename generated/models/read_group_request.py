from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ReadGroupRequest")


@_attrs_define
class ReadGroupRequest:
    """
    Attributes:
        consumer (str): A consumer group or consumer name.
        count (int | Unset):  Default: 10.
        wait_ms (int | Unset):  Default: 0.
    """

    consumer: str
    count: int | Unset = 10
    wait_ms: int | Unset = 0

    def to_dict(self) -> dict[str, Any]:
        consumer = self.consumer

        count = self.count

        wait_ms = self.wait_ms

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "consumer": consumer,
            }
        )
        if count is not UNSET:
            field_dict["count"] = count
        if wait_ms is not UNSET:
            field_dict["wait_ms"] = wait_ms

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        consumer = d.pop("consumer")

        count = d.pop("count", UNSET)

        wait_ms = d.pop("wait_ms", UNSET)

        read_group_request = cls(
            consumer=consumer,
            count=count,
            wait_ms=wait_ms,
        )

        return read_group_request
