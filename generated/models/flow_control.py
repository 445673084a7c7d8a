from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="FlowControl")


@_attrs_define
class FlowControl:
    """Limits shared by every message published with the same `key`, across every service
    process: at most `rate` delivery attempts start in any `period` (a sliding window), and at
    most `parallelism` attempts are in flight at once. Give at least one of `rate` and
    `parallelism`. A message over a limit waits, scheduled, and is delivered later; none is
    dropped. Retries count like first attempts. The limits of a key are those of the latest
    publish that named it (last writer wins), and apply to all of its waiting messages.
    With `parallelism: 1` the key's messages are delivered one at a time in publish order: a
    message waiting for its delay or its next retry holds back the ones published after it
    (until it is delivered, dead or cancelled).

        Attributes:
            key (str): A flow control key, by the rules of URL group names.
            rate (int | Unset): Delivery attempts that may start in any `period`, at most.
            period (int | str | Unset): The window of `rate`: seconds (1 to 86400), or a number with `s`, `m` or `h`
                (`"30s"`, `"1m"`, `"1h"`) within that. Default 1 second.
            parallelism (int | Unset): Attempts in flight at once, at most.
    """

    key: str
    rate: int | Unset = UNSET
    period: int | str | Unset = UNSET
    parallelism: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        key = self.key

        rate = self.rate

        period: int | str | Unset
        if isinstance(self.period, Unset):
            period = UNSET
        else:
            period = self.period

        parallelism = self.parallelism

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "key": key,
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

        rate = d.pop("rate", UNSET)

        def _parse_period(data: object) -> int | str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(int | str | Unset, data)

        period = _parse_period(d.pop("period", UNSET))

        parallelism = d.pop("parallelism", UNSET)

        flow_control = cls(
            key=key,
            rate=rate,
            period=period,
            parallelism=parallelism,
        )

        return flow_control
