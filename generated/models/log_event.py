from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.log_state import LogState, check_log_state
from ..types import UNSET, Unset

T = TypeVar("T", bound="LogEvent")


@_attrs_define
class LogEvent:
    """
    Attributes:
        message_id (str):
        state (LogState): What happened to a message (see `GET /v1/logs`).
        at (datetime.datetime): When it happened.
        url (str):
        labels (list[str]):
        url_group (str | Unset):
        schedule (str | Unset):
        flow_control_key (str | Unset):
        attempt (int | Unset): The delivery attempt that led to it (`retry`, `delivered`, `failed`, `dead_lettered`).
        status_code (int | Unset): That attempt's response status, when it had a response.
        error (str | Unset): That attempt's error, when it had one.
    """

    message_id: str
    state: LogState
    at: datetime.datetime
    url: str
    labels: list[str]
    url_group: str | Unset = UNSET
    schedule: str | Unset = UNSET
    flow_control_key: str | Unset = UNSET
    attempt: int | Unset = UNSET
    status_code: int | Unset = UNSET
    error: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message_id = self.message_id

        state: str = self.state

        at = self.at.isoformat()

        url = self.url

        labels = self.labels

        url_group = self.url_group

        schedule = self.schedule

        flow_control_key = self.flow_control_key

        attempt = self.attempt

        status_code = self.status_code

        error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message_id": message_id,
                "state": state,
                "at": at,
                "url": url,
                "labels": labels,
            }
        )
        if url_group is not UNSET:
            field_dict["url_group"] = url_group
        if schedule is not UNSET:
            field_dict["schedule"] = schedule
        if flow_control_key is not UNSET:
            field_dict["flow_control_key"] = flow_control_key
        if attempt is not UNSET:
            field_dict["attempt"] = attempt
        if status_code is not UNSET:
            field_dict["status_code"] = status_code
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        message_id = d.pop("message_id")

        state = check_log_state(d.pop("state"))

        at = datetime.datetime.fromisoformat(d.pop("at"))

        url = d.pop("url")

        labels = cast(list[str], d.pop("labels"))

        url_group = d.pop("url_group", UNSET)

        schedule = d.pop("schedule", UNSET)

        flow_control_key = d.pop("flow_control_key", UNSET)

        attempt = d.pop("attempt", UNSET)

        status_code = d.pop("status_code", UNSET)

        error = d.pop("error", UNSET)

        log_event = cls(
            message_id=message_id,
            state=state,
            at=at,
            url=url,
            labels=labels,
            url_group=url_group,
            schedule=schedule,
            flow_control_key=flow_control_key,
            attempt=attempt,
            status_code=status_code,
            error=error,
        )

        log_event.additional_properties = d
        return log_event

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
