"""What commands print: rich tables for people, JSON for scripts.

A table never cuts what a command after it needs: its first column (the name or id a row is
about) and every id column are printed whole, and the other columns give way by wrapping, never
by an ellipsis. In a terminal the table fits its width (one too narrow for every column gets rows
wider than itself rather than lose a value); through a pipe, or with `--wide`, nothing wraps at
all, one row to a line, so `grep` and `awk` see every value in full.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import click
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from ._context import State

__all__ = [
    "cell",
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


# Wide enough for any row: the table is as wide as its widest row, never padded to this.
_UNLIMITED_WIDTH = 1 << 20
# The narrowest a wrapping column may get before a table gives up fitting the terminal.
_MIN_WRAPPED_WIDTH = 4


def console() -> Console:
    """A rich console on the current stdout (tests swap it, so never a cached one): the
    terminal's width, or no limit through a pipe or with `--wide`.
    """
    made = Console(soft_wrap=False, highlight=False)
    if made.is_terminal and not _wide():
        return made
    return _unlimited()


def _unlimited() -> Console:
    return Console(soft_wrap=False, highlight=False, width=_UNLIMITED_WIDTH)


def _wide() -> bool:
    context = click.get_current_context(silent=True)
    state = context.find_object(State) if context is not None else None
    return state is not None and state.wide


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
    """Print rows under `columns` as a rich table; the first column and those named `id` or
    `... id` are never cut nor wrapped, the others wrap when the terminal is too narrow.
    """
    cells = [[cell(value) for value in row] for row in rows]
    table = Table(title=title, title_justify="left")
    # Each column's padding and the rules between and around them.
    needed = 3 * len(columns) + 1
    for index, name in enumerate(columns):
        if index == 0 or name == "id" or name.endswith(" id"):
            widest = max(cell_len(name), *(cell_len(row[index]) for row in cells))
            table.add_column(name, no_wrap=True, min_width=widest)
            needed += widest
        else:
            table.add_column(name, overflow="fold")
            needed += _MIN_WRAPPED_WIDTH
    out = console()
    if needed > out.width:
        # Too narrow to show every column: let the rows overflow the terminal instead.
        out = _unlimited()
    for row in cells:
        table.add_row(*row)
    out.print(table)


def show(value: Any, *, as_json: bool) -> None:
    """Print one result, a dataclass or a mapping: JSON, or a table of its fields."""
    if as_json:
        print_json(value)
        return
    table = Table(show_header=False)
    table.add_column("field", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    for name, item in _fields(value):
        table.add_row(name, cell(item))
    console().print(table)


def _fields(value: Any) -> list[tuple[str, Any]]:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(field.name, getattr(value, field.name)) for field in dataclasses.fields(value)]
    return list(value.items())
