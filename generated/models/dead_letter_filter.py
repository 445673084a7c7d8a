from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="DeadLetterFilter")


@_attrs_define
class DeadLetterFilter:
    """Which dead letters to act on; every member given must match.

    Attributes:
        url (str | Unset):
        url_group (str | Unset): A stream, queue or URL group name.
        label (str | Unset): A label of a message, to find it and its events by. Names follow the rules of topics,
            without wildcards.
        schedule (str | Unset): A stream, queue or URL group name.
        since (datetime.datetime | Unset): Only dead letters that failed at or after this time.
        until (datetime.datetime | Unset): Only dead letters that failed before this time.
    """

    url: str | Unset = UNSET
    url_group: str | Unset = UNSET
    label: str | Unset = UNSET
    schedule: str | Unset = UNSET
    since: datetime.datetime | Unset = UNSET
    until: datetime.datetime | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        url_group = self.url_group

        label = self.label

        schedule = self.schedule

        since: str | Unset = UNSET
        if not isinstance(self.since, Unset):
            since = self.since.isoformat()

        until: str | Unset = UNSET
        if not isinstance(self.until, Unset):
            until = self.until.isoformat()

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
        if since is not UNSET:
            field_dict["since"] = since
        if until is not UNSET:
            field_dict["until"] = until

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        url = d.pop("url", UNSET)

        url_group = d.pop("url_group", UNSET)

        label = d.pop("label", UNSET)

        schedule = d.pop("schedule", UNSET)

        _since = d.pop("since", UNSET)
        since: datetime.datetime | Unset
        if isinstance(_since, Unset):
            since = UNSET
        else:
            since = datetime.datetime.fromisoformat(_since)

        _until = d.pop("until", UNSET)
        until: datetime.datetime | Unset
        if isinstance(_until, Unset):
            until = UNSET
        else:
            until = datetime.datetime.fromisoformat(_until)

        dead_letter_filter = cls(
            url=url,
            url_group=url_group,
            label=label,
            schedule=schedule,
            since=since,
            until=until,
        )

        return dead_letter_filter
