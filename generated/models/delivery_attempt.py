from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="DeliveryAttempt")


@_attrs_define
class DeliveryAttempt:
    """
    Attributes:
        attempt (int):
        started_at (datetime.datetime):
        duration_ms (int):
        status_code (int | Unset):
        response_excerpt (str | Unset): The start of the response body (at most 2048 characters).
        error (str | Unset):
    """

    attempt: int
    started_at: datetime.datetime
    duration_ms: int
    status_code: int | Unset = UNSET
    response_excerpt: str | Unset = UNSET
    error: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        started_at = self.started_at.isoformat()

        duration_ms = self.duration_ms

        status_code = self.status_code

        response_excerpt = self.response_excerpt

        error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt": attempt,
                "started_at": started_at,
                "duration_ms": duration_ms,
            }
        )
        if status_code is not UNSET:
            field_dict["status_code"] = status_code
        if response_excerpt is not UNSET:
            field_dict["response_excerpt"] = response_excerpt
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        duration_ms = d.pop("duration_ms")

        status_code = d.pop("status_code", UNSET)

        response_excerpt = d.pop("response_excerpt", UNSET)

        error = d.pop("error", UNSET)

        delivery_attempt = cls(
            attempt=attempt,
            started_at=started_at,
            duration_ms=duration_ms,
            status_code=status_code,
            response_excerpt=response_excerpt,
            error=error,
        )

        delivery_attempt.additional_properties = d
        return delivery_attempt

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
