"""The `spool` entry point: the missing-extra message, `python -m sdk._cli`, and `import sdk`
staying free of the command line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

import pytest

from sdk._cli import main
from tests.sdk.cli._support import ROOT, spool_process


@pytest.mark.parametrize("missing", ["click", "rich"])
def test_without_the_extra_one_line_says_what_to_install(
    missing: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As httpx does for httpx[cli]: exit 2 and the pip command, no traceback."""
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "pip install 'spool[cli]'" in error
    assert missing in error


def test_the_module_runs_as_the_console_script_would(environment: dict[str, str]) -> None:
    """`python -m sdk._cli` (what the `spool` script calls) runs a command end to end."""
    process = spool_process("health", "--json", environment=environment)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    assert '"status":"ok"' in stdout


def test_import_sdk_loads_no_command_line() -> None:
    """The import-time budget of `import sdk` pays nothing for the command line."""
    probe = "import sys, sdk; print(sorted(m for m in sys.modules if m.split('.')[:2] == ['sdk', '_cli']))"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "[]"


def test_the_console_script_and_the_extra_are_declared() -> None:
    """`spool` points at main, the `cli` extra pins click and rich, and `dev` installs it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["scripts"]["spool"] == "sdk._cli:main"
    pins = project["optional-dependencies"]["cli"]
    assert sorted(pin.split("==")[0] for pin in pins) == ["click", "rich"]
    assert all("==" in pin for pin in pins)
    assert any("cli" in extra for extra in project["optional-dependencies"]["dev"])
