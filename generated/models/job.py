from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.job_state import JobState, check_job_state
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.job_attempt import JobAttempt


T = TypeVar("T", bound="Job")


@_attrs_define
class Job:
    """
    Attributes:
        job_id (str):
        queue (str):
        topic (str):
        payload (Any): The JSON value that was published.
        state (JobState):
        attempts (int):
        max_attempts (int):
        published_at (datetime.datetime):
        available_at (datetime.datetime): When the job is (or was) ready to lease.
        lease_expires_at (datetime.datetime | Unset):
        leased_by (str | Unset): The `consumer` that leased the job, while it is leased and if the lease named one.
        last_error (str | Unset):
        deduplication_id (str | Unset):
        traceparent (str | Unset): The W3C Trace Context `traceparent` the item was published under, when its publish
            sent
            a valid one: a consumer links its processing to that trace.
             Example: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01.
        leased_at (datetime.datetime | Unset): When the current or last lease began; absent for a job never leased.
        finished_at (datetime.datetime | Unset): When the job succeeded or died; absent while it may still run.
        attempt_history (list[JobAttempt] | Unset): The job's last attempts (at most 20), oldest first: who leased it,
            when, how each
            lease ended and with what error. The attempt in progress has no `ended_at` or
            `outcome`. A retried job keeps the attempts before its retry, numbered from 1 again
            after it.
    """

    job_id: str
    queue: str
    topic: str
    payload: Any
    state: JobState
    attempts: int
    max_attempts: int
    published_at: datetime.datetime
    available_at: datetime.datetime
    lease_expires_at: datetime.datetime | Unset = UNSET
    leased_by: str | Unset = UNSET
    last_error: str | Unset = UNSET
    deduplication_id: str | Unset = UNSET
    traceparent: str | Unset = UNSET
    leased_at: datetime.datetime | Unset = UNSET
    finished_at: datetime.datetime | Unset = UNSET
    attempt_history: list[JobAttempt] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        queue = self.queue

        topic = self.topic

        payload = self.payload

        state: str = self.state

        attempts = self.attempts

        max_attempts = self.max_attempts

        published_at = self.published_at.isoformat()

        available_at = self.available_at.isoformat()

        lease_expires_at: str | Unset = UNSET
        if not isinstance(self.lease_expires_at, Unset):
            lease_expires_at = self.lease_expires_at.isoformat()

        leased_by = self.leased_by

        last_error = self.last_error

        deduplication_id = self.deduplication_id

        traceparent = self.traceparent

        leased_at: str | Unset = UNSET
        if not isinstance(self.leased_at, Unset):
            leased_at = self.leased_at.isoformat()

        finished_at: str | Unset = UNSET
        if not isinstance(self.finished_at, Unset):
            finished_at = self.finished_at.isoformat()

        attempt_history: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.attempt_history, Unset):
            attempt_history = []
            for attempt_history_item_data in self.attempt_history:
                attempt_history_item = attempt_history_item_data.to_dict()
                attempt_history.append(attempt_history_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "queue": queue,
                "topic": topic,
                "payload": payload,
                "state": state,
                "attempts": attempts,
                "max_attempts": max_attempts,
                "published_at": published_at,
                "available_at": available_at,
            }
        )
        if lease_expires_at is not UNSET:
            field_dict["lease_expires_at"] = lease_expires_at
        if leased_by is not UNSET:
            field_dict["leased_by"] = leased_by
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if deduplication_id is not UNSET:
            field_dict["deduplication_id"] = deduplication_id
        if traceparent is not UNSET:
            field_dict["traceparent"] = traceparent
        if leased_at is not UNSET:
            field_dict["leased_at"] = leased_at
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if attempt_history is not UNSET:
            field_dict["attempt_history"] = attempt_history

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_attempt import JobAttempt  # noqa: PLC0415

        d = dict(src_dict)
        job_id = d.pop("job_id")

        queue = d.pop("queue")

        topic = d.pop("topic")

        payload = d.pop("payload")

        state = check_job_state(d.pop("state"))

        attempts = d.pop("attempts")

        max_attempts = d.pop("max_attempts")

        published_at = datetime.datetime.fromisoformat(d.pop("published_at"))

        available_at = datetime.datetime.fromisoformat(d.pop("available_at"))

        _lease_expires_at = d.pop("lease_expires_at", UNSET)
        lease_expires_at: datetime.datetime | Unset
        if isinstance(_lease_expires_at, Unset):
            lease_expires_at = UNSET
        else:
            lease_expires_at = datetime.datetime.fromisoformat(_lease_expires_at)

        leased_by = d.pop("leased_by", UNSET)

        last_error = d.pop("last_error", UNSET)

        deduplication_id = d.pop("deduplication_id", UNSET)

        traceparent = d.pop("traceparent", UNSET)

        _leased_at = d.pop("leased_at", UNSET)
        leased_at: datetime.datetime | Unset
        if isinstance(_leased_at, Unset):
            leased_at = UNSET
        else:
            leased_at = datetime.datetime.fromisoformat(_leased_at)

        _finished_at = d.pop("finished_at", UNSET)
        finished_at: datetime.datetime | Unset
        if isinstance(_finished_at, Unset):
            finished_at = UNSET
        else:
            finished_at = datetime.datetime.fromisoformat(_finished_at)

        _attempt_history = d.pop("attempt_history", UNSET)
        attempt_history: list[JobAttempt] | Unset = UNSET
        if _attempt_history is not UNSET:
            attempt_history = []
            for attempt_history_item_data in _attempt_history:
                attempt_history_item = JobAttempt.from_dict(attempt_history_item_data)

                attempt_history.append(attempt_history_item)

        job = cls(
            job_id=job_id,
            queue=queue,
            topic=topic,
            payload=payload,
            state=state,
            attempts=attempts,
            max_attempts=max_attempts,
            published_at=published_at,
            available_at=available_at,
            lease_expires_at=lease_expires_at,
            leased_by=leased_by,
            last_error=last_error,
            deduplication_id=deduplication_id,
            traceparent=traceparent,
            leased_at=leased_at,
            finished_at=finished_at,
            attempt_history=attempt_history,
        )

        job.additional_properties = d
        return job

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
