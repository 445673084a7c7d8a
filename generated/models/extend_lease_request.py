from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ExtendLeaseRequest")


@_attrs_define
class ExtendLeaseRequest:
    """
    Attributes:
        lease_id (str):
        lease_seconds (int):
    """

    lease_id: str
    lease_seconds: int

    def to_dict(self) -> dict[str, Any]:
        lease_id = self.lease_id

        lease_seconds = self.lease_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "lease_id": lease_id,
                "lease_seconds": lease_seconds,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        lease_id = d.pop("lease_id")

        lease_seconds = d.pop("lease_seconds")

        extend_lease_request = cls(
            lease_id=lease_id,
            lease_seconds=lease_seconds,
        )

        return extend_lease_request
