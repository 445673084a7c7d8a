from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TrimRequest")


@_attrs_define
class TrimRequest:
    """Give exactly one of `maxlen` and `minid`.

    Attributes:
        maxlen (int | Unset):
        minid (str | Unset): A stream entry id, or just its milliseconds part (see EntryId).
        approximate (bool | Unset):  Default: True.
    """

    maxlen: int | Unset = UNSET
    minid: str | Unset = UNSET
    approximate: bool | Unset = True

    def to_dict(self) -> dict[str, Any]:
        maxlen = self.maxlen

        minid = self.minid

        approximate = self.approximate

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if maxlen is not UNSET:
            field_dict["maxlen"] = maxlen
        if minid is not UNSET:
            field_dict["minid"] = minid
        if approximate is not UNSET:
            field_dict["approximate"] = approximate

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        maxlen = d.pop("maxlen", UNSET)

        minid = d.pop("minid", UNSET)

        approximate = d.pop("approximate", UNSET)

        trim_request = cls(
            maxlen=maxlen,
            minid=minid,
            approximate=approximate,
        )

        return trim_request
