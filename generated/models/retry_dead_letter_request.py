from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.forwarded_headers import ForwardedHeaders


T = TypeVar("T", bound="RetryDeadLetterRequest")


@_attrs_define
class RetryDeadLetterRequest:
    """
    Attributes:
        headers (ForwardedHeaders | Unset): Forwarded headers to set on the retried message, replacing a header of the
            same name (in
            any letter case) or adding it, by the rules of a publish's `headers`: names are HTTP
            tokens, values printable ASCII, and framing, connection and `Spool-*` headers are refused.
    """

    headers: ForwardedHeaders | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if headers is not UNSET:
            field_dict["headers"] = headers

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.forwarded_headers import ForwardedHeaders  # noqa: PLC0415

        d = dict(src_dict)
        _headers = d.pop("headers", UNSET)
        headers: ForwardedHeaders | Unset
        if isinstance(_headers, Unset):
            headers = UNSET
        else:
            headers = ForwardedHeaders.from_dict(_headers)

        retry_dead_letter_request = cls(
            headers=headers,
        )

        return retry_dead_letter_request
