from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PublishJobRequest")


@_attrs_define
class PublishJobRequest:
    """
    Attributes:
        topic (str): A job topic. Dots separate levels. Wildcards are not allowed when publishing, and topics
            starting with `spool.` are reserved for the system (`reserved_topic`).
        payload (Any): Any JSON value.
        delay (int | Unset): Seconds to hold the job back. Default: 0.
        deduplication_id (str | Unset): A second job with this id within the queue's window is not created.
    """

    topic: str
    payload: Any
    delay: int | Unset = 0
    deduplication_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        topic = self.topic

        payload = self.payload

        delay = self.delay

        deduplication_id = self.deduplication_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "topic": topic,
                "payload": payload,
            }
        )
        if delay is not UNSET:
            field_dict["delay"] = delay
        if deduplication_id is not UNSET:
            field_dict["deduplication_id"] = deduplication_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        topic = d.pop("topic")

        payload = d.pop("payload")

        delay = d.pop("delay", UNSET)

        deduplication_id = d.pop("deduplication_id", UNSET)

        publish_job_request = cls(
            topic=topic,
            payload=payload,
            delay=delay,
            deduplication_id=deduplication_id,
        )

        return publish_job_request
