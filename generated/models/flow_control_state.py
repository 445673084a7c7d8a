from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="FlowControlState")


@_attrs_define
class FlowControlState:
    """A flow control key: its limits (absent until a message is published with it), whether it
    is paused, its messages that are scheduled (`waiting`, whether for their time, a retry or
    the limits), its attempts in flight under a live lease, and the attempts that started in
    the last `period` (`rate_used`).

        Attributes:
            key (str):
            paused (bool):
            waiting (int):
            in_flight (int):
            rate_used (int):
            rate (int | Unset):
            period (int | Unset):
            parallelism (int | Unset):
    """

    key: str
    paused: bool
    waiting: int
    in_flight: int
    rate_used: int
    rate: int | Unset = UNSET
    period: int | Unset = UNSET
    parallelism: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        key = self.key

        paused = self.paused

        waiting = self.waiting

        in_flight = self.in_flight

        rate_used = self.rate_used

        rate = self.rate

        period = self.period

        parallelism = self.parallelism

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "key": key,
                "paused": paused,
                "waiting": waiting,
                "in_flight": in_flight,
                "rate_used": rate_used,
            }
        )
        if rate is not UNSET:
            field_dict["rate"] = rate
        if period is not UNSET:
            field_dict["period"] = period
        if parallelism is not UNSET:
            field_dict["parallelism"] = parallelism

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        key = d.pop("key")

        paused = d.pop("paused")

        waiting = d.pop("waiting")

        in_flight = d.pop("in_flight")

        rate_used = d.pop("rate_used")

        rate = d.pop("rate", UNSET)

        period = d.pop("period", UNSET)

        parallelism = d.pop("parallelism", UNSET)

        flow_control_state = cls(
            key=key,
            paused=paused,
            waiting=waiting,
            in_flight=in_flight,
            rate_used=rate_used,
            rate=rate,
            period=period,
            parallelism=parallelism,
        )

        flow_control_state.additional_properties = d
        return flow_control_state

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
