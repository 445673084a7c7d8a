from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.queue_stats import QueueStats


T = TypeVar("T", bound="Queue")


@_attrs_define
class Queue:
    """
    Attributes:
        name (str):
        max_attempts (int):
        lease_seconds (int):
        retention_seconds (int):
        deduplication_window_seconds (int):
        created_at (datetime.datetime):
        stats (QueueStats):
    """

    name: str
    max_attempts: int
    lease_seconds: int
    retention_seconds: int
    deduplication_window_seconds: int
    created_at: datetime.datetime
    stats: QueueStats
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        max_attempts = self.max_attempts

        lease_seconds = self.lease_seconds

        retention_seconds = self.retention_seconds

        deduplication_window_seconds = self.deduplication_window_seconds

        created_at = self.created_at.isoformat()

        stats = self.stats.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "max_attempts": max_attempts,
                "lease_seconds": lease_seconds,
                "retention_seconds": retention_seconds,
                "deduplication_window_seconds": deduplication_window_seconds,
                "created_at": created_at,
                "stats": stats,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_stats import QueueStats  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        max_attempts = d.pop("max_attempts")

        lease_seconds = d.pop("lease_seconds")

        retention_seconds = d.pop("retention_seconds")

        deduplication_window_seconds = d.pop("deduplication_window_seconds")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        stats = QueueStats.from_dict(d.pop("stats"))

        queue = cls(
            name=name,
            max_attempts=max_attempts,
            lease_seconds=lease_seconds,
            retention_seconds=retention_seconds,
            deduplication_window_seconds=deduplication_window_seconds,
            created_at=created_at,
            stats=stats,
        )

        queue.additional_properties = d
        return queue

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
