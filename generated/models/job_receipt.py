from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="JobReceipt")


@_attrs_define
class JobReceipt:
    """
    Attributes:
        job_id (str):
        queue (str):
        topic (str):
        deduplicated (bool): `true` when an earlier job had the same deduplication_id; job_id is that job's.
    """

    job_id: str
    queue: str
    topic: str
    deduplicated: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        queue = self.queue

        topic = self.topic

        deduplicated = self.deduplicated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "queue": queue,
                "topic": topic,
                "deduplicated": deduplicated,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("job_id")

        queue = d.pop("queue")

        topic = d.pop("topic")

        deduplicated = d.pop("deduplicated")

        job_receipt = cls(
            job_id=job_id,
            queue=queue,
            topic=topic,
            deduplicated=deduplicated,
        )

        job_receipt.additional_properties = d
        return job_receipt

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
