from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.schedule_catch_up import ScheduleCatchUp, check_schedule_catch_up

if TYPE_CHECKING:
    from ..models.schedule_destination import ScheduleDestination
    from ..models.schedule_run import ScheduleRun


T = TypeVar("T", bound="Schedule")


@_attrs_define
class Schedule:
    """
    Attributes:
        name (str):
        cron (str):
        timezone (str):
        catch_up (ScheduleCatchUp): What a schedule does with ticks it missed (the service was down, or it came to them
            more
            than 60 seconds late): `once` makes one run for them all, as soon as it can, then follows
            the timetable again; `skip` makes none and only records that it skipped them.
        destination (ScheduleDestination): What each tick publishes, named by `kind` with the members that go with it
            and no others:
            for `message` the `message` (a publishMessage body), for `job` the `queue` and the `job` (a
            publishJob body), for `stream` the `stream` and the `entry` (an appendEntry body). Members
            of another kind are `422` at `kind`.
        paused (bool):
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        last_run_at (datetime.datetime | None): When the schedule last made a run, or null before its first.
        next_run_at (datetime.datetime | None): The next tick it will fire for, or null while it is paused.
        recent_runs (list[ScheduleRun]): The most recent runs, newest first; older ones are forgotten.
    """

    name: str
    cron: str
    timezone: str
    catch_up: ScheduleCatchUp
    destination: ScheduleDestination
    paused: bool
    created_at: datetime.datetime
    updated_at: datetime.datetime
    last_run_at: datetime.datetime | None
    next_run_at: datetime.datetime | None
    recent_runs: list[ScheduleRun]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        cron = self.cron

        timezone = self.timezone

        catch_up: str = self.catch_up

        destination = self.destination.to_dict()

        paused = self.paused

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        last_run_at: None | str
        if isinstance(self.last_run_at, datetime.datetime):
            last_run_at = self.last_run_at.isoformat()
        else:
            last_run_at = self.last_run_at

        next_run_at: None | str
        if isinstance(self.next_run_at, datetime.datetime):
            next_run_at = self.next_run_at.isoformat()
        else:
            next_run_at = self.next_run_at

        recent_runs = []
        for recent_runs_item_data in self.recent_runs:
            recent_runs_item = recent_runs_item_data.to_dict()
            recent_runs.append(recent_runs_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "cron": cron,
                "timezone": timezone,
                "catch_up": catch_up,
                "destination": destination,
                "paused": paused,
                "created_at": created_at,
                "updated_at": updated_at,
                "last_run_at": last_run_at,
                "next_run_at": next_run_at,
                "recent_runs": recent_runs,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.schedule_destination import ScheduleDestination  # noqa: PLC0415
        from ..models.schedule_run import ScheduleRun  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        cron = d.pop("cron")

        timezone = d.pop("timezone")

        catch_up = check_schedule_catch_up(d.pop("catch_up"))

        destination = ScheduleDestination.from_dict(d.pop("destination"))

        paused = d.pop("paused")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_last_run_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_run_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_run_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_run_at = _parse_last_run_at(d.pop("last_run_at"))

        def _parse_next_run_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_run_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_run_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_run_at = _parse_next_run_at(d.pop("next_run_at"))

        recent_runs = []
        _recent_runs = d.pop("recent_runs")
        for recent_runs_item_data in _recent_runs:
            recent_runs_item = ScheduleRun.from_dict(recent_runs_item_data)

            recent_runs.append(recent_runs_item)

        schedule = cls(
            name=name,
            cron=cron,
            timezone=timezone,
            catch_up=catch_up,
            destination=destination,
            paused=paused,
            created_at=created_at,
            updated_at=updated_at,
            last_run_at=last_run_at,
            next_run_at=next_run_at,
            recent_runs=recent_runs,
        )

        schedule.additional_properties = d
        return schedule

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
