from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.dead_letter_filter import DeadLetterFilter


T = TypeVar("T", bound="DeleteDeadLettersRequest")


@_attrs_define
class DeleteDeadLettersRequest:
    """Give exactly one of `ids`, `filter` and `all` (`all` must be true); `cursor` and `limit` go with `filter` or `all`.

    Attributes:
        ids (list[str] | Unset): The dead letters to act on, by their messages' ids; an id given twice counts once.
        filter_ (DeadLetterFilter | Unset): Which dead letters to act on; every member given must match, and a member
            this version does not know is `422 validation_failed`. `url`, `url_group`, `label`, `schedule` and
            `flow_control_key` match the dead letter's message as the same query parameters of `listMessages` do: published
            to that URL or URL group, with that label, by that schedule, under that flow control key.
        all_ (bool | Unset):
        limit (int | Unset): Most dead letters to look at in this request (with `filter` or `all`).
        cursor (str | Unset): A position in a listing, opaque to clients.
    """

    ids: list[str] | Unset = UNSET
    filter_: DeadLetterFilter | Unset = UNSET
    all_: bool | Unset = UNSET
    limit: int | Unset = UNSET
    cursor: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        ids: list[str] | Unset = UNSET
        if not isinstance(self.ids, Unset):
            ids = self.ids

        filter_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.filter_, Unset):
            filter_ = self.filter_.to_dict()

        all_ = self.all_

        limit = self.limit

        cursor = self.cursor

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if ids is not UNSET:
            field_dict["ids"] = ids
        if filter_ is not UNSET:
            field_dict["filter"] = filter_
        if all_ is not UNSET:
            field_dict["all"] = all_
        if limit is not UNSET:
            field_dict["limit"] = limit
        if cursor is not UNSET:
            field_dict["cursor"] = cursor

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.dead_letter_filter import DeadLetterFilter  # noqa: PLC0415

        d = dict(src_dict)
        ids = cast(list[str], d.pop("ids", UNSET))

        _filter_ = d.pop("filter", UNSET)
        filter_: DeadLetterFilter | Unset
        if isinstance(_filter_, Unset):
            filter_ = UNSET
        else:
            filter_ = DeadLetterFilter.from_dict(_filter_)

        all_ = d.pop("all", UNSET)

        limit = d.pop("limit", UNSET)

        cursor = d.pop("cursor", UNSET)

        delete_dead_letters_request = cls(
            ids=ids,
            filter_=filter_,
            all_=all_,
            limit=limit,
            cursor=cursor,
        )

        return delete_dead_letters_request
