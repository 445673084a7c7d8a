from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="UrlEndpoint")


@_attrs_define
class UrlEndpoint:
    """
    Attributes:
        url (str):
        name (str | Unset):
    """

    url: str
    name: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        name = self.name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "url": url,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        url = d.pop("url")

        name = d.pop("name", UNSET)

        url_endpoint = cls(
            url=url,
            name=name,
        )

        return url_endpoint
