from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PublishMessageRequestHeaders")


@_attrs_define
class PublishMessageRequestHeaders:
    """Headers forwarded with every delivery. Names are HTTP tokens; values are printable
    ASCII (tabs allowed, no CR or LF). Framing and connection headers (`Host`,
    `Content-Length`, `Transfer-Encoding`, `Connection`, …), `Spool-*` and the Standard
    Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) are set by
    the service and refused here.

    """

    additional_properties: dict[str, str] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        publish_message_request_headers = cls()

        publish_message_request_headers.additional_properties = d
        return publish_message_request_headers

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> str:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: str) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
