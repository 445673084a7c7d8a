from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="QueueSettings")


@_attrs_define
class QueueSettings:
    """
    Attributes:
        max_attempts (int | Unset): Leases a job gets before it moves to the dead letters. Default: 5.
        lease_seconds (int | Unset): Default lease length. Default: 30.
        retention_seconds (int | Unset): How long finished and dead jobs are kept. Default: 604800.
        deduplication_window_seconds (int | Unset): How long a deduplication_id is remembered. Default: 300.
    """

    max_attempts: int | Unset = 5
    lease_seconds: int | Unset = 30
    retention_seconds: int | Unset = 604800
    deduplication_window_seconds: int | Unset = 300

    def to_dict(self) -> dict[str, Any]:
        max_attempts = self.max_attempts

        lease_seconds = self.lease_seconds

        retention_seconds = self.retention_seconds

        deduplication_window_seconds = self.deduplication_window_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_attempts is not UNSET:
            field_dict["max_attempts"] = max_attempts
        if lease_seconds is not UNSET:
            field_dict["lease_seconds"] = lease_seconds
        if retention_seconds is not UNSET:
            field_dict["retention_seconds"] = retention_seconds
        if deduplication_window_seconds is not UNSET:
            field_dict["deduplication_window_seconds"] = deduplication_window_seconds

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        max_attempts = d.pop("max_attempts", UNSET)

        lease_seconds = d.pop("lease_seconds", UNSET)

        retention_seconds = d.pop("retention_seconds", UNSET)

        deduplication_window_seconds = d.pop("deduplication_window_seconds", UNSET)

        queue_settings = cls(
            max_attempts=max_attempts,
            lease_seconds=lease_seconds,
            retention_seconds=retention_seconds,
            deduplication_window_seconds=deduplication_window_seconds,
        )

        return queue_settings
