"""mypy --strict accepts the user program in api.py: the public API is fully typed."""

from __future__ import annotations

from pathlib import Path

from mypy import api as mypy_api

from tests.conftest import ROOT


def test_the_public_api_type_checks_strictly(mypy_cache: Path) -> None:
    """No errors, and the assert_type lines in api.py hold."""
    stdout, stderr, status = mypy_api.run(
        [
            "--strict",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(mypy_cache),
            str(ROOT / "tests" / "typing" / "api.py"),
        ]
    )
    assert status == 0, stdout + stderr
