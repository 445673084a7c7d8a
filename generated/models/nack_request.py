from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="NackRequest")


@_attrs_define
class NackRequest:
    """
    Attributes:
        lease_id (str):
        retry_delay (int | Unset): Seconds before the job is ready again. Default: 0.
        error (str | Unset): Why the attempt failed; kept as the job's last_error.
    """

    lease_id: str
    retry_delay: int | Unset = 0
    error: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        lease_id = self.lease_id

        retry_delay = self.retry_delay

        error = self.error

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "lease_id": lease_id,
            }
        )
        if retry_delay is not UNSET:
            field_dict["retry_delay"] = retry_delay
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        lease_id = d.pop("lease_id")

        retry_delay = d.pop("retry_delay", UNSET)

        error = d.pop("error", UNSET)

        nack_request = cls(
            lease_id=lease_id,
            retry_delay=retry_delay,
            error=error,
        )

        return nack_request
