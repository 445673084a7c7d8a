from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Redact")


@_attrs_define
class Redact:
    """Parts of a message that are delivered as published but never shown again. Wherever the
    service shows the message (getMessage, listMessages, cancelMessage, the schedule
    operations for a schedule's message, the console and the CLI, which read them), the
    value of each header named in `headers` is `"[redacted]"`, in `headers`,
    `callback_headers` and `failure_callback_headers` alike (names matched
    case-insensitively), and with `body` a schedule's message shows the body as
    `"[redacted]"` (getMessage never shows a body). The message's `redact` says what was
    redacted, so a header whose value really is `"[redacted]"` can be told apart. The
    callbacks of the message are redacted in the same way.

        Attributes:
            body (bool | Unset): Never show the body. Default: False.
            headers (list[str] | Unset): Header names whose values are never shown, in any letter case.
    """

    body: bool | Unset = False
    headers: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        body = self.body

        headers: list[str] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if body is not UNSET:
            field_dict["body"] = body
        if headers is not UNSET:
            field_dict["headers"] = headers

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        body = d.pop("body", UNSET)

        headers = cast(list[str], d.pop("headers", UNSET))

        redact = cls(
            body=body,
            headers=headers,
        )

        return redact
