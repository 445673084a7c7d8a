from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.schedule_kind import ScheduleKind, check_schedule_kind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.append_entry_request import AppendEntryRequest
    from ..models.publish_job_request import PublishJobRequest
    from ..models.publish_message_request import PublishMessageRequest


T = TypeVar("T", bound="ScheduleDestination")


@_attrs_define
class ScheduleDestination:
    """What each tick publishes, named by `kind` with the members that go with it and no others:
    for `message` the `message` (a publishMessage body), for `job` the `queue` and the `job` (a
    publishJob body), for `stream` the `stream` and the `entry` (an appendEntry body). Members
    of another kind are `422` at `kind`.

        Attributes:
            kind (ScheduleKind): What a schedule publishes each tick.
            message (PublishMessageRequest | Unset): Give exactly one of `url` and `url_group`, and at most one of `delay`
                and `not_before`.
            queue (str | Unset): A stream, queue or URL group name.
            job (PublishJobRequest | Unset):
            stream (str | Unset): A stream, queue or URL group name.
            entry (AppendEntryRequest | Unset): Give at most one of `maxlen` and `minid`.
    """

    kind: ScheduleKind
    message: PublishMessageRequest | Unset = UNSET
    queue: str | Unset = UNSET
    job: PublishJobRequest | Unset = UNSET
    stream: str | Unset = UNSET
    entry: AppendEntryRequest | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind: str = self.kind

        message: dict[str, Any] | Unset = UNSET
        if not isinstance(self.message, Unset):
            message = self.message.to_dict()

        queue = self.queue

        job: dict[str, Any] | Unset = UNSET
        if not isinstance(self.job, Unset):
            job = self.job.to_dict()

        stream = self.stream

        entry: dict[str, Any] | Unset = UNSET
        if not isinstance(self.entry, Unset):
            entry = self.entry.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if message is not UNSET:
            field_dict["message"] = message
        if queue is not UNSET:
            field_dict["queue"] = queue
        if job is not UNSET:
            field_dict["job"] = job
        if stream is not UNSET:
            field_dict["stream"] = stream
        if entry is not UNSET:
            field_dict["entry"] = entry

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.append_entry_request import AppendEntryRequest  # noqa: PLC0415
        from ..models.publish_job_request import PublishJobRequest  # noqa: PLC0415
        from ..models.publish_message_request import PublishMessageRequest  # noqa: PLC0415

        d = dict(src_dict)
        kind = check_schedule_kind(d.pop("kind"))

        _message = d.pop("message", UNSET)
        message: PublishMessageRequest | Unset
        if isinstance(_message, Unset):
            message = UNSET
        else:
            message = PublishMessageRequest.from_dict(_message)

        queue = d.pop("queue", UNSET)

        _job = d.pop("job", UNSET)
        job: PublishJobRequest | Unset
        if isinstance(_job, Unset):
            job = UNSET
        else:
            job = PublishJobRequest.from_dict(_job)

        stream = d.pop("stream", UNSET)

        _entry = d.pop("entry", UNSET)
        entry: AppendEntryRequest | Unset
        if isinstance(_entry, Unset):
            entry = UNSET
        else:
            entry = AppendEntryRequest.from_dict(_entry)

        schedule_destination = cls(
            kind=kind,
            message=message,
            queue=queue,
            job=job,
            stream=stream,
            entry=entry,
        )

        return schedule_destination
