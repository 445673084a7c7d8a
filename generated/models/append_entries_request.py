from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.batch_entry import BatchEntry


T = TypeVar("T", bound="AppendEntriesRequest")


@_attrs_define
class AppendEntriesRequest:
    """Give at most one of `maxlen` and `minid`.

    Attributes:
        entries (list[BatchEntry]):
        maxlen (int | Unset):
        approximate (bool | Unset):  Default: True.
        minid (str | Unset): A stream entry id, or just its milliseconds part (see EntryId).
        nomkstream (bool | Unset):  Default: False.
    """

    entries: list[BatchEntry]
    maxlen: int | Unset = UNSET
    approximate: bool | Unset = True
    minid: str | Unset = UNSET
    nomkstream: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        maxlen = self.maxlen

        approximate = self.approximate

        minid = self.minid

        nomkstream = self.nomkstream

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "entries": entries,
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
        from ..models.batch_entry import BatchEntry  # noqa: PLC0415

        d = dict(src_dict)
        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = BatchEntry.from_dict(entries_item_data)

            entries.append(entries_item)

        maxlen = d.pop("maxlen", UNSET)

        approximate = d.pop("approximate", UNSET)

        minid = d.pop("minid", UNSET)

        nomkstream = d.pop("nomkstream", UNSET)

        append_entries_request = cls(
            entries=entries,
            maxlen=maxlen,
            approximate=approximate,
            minid=minid,
            nomkstream=nomkstream,
        )

        return append_entries_request
