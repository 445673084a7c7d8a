from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LeasedJob")


@_attrs_define
class LeasedJob:
    """
    Attributes:
        job_id (str):
        queue (str):
        topic (str):
        payload (Any): The JSON value that was published.
        attempt (int):
        lease_id (str):
        lease_expires_at (datetime.datetime):
        published_at (datetime.datetime):
        traceparent (str | Unset): The W3C Trace Context `traceparent` the item was published under, when its publish
            sent
            a valid one: a consumer links its processing to that trace.
             Example: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01.
    """

    job_id: str
    queue: str
    topic: str
    payload: Any
    attempt: int
    lease_id: str
    lease_expires_at: datetime.datetime
    published_at: datetime.datetime
    traceparent: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        queue = self.queue

        topic = self.topic

        payload = self.payload

        attempt = self.attempt

        lease_id = self.lease_id

        lease_expires_at = self.lease_expires_at.isoformat()

        published_at = self.published_at.isoformat()

        traceparent = self.traceparent

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "queue": queue,
                "topic": topic,
                "payload": payload,
                "attempt": attempt,
                "lease_id": lease_id,
                "lease_expires_at": lease_expires_at,
                "published_at": published_at,
            }
        )
        if traceparent is not UNSET:
            field_dict["traceparent"] = traceparent

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("job_id")

        queue = d.pop("queue")

        topic = d.pop("topic")

        payload = d.pop("payload")

        attempt = d.pop("attempt")

        lease_id = d.pop("lease_id")

        lease_expires_at = datetime.datetime.fromisoformat(d.pop("lease_expires_at"))

        published_at = datetime.datetime.fromisoformat(d.pop("published_at"))

        traceparent = d.pop("traceparent", UNSET)

        leased_job = cls(
            job_id=job_id,
            queue=queue,
            topic=topic,
            payload=payload,
            attempt=attempt,
            lease_id=lease_id,
            lease_expires_at=lease_expires_at,
            published_at=published_at,
            traceparent=traceparent,
        )

        leased_job.additional_properties = d
        return leased_job

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
