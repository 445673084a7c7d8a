"""What commands print: JSON for scripts, cells for tables, tables that never cut an id."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta

import click
import pytest

from sdk._cli._context import State
from sdk._cli._output import cell, print_table, to_json


@dataclasses.dataclass
class _Sample:
    at: datetime
    took: timedelta
    tags: tuple[str, ...]


def test_to_json_turns_results_into_plain_data() -> None:
    """Dataclasses become objects, times RFC 3339, durations seconds."""
    sample = _Sample(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), timedelta(minutes=1), ("a",))
    assert to_json({"sample": sample}) == {
        "sample": {"at": "2026-01-02T03:04:05+00:00", "took": 60.0, "tags": ["a"]}
    }


def test_cells() -> None:
    """Nothing is '-', booleans are lower case, bodies are JSON."""
    assert [cell(None), cell(True), cell(3), cell({"a": 1}), cell(timedelta(seconds=30))] == [
        "-",
        "true",
        "3",
        '{"a": 1}',
        "30s",
    ]


_JOB_ID = "job_01M8SGDQSHAGZD7PD6SW8RABCD"
_ERROR = "exit status 1: the mail relay refused the message, try again later please"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _table(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], **env: str) -> str:
    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    print_table(
        ("job id", "topic", "state", "last error"), [(_JOB_ID, "email.welcome", "dead", _ERROR)]
    )
    return _ANSI.sub("", capsys.readouterr().out)


def test_a_narrow_terminal_wraps_other_columns_and_never_cuts_an_id(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table fits the terminal: the id stays whole on one line, the others wrap, and no
    value loses characters to an ellipsis.
    """
    out = _table(monkeypatch, capsys, TTY_COMPATIBLE="1", COLUMNS="60")
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 60
    assert any(_JOB_ID in line for line in lines)
    assert "…" not in out
    rows = [line.split("│")[1:-1] for line in lines if line.startswith("│")]
    assert len(rows) > 1, out  # the error wrapped over several lines, and lost nothing
    assert "".join(row[3] for row in rows).replace(" ", "") == _ERROR.replace(" ", "")


def test_through_a_pipe_or_wide_every_row_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not a terminal (a pipe, a file) or --wide: nothing wraps, so grep sees whole values."""
    piped = _table(monkeypatch, capsys, TTY_COMPATIBLE="0", COLUMNS="60")
    [row] = [line for line in piped.splitlines() if _JOB_ID in line]
    assert _ERROR in row and "email.welcome" in row
    with click.Context(click.Command("ls"), obj=State(wide=True)):
        wide = _table(monkeypatch, capsys, TTY_COMPATIBLE="1", COLUMNS="60")
    [row] = [line for line in wide.splitlines() if _JOB_ID in line]
    assert _ERROR in row


def test_a_terminal_too_narrow_for_every_column_gets_whole_rows(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rather than squeeze a column to nothing, the rows overflow the terminal."""
    out = _table(monkeypatch, capsys, TTY_COMPATIBLE="1", COLUMNS="40")
    [row] = [line for line in out.splitlines() if _JOB_ID in line]
    assert _ERROR in row and "email.welcome" in row
