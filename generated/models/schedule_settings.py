from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.schedule_catch_up import ScheduleCatchUp, check_schedule_catch_up
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.schedule_destination import ScheduleDestination


T = TypeVar("T", bound="ScheduleSettings")


@_attrs_define
class ScheduleSettings:
    """
    Attributes:
        cron (str): A 5-field cron expression (minute, hour, day of month, month, day of week) with lists,
            ranges, steps, names (`MON`, `JAN`), `L`, `W` and `#` as in standard cron; the service
            refuses one it cannot read, or one that never fires, with `400 invalid_cron`. When both
            day fields are restricted, a day matching either fires, as in standard cron.
             Example: */5 * * * *.
        destination (ScheduleDestination): What each tick publishes, named by `kind` with the members that go with it
            and no others:
            for `message` the `message` (a publishMessage body), for `job` the `queue` and the `job` (a
            publishJob body), for `stream` the `stream` and the `entry` (an appendEntry body). Members
            of another kind are `422` at `kind`.
        timezone (str | Unset): The IANA time zone the expression is read in (`Europe/Berlin`). Across a
            daylight-saving change a tick at a time that does not exist fires at the first minute
            after the gap, and one at a time that happens twice fires once, at its first
            occurrence. A name the service does not know is `400 invalid_timezone`.
             Default: 'UTC'.
        catch_up (ScheduleCatchUp | Unset): What a schedule does with ticks it missed (the service was down, or it came
            to them more
            than 60 seconds late): `once` makes one run for them all, as soon as it can, then follows
            the timetable again; `skip` makes none and only records that it skipped them.
    """

    cron: str
    destination: ScheduleDestination
    timezone: str | Unset = "UTC"
    catch_up: ScheduleCatchUp | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        cron = self.cron

        destination = self.destination.to_dict()

        timezone = self.timezone

        catch_up: str | Unset = UNSET
        if not isinstance(self.catch_up, Unset):
            catch_up = self.catch_up

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "cron": cron,
                "destination": destination,
            }
        )
        if timezone is not UNSET:
            field_dict["timezone"] = timezone
        if catch_up is not UNSET:
            field_dict["catch_up"] = catch_up

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.schedule_destination import ScheduleDestination  # noqa: PLC0415

        d = dict(src_dict)
        cron = d.pop("cron")

        destination = ScheduleDestination.from_dict(d.pop("destination"))

        timezone = d.pop("timezone", UNSET)

        _catch_up = d.pop("catch_up", UNSET)
        catch_up: ScheduleCatchUp | Unset
        if isinstance(_catch_up, Unset):
            catch_up = UNSET
        else:
            catch_up = check_schedule_catch_up(_catch_up)

        schedule_settings = cls(
            cron=cron,
            destination=destination,
            timezone=timezone,
            catch_up=catch_up,
        )

        return schedule_settings
