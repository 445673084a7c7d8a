"""What commands print: rich tables for people, JSON for scripts."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import click
from rich.console import Console
from rich.table import Table

__all__ = [
    "console",
    "error_console",
    "print_json",
    "print_table",
    "show",
    "to_json",
]


def to_json(value: Any) -> Any:
    """`value` as plain JSON data: dataclasses as objects, times in RFC 3339, durations in
    seconds.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: to_json(getattr(value, field.name)) for field in dataclasses.fields(value)
        }
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, Mapping):
        return {str(key): to_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(item) for item in value]
    return value


def print_json(value: Any) -> None:
    """Print `value` as one line of JSON on stdout (a document, or one line of JSON lines)."""
    click.echo(json.dumps(to_json(value), ensure_ascii=False, separators=(",", ":")))


def console() -> Console:
    """A rich console on the current stdout (tests swap it, so never a cached one)."""
    return Console(soft_wrap=False, highlight=False)


def error_console() -> Console:
    """A rich console on the current stderr: progress, notes and warnings."""
    return Console(stderr=True, soft_wrap=False, highlight=False)


def cell(value: Any) -> str:
    """One table cell: JSON for bodies, RFC 3339 for times, '-' for nothing."""
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds")
    if isinstance(value, timedelta):
        return f"{value.total_seconds():g}s"
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return str(value).lower() if isinstance(value, bool) else str(value)
    return json.dumps(to_json(value), ensure_ascii=False)


def print_table(
    columns: Sequence[str], rows: Iterable[Sequence[Any]], *, title: str | None = None
) -> None:
    """Print rows under `columns` as a rich table."""
    table = Table(*columns, title=title, title_justify="left")
    for row in rows:
        table.add_row(*(cell(value) for value in row))
    console().print(table)


def show(value: Any, *, as_json: bool) -> None:
    """Print one result, a dataclass or a mapping: JSON, or a table of its fields."""
    if as_json:
        print_json(value)
        return
    table = Table(show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    for name, item in _fields(value):
        table.add_row(name, cell(item))
    console().print(table)


def _fields(value: Any) -> list[tuple[str, Any]]:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(field.name, getattr(value, field.name)) for field in dataclasses.fields(value)]
    return list(value.items())
