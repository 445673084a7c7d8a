from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.job_attempt_outcome import JobAttemptOutcome, check_job_attempt_outcome
from ..types import UNSET, Unset

T = TypeVar("T", bound="JobAttempt")


@_attrs_define
class JobAttempt:
    """
    Attributes:
        number (int): Which attempt of the job this lease was (its `attempts` then).
        leased_at (datetime.datetime):
        ended_at (datetime.datetime | Unset): When the lease ended; absent while it holds.
        outcome (JobAttemptOutcome | Unset): How a lease ended: `succeeded` (acked), `failed` (nacked, with the error it
            gave if
            any), `released` (given back untried by `releaseJob`: the attempt was not counted),
            `lease_expired` (it ran out before an ack, a nack or a release).
        error (str | Unset): The error the nack gave, or why the lease ran out.
        consumer (str | Unset): The `consumer` that leased the job, if the lease named one.
    """

    number: int
    leased_at: datetime.datetime
    ended_at: datetime.datetime | Unset = UNSET
    outcome: JobAttemptOutcome | Unset = UNSET
    error: str | Unset = UNSET
    consumer: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        number = self.number

        leased_at = self.leased_at.isoformat()

        ended_at: str | Unset = UNSET
        if not isinstance(self.ended_at, Unset):
            ended_at = self.ended_at.isoformat()

        outcome: str | Unset = UNSET
        if not isinstance(self.outcome, Unset):
            outcome = self.outcome

        error = self.error

        consumer = self.consumer

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "number": number,
                "leased_at": leased_at,
            }
        )
        if ended_at is not UNSET:
            field_dict["ended_at"] = ended_at
        if outcome is not UNSET:
            field_dict["outcome"] = outcome
        if error is not UNSET:
            field_dict["error"] = error
        if consumer is not UNSET:
            field_dict["consumer"] = consumer

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        number = d.pop("number")

        leased_at = datetime.datetime.fromisoformat(d.pop("leased_at"))

        _ended_at = d.pop("ended_at", UNSET)
        ended_at: datetime.datetime | Unset
        if isinstance(_ended_at, Unset):
            ended_at = UNSET
        else:
            ended_at = datetime.datetime.fromisoformat(_ended_at)

        _outcome = d.pop("outcome", UNSET)
        outcome: JobAttemptOutcome | Unset
        if isinstance(_outcome, Unset):
            outcome = UNSET
        else:
            outcome = check_job_attempt_outcome(_outcome)

        error = d.pop("error", UNSET)

        consumer = d.pop("consumer", UNSET)

        job_attempt = cls(
            number=number,
            leased_at=leased_at,
            ended_at=ended_at,
            outcome=outcome,
            error=error,
            consumer=consumer,
        )

        job_attempt.additional_properties = d
        return job_attempt

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
