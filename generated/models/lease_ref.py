from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="LeaseRef")


@_attrs_define
class LeaseRef:
    """
    Attributes:
        lease_id (str):
    """

    lease_id: str

    def to_dict(self) -> dict[str, Any]:
        lease_id = self.lease_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "lease_id": lease_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        lease_id = d.pop("lease_id")

        lease_ref = cls(
            lease_id=lease_id,
        )

        return lease_ref
