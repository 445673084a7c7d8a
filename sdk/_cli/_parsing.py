"""Turning command-line text into what the SDK takes: JSON bodies, durations, headers."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from typing import Any

import click

from sdk._durations import parse_duration_text

from ._errors import CliError, ExitCode

__all__ = ["DURATION", "MOMENT", "json_body", "parse_headers", "read_body"]


def read_body(text: str) -> str:
    """The body argument, or standard input when it is `-`."""
    return sys.stdin.read() if text == "-" else text


def json_body(text: str, *, what: str = "BODY") -> Any:
    """`text` parsed as JSON; a usage error that says where it breaks otherwise."""
    try:
        return json.loads(text)
    except ValueError as error:
        raise CliError(
            f'{what} is not JSON ({error}); quote it for the shell: \'{{"type": "signup"}}\'',
            code=ExitCode.USAGE,
        ) from error


class _Duration(click.ParamType["int | float | str"]):
    """Seconds (`30`, `0.5`) or a duration such as `500ms`, `3s`, `5m`, `2h`, `7d`."""

    name = "duration"

    def convert(
        self, value: Any, _param: click.Parameter | None, _ctx: click.Context | None
    ) -> int | float | str:
        if isinstance(value, int | float):
            return value
        text = str(value)
        try:
            number = float(text)
        except ValueError:
            # The SDK checks the unit and range, and says what it expected.
            return text
        return int(number) if number.is_integer() else number


DURATION = _Duration()


class _Moment(click.ParamType["datetime"]):
    """An RFC 3339 time (`2026-11-29T12:00:00Z`) or a duration ago (`15m`, `2h`, `1d`)."""

    name = "time"

    def convert(
        self, value: Any, _param: click.Parameter | None, _ctx: click.Context | None
    ) -> datetime:
        if isinstance(value, datetime):
            return value
        ago = parse_duration_text(str(value))
        if ago is not None:
            return datetime.now(UTC) - ago
        try:
            moment = datetime.fromisoformat(str(value))
        except ValueError:
            self.fail(f"{value!r} is neither a time such as 2026-11-29T12:00:00Z nor a duration")
        if moment.tzinfo is None:
            self.fail(f"{value!r} has no time zone offset (add Z for UTC)")
        return moment


MOMENT = _Moment()


def parse_headers(values: tuple[str, ...]) -> dict[str, str] | None:
    """`-H 'Name: value'` options as a mapping; None when there are none."""
    headers: dict[str, str] = {}
    for value in values:
        name, colon, text = value.partition(":")
        if not colon or not name.strip():
            raise CliError(
                f"a header must look like 'Name: value', got {value!r}", code=ExitCode.USAGE
            )
        headers[name.strip()] = text.strip()
    return headers or None
