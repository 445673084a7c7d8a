"""Turning command-line text into what the SDK takes: JSON bodies, durations, headers."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from ._errors import CliError, ExitCode

__all__ = ["DURATION", "json_body", "parse_headers", "read_body"]


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
