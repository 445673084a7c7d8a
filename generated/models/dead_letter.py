from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="DeadLetter")


@_attrs_define
class DeadLetter:
    """
    Attributes:
        message_id (str):
        url (str):
        attempts (int):
        failed_at (datetime.datetime):
        last_error (str | Unset):
        last_status_code (int | Unset):
    """

    message_id: str
    url: str
    attempts: int
    failed_at: datetime.datetime
    last_error: str | Unset = UNSET
    last_status_code: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message_id = self.message_id

        url = self.url

        attempts = self.attempts

        failed_at = self.failed_at.isoformat()

        last_error = self.last_error

        last_status_code = self.last_status_code

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message_id": message_id,
                "url": url,
                "attempts": attempts,
                "failed_at": failed_at,
            }
        )
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if last_status_code is not UNSET:
            field_dict["last_status_code"] = last_status_code

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        message_id = d.pop("message_id")

        url = d.pop("url")

        attempts = d.pop("attempts")

        failed_at = datetime.datetime.fromisoformat(d.pop("failed_at"))

        last_error = d.pop("last_error", UNSET)

        last_status_code = d.pop("last_status_code", UNSET)

        dead_letter = cls(
            message_id=message_id,
            url=url,
            attempts=attempts,
            failed_at=failed_at,
            last_error=last_error,
            last_status_code=last_status_code,
        )

        dead_letter.additional_properties = d
        return dead_letter

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
