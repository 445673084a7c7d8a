"""mypy --strict accepts raw_api.py: raw responses carry each call's result type."""

from __future__ import annotations

from pathlib import Path

from mypy import api as mypy_api

from tests.conftest import ROOT


def test_raw_responses_and_options_type_check_strictly(mypy_cache: Path) -> None:
    """No errors, the assert_type lines hold, and the misspelled options are refused (their
    `type: ignore` comments would be unused otherwise, which strict mode reports).
    """
    stdout, stderr, status = mypy_api.run(
        [
            "--strict",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(mypy_cache),
            str(ROOT / "tests" / "typing" / "raw_api.py"),
        ]
    )
    assert status == 0, stdout + stderr
