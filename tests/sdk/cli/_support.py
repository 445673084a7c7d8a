"""Helpers of the command line's tests: reading `--json` output, `spool` in a child process."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result

ROOT = Path(__file__).resolve().parents[3]

# The `spool` fixture: runs `spool ARGS...` in process and returns click's Result.
Spool = Callable[..., Result]


def parsed(result: Result) -> Any:
    """The one JSON document a `--json` command printed (its exit status must be 0)."""
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def json_lines(result: Result) -> list[Any]:
    """The JSON lines a `--json` command printed."""
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def spool_process(*args: str, environment: dict[str, str], **options: Any) -> subprocess.Popen[str]:
    """`python -m sdk._cli ARGS...` in a child process, importing this checkout."""
    env = {**os.environ, **environment, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "sdk._cli", *args],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **options,
    )


def read_line(process: subprocess.Popen[str], *, timeout: float) -> str:
    """The next line `process` prints, failing the test after `timeout` seconds."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    assert ready, f"nothing printed within {timeout} s"
    return process.stdout.readline()
