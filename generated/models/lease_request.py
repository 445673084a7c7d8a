from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="LeaseRequest")


@_attrs_define
class LeaseRequest:
    """
    Attributes:
        consumer (str | Unset): A consumer group or consumer name.
        topics (list[str] | Unset): Only jobs of these topics; all topics when absent.
        max_jobs (int | Unset):  Default: 1.
        lease_seconds (int | Unset): Defaults to the queue's lease_seconds.
        wait_ms (int | Unset):  Default: 0.
    """

    consumer: str | Unset = UNSET
    topics: list[str] | Unset = UNSET
    max_jobs: int | Unset = 1
    lease_seconds: int | Unset = UNSET
    wait_ms: int | Unset = 0

    def to_dict(self) -> dict[str, Any]:
        consumer = self.consumer

        topics: list[str] | Unset = UNSET
        if not isinstance(self.topics, Unset):
            topics = self.topics

        max_jobs = self.max_jobs

        lease_seconds = self.lease_seconds

        wait_ms = self.wait_ms

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if consumer is not UNSET:
            field_dict["consumer"] = consumer
        if topics is not UNSET:
            field_dict["topics"] = topics
        if max_jobs is not UNSET:
            field_dict["max_jobs"] = max_jobs
        if lease_seconds is not UNSET:
            field_dict["lease_seconds"] = lease_seconds
        if wait_ms is not UNSET:
            field_dict["wait_ms"] = wait_ms

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        consumer = d.pop("consumer", UNSET)

        topics = cast(list[str], d.pop("topics", UNSET))

        max_jobs = d.pop("max_jobs", UNSET)

        lease_seconds = d.pop("lease_seconds", UNSET)

        wait_ms = d.pop("wait_ms", UNSET)

        lease_request = cls(
            consumer=consumer,
            topics=topics,
            max_jobs=max_jobs,
            lease_seconds=lease_seconds,
            wait_ms=wait_ms,
        )

        return lease_request
