from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.job_release_result_code import (
    JobReleaseResultCode,
    check_job_release_result_code,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="JobReleaseResult")


@_attrs_define
class JobReleaseResult:
    """
    Attributes:
        job_id (str):
        released (bool): `true` when this request released the job.
        code (JobReleaseResultCode | Unset): Why the job was not released; absent when it was.
    """

    job_id: str
    released: bool
    code: JobReleaseResultCode | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        released = self.released

        code: str | Unset = UNSET
        if not isinstance(self.code, Unset):
            code = self.code

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "released": released,
            }
        )
        if code is not UNSET:
            field_dict["code"] = code

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("job_id")

        released = d.pop("released")

        _code = d.pop("code", UNSET)
        code: JobReleaseResultCode | Unset
        if isinstance(_code, Unset):
            code = UNSET
        else:
            code = check_job_release_result_code(_code)

        job_release_result = cls(
            job_id=job_id,
            released=released,
            code=code,
        )

        job_release_result.additional_properties = d
        return job_release_result

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
