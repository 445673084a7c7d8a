"""mypy --strict accepts request_options_api.py: every call takes the per-call options, typed."""

from __future__ import annotations

from pathlib import Path

from mypy import api as mypy_api

from tests.conftest import ROOT


def test_request_options_type_check_strictly(mypy_cache: Path) -> None:
    """No errors, the assert_type lines hold, and each wrong name or type is refused (its
    `type: ignore` comment would be unused otherwise, which strict mode reports).
    """
    stdout, stderr, status = mypy_api.run(
        [
            "--strict",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(mypy_cache),
            str(ROOT / "tests" / "typing" / "request_options_api.py"),
        ]
    )
    assert status == 0, stdout + stderr
