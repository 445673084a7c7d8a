from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="FlowControlLimits")


@_attrs_define
class FlowControlLimits:
    """A message's flow control as it was published, `period` in seconds.

    Attributes:
        key (str):
        period (int):
        rate (int | Unset):
        parallelism (int | Unset):
    """

    key: str
    period: int
    rate: int | Unset = UNSET
    parallelism: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        key = self.key

        period = self.period

        rate = self.rate

        parallelism = self.parallelism

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "key": key,
                "period": period,
            }
        )
        if rate is not UNSET:
            field_dict["rate"] = rate
        if parallelism is not UNSET:
            field_dict["parallelism"] = parallelism

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        key = d.pop("key")

        period = d.pop("period")

        rate = d.pop("rate", UNSET)

        parallelism = d.pop("parallelism", UNSET)

        flow_control_limits = cls(
            key=key,
            period=period,
            rate=rate,
            parallelism=parallelism,
        )

        flow_control_limits.additional_properties = d
        return flow_control_limits

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
