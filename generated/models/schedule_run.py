from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.schedule_outcome import ScheduleOutcome, check_schedule_outcome
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.schedule_run_error import ScheduleRunError


T = TypeVar("T", bound="ScheduleRun")


@_attrs_define
class ScheduleRun:
    """
    Attributes:
        tick_at (datetime.datetime): The tick of the timetable this run was for (with catch-up, the first it missed).
        fired_at (datetime.datetime): When the run was made.
        outcome (ScheduleOutcome): What one run did: `published` its destination (`ids` names what it made), `failed` to
            (`error` says why; the schedule goes on to its next tick), or `skipped` ticks it missed
            (with `catch_up: skip`).
        ids (list[str] | Unset): What a published run made, as the publish answers them, in order - the message ids (one
            per endpoint of a URL group), the job id, or the entry id.
        error (ScheduleRunError | Unset):
    """

    tick_at: datetime.datetime
    fired_at: datetime.datetime
    outcome: ScheduleOutcome
    ids: list[str] | Unset = UNSET
    error: ScheduleRunError | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tick_at = self.tick_at.isoformat()

        fired_at = self.fired_at.isoformat()

        outcome: str = self.outcome

        ids: list[str] | Unset = UNSET
        if not isinstance(self.ids, Unset):
            ids = self.ids

        error: dict[str, Any] | Unset = UNSET
        if not isinstance(self.error, Unset):
            error = self.error.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tick_at": tick_at,
                "fired_at": fired_at,
                "outcome": outcome,
            }
        )
        if ids is not UNSET:
            field_dict["ids"] = ids
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.schedule_run_error import ScheduleRunError  # noqa: PLC0415

        d = dict(src_dict)
        tick_at = datetime.datetime.fromisoformat(d.pop("tick_at"))

        fired_at = datetime.datetime.fromisoformat(d.pop("fired_at"))

        outcome = check_schedule_outcome(d.pop("outcome"))

        ids = cast(list[str], d.pop("ids", UNSET))

        _error = d.pop("error", UNSET)
        error: ScheduleRunError | Unset
        if isinstance(_error, Unset):
            error = UNSET
        else:
            error = ScheduleRunError.from_dict(_error)

        schedule_run = cls(
            tick_at=tick_at,
            fired_at=fired_at,
            outcome=outcome,
            ids=ids,
            error=error,
        )

        schedule_run.additional_properties = d
        return schedule_run

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
