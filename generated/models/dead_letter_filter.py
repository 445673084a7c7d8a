from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="DeadLetterFilter")


@_attrs_define
class DeadLetterFilter:
    """Which dead letters to act on; every member given must match, and a member this version does not know is `422
    validation_failed`. `url`, `url_group`, `label`, `schedule` and `flow_control_key` match the dead letter's message
    as the same query parameters of `listMessages` do: published to that URL or URL group, with that label, by that
    schedule, under that flow control key.

        Attributes:
            url (str | Unset): Only dead letters of messages to this URL.
            url_group (str | Unset): A stream, queue or URL group name.
            label (str | Unset): A message label.
            schedule (str | Unset): A stream, queue or URL group name.
            flow_control_key (str | Unset): A flow control key, by the rules of URL group names.
            from_ (datetime.datetime | Unset): Only dead letters filed at or after this time.
            to (datetime.datetime | Unset): Only dead letters filed before this time.
    """

    url: str | Unset = UNSET
    url_group: str | Unset = UNSET
    label: str | Unset = UNSET
    schedule: str | Unset = UNSET
    flow_control_key: str | Unset = UNSET
    from_: datetime.datetime | Unset = UNSET
    to: datetime.datetime | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        url_group = self.url_group

        label = self.label

        schedule = self.schedule

        flow_control_key = self.flow_control_key

        from_: str | Unset = UNSET
        if not isinstance(self.from_, Unset):
            from_ = self.from_.isoformat()

        to: str | Unset = UNSET
        if not isinstance(self.to, Unset):
            to = self.to.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if url is not UNSET:
            field_dict["url"] = url
        if url_group is not UNSET:
            field_dict["url_group"] = url_group
        if label is not UNSET:
            field_dict["label"] = label
        if schedule is not UNSET:
            field_dict["schedule"] = schedule
        if flow_control_key is not UNSET:
            field_dict["flow_control_key"] = flow_control_key
        if from_ is not UNSET:
            field_dict["from"] = from_
        if to is not UNSET:
            field_dict["to"] = to

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        url = d.pop("url", UNSET)

        url_group = d.pop("url_group", UNSET)

        label = d.pop("label", UNSET)

        schedule = d.pop("schedule", UNSET)

        flow_control_key = d.pop("flow_control_key", UNSET)

        _from_ = d.pop("from", UNSET)
        from_: datetime.datetime | Unset
        if isinstance(_from_, Unset):
            from_ = UNSET
        else:
            from_ = datetime.datetime.fromisoformat(_from_)

        _to = d.pop("to", UNSET)
        to: datetime.datetime | Unset
        if isinstance(_to, Unset):
            to = UNSET
        else:
            to = datetime.datetime.fromisoformat(_to)

        dead_letter_filter = cls(
            url=url,
            url_group=url_group,
            label=label,
            schedule=schedule,
            flow_control_key=flow_control_key,
            from_=from_,
            to=to,
        )

        return dead_letter_filter
