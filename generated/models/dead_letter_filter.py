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
    validation_failed`.

        Attributes:
            url (str | Unset): Only dead letters of messages to this URL.
            url_group (str | Unset): A stream, queue or URL group name.
            from_ (datetime.datetime | Unset): Only dead letters filed at or after this time.
            to (datetime.datetime | Unset): Only dead letters filed before this time.
    """

    url: str | Unset = UNSET
    url_group: str | Unset = UNSET
    from_: datetime.datetime | Unset = UNSET
    to: datetime.datetime | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        url_group = self.url_group

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
            from_=from_,
            to=to,
        )

        return dead_letter_filter
