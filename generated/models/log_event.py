from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.log_event_kind import LogEventKind, check_log_event_kind
from ..models.message_state import MessageState, check_message_state
from ..types import UNSET, Unset

T = TypeVar("T", bound="LogEvent")


@_attrs_define
class LogEvent:
    """
    Attributes:
        event (LogEventKind): What happened: `created` (published), `scheduled` (a dead letter retried), `retry` (an
            attempt failed, another is scheduled), `delivered`, `failed` (the last attempt failed),
            `dead_letter` (filed as a dead letter) or `cancelled`.
        at (datetime.datetime):
        message_id (str):
        state (MessageState):
        url (str):
        labels (list[str]):
        url_group (str | Unset):
        schedule (str | Unset): The schedule that published the message, when one did.
        attempt (int | Unset): The attempt's number, for `retry`, `delivered` and `failed`.
        status_code (int | Unset): The attempt's HTTP status, when it got a response.
        error (str | Unset): Why the attempt failed, when it did.
    """

    event: LogEventKind
    at: datetime.datetime
    message_id: str
    state: MessageState
    url: str
    labels: list[str]
    url_group: str | Unset = UNSET
    schedule: str | Unset = UNSET
    attempt: int | Unset = UNSET
    status_code: int | Unset = UNSET
    error: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        event: str = self.event

        at = self.at.isoformat()

        message_id = self.message_id

        state: str = self.state

        url = self.url

        labels = self.labels

        url_group = self.url_group

        schedule = self.schedule

        attempt = self.attempt

        status_code = self.status_code

        error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "event": event,
                "at": at,
                "message_id": message_id,
                "state": state,
                "url": url,
                "labels": labels,
            }
        )
        if url_group is not UNSET:
            field_dict["url_group"] = url_group
        if schedule is not UNSET:
            field_dict["schedule"] = schedule
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
        event = check_log_event_kind(d.pop("event"))

        at = datetime.datetime.fromisoformat(d.pop("at"))

        message_id = d.pop("message_id")

        state = check_message_state(d.pop("state"))

        url = d.pop("url")

        labels = cast(list[str], d.pop("labels"))

        url_group = d.pop("url_group", UNSET)

        schedule = d.pop("schedule", UNSET)

        attempt = d.pop("attempt", UNSET)

        status_code = d.pop("status_code", UNSET)

        error = d.pop("error", UNSET)

        log_event = cls(
            event=event,
            at=at,
            message_id=message_id,
            state=state,
            url=url,
            labels=labels,
            url_group=url_group,
            schedule=schedule,
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
