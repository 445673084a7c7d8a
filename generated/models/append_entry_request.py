from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="AppendEntryRequest")


@_attrs_define
class AppendEntryRequest:
    """Give at most one of `maxlen` and `minid`.

    Attributes:
        body (Any): Any JSON value.
        maxlen (int | Unset): Trim the stream to about (or, with `approximate=false`, exactly) this many entries.
        approximate (bool | Unset): Trim lazily, keeping at least `maxlen` entries (cheaper); `false` keeps exactly
            `maxlen`. Default: True.
        minid (str | Unset): A stream entry id, or just its milliseconds part (see EntryId).
        nomkstream (bool | Unset): Refuse (`404 stream_not_found`) instead of creating a missing stream. Default: False.
    """

    body: Any
    maxlen: int | Unset = UNSET
    approximate: bool | Unset = True
    minid: str | Unset = UNSET
    nomkstream: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        body = self.body

        maxlen = self.maxlen

        approximate = self.approximate

        minid = self.minid

        nomkstream = self.nomkstream

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "body": body,
            }
        )
        if maxlen is not UNSET:
            field_dict["maxlen"] = maxlen
        if approximate is not UNSET:
            field_dict["approximate"] = approximate
        if minid is not UNSET:
            field_dict["minid"] = minid
        if nomkstream is not UNSET:
            field_dict["nomkstream"] = nomkstream

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        body = d.pop("body")

        maxlen = d.pop("maxlen", UNSET)

        approximate = d.pop("approximate", UNSET)

        minid = d.pop("minid", UNSET)

        nomkstream = d.pop("nomkstream", UNSET)

        append_entry_request = cls(
            body=body,
            maxlen=maxlen,
            approximate=approximate,
            minid=minid,
            nomkstream=nomkstream,
        )

        return append_entry_request
