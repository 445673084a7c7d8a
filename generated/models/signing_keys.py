from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.standard_webhooks_secrets import StandardWebhooksSecrets


T = TypeVar("T", bound="SigningKeys")


@_attrs_define
class SigningKeys:
    """
    Attributes:
        current (str):
        next_ (str):
        standard_webhooks (StandardWebhooksSecrets): The same two keys as Standard Webhooks secrets (`whsec_` and the
            key's UTF-8 bytes in
            base64), for receivers of messages published with `signature_scheme: standard_webhooks`.
            A receiver may hold either: every delivery is signed with both.
    """

    current: str
    next_: str
    standard_webhooks: StandardWebhooksSecrets
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        current = self.current

        next_ = self.next_

        standard_webhooks = self.standard_webhooks.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "current": current,
                "next": next_,
                "standard_webhooks": standard_webhooks,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.standard_webhooks_secrets import StandardWebhooksSecrets  # noqa: PLC0415

        d = dict(src_dict)
        current = d.pop("current")

        next_ = d.pop("next")

        standard_webhooks = StandardWebhooksSecrets.from_dict(
            d.pop("standard_webhooks")
        )

        signing_keys = cls(
            current=current,
            next_=next_,
            standard_webhooks=standard_webhooks,
        )

        signing_keys.additional_properties = d
        return signing_keys

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
