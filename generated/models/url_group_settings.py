from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.url_endpoint import UrlEndpoint


T = TypeVar("T", bound="UrlGroupSettings")


@_attrs_define
class UrlGroupSettings:
    """
    Attributes:
        endpoints (list[UrlEndpoint]):
    """

    endpoints: list[UrlEndpoint]

    def to_dict(self) -> dict[str, Any]:
        endpoints = []
        for endpoints_item_data in self.endpoints:
            endpoints_item = endpoints_item_data.to_dict()
            endpoints.append(endpoints_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "endpoints": endpoints,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.url_endpoint import UrlEndpoint  # noqa: PLC0415

        d = dict(src_dict)
        endpoints = []
        _endpoints = d.pop("endpoints")
        for endpoints_item_data in _endpoints:
            endpoints_item = UrlEndpoint.from_dict(endpoints_item_data)

            endpoints.append(endpoints_item)

        url_group_settings = cls(
            endpoints=endpoints,
        )

        return url_group_settings
