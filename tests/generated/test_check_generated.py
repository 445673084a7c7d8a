"""`make check-generated` (`.ci/check-generated`) catches any drift between openapi.yaml and generated/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import tool_environment

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _checkout_copy(tmp_path: Path) -> Path:
    """The files generation reads and writes, copied so the real checkout is never touched."""
    copy = tmp_path / "checkout"
    copy.mkdir()
    shutil.copytree(ROOT / ".ci", copy / ".ci")
    shutil.copytree(
        ROOT / "generated", copy / "generated", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("openapi.yaml", ".openapi-python-client.yaml"):
        shutil.copy2(ROOT / name, copy / name)
    return copy


def _check_generated(checkout: Path) -> subprocess.CompletedProcess[str]:
    tools = str(Path(sys.executable).parent)
    environment = {**tool_environment(), "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        [str(checkout / ".ci" / "check-generated")],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_committed_tree_matches_a_fresh_generation(tmp_path: Path) -> None:
    """The generated/ that is committed is exactly what openapi.yaml generates."""
    result = _check_generated(_checkout_copy(tmp_path))
    assert result.returncode == 0, result.stderr


def test_changing_a_field_in_the_spec_fails_with_a_readable_diff(tmp_path: Path) -> None:
    """Renaming one field of openapi.yaml without regenerating fails and shows the difference."""
    checkout = _checkout_copy(tmp_path)
    spec = checkout / "openapi.yaml"
    text = spec.read_text(encoding="utf-8")
    assert "        nomkstream:\n" in text
    spec.write_text(
        text.replace("        nomkstream:\n", "        no_mkstream:\n"), encoding="utf-8"
    )
    result = _check_generated(checkout)
    assert result.returncode != 0
    assert "generated/ is out of date with openapi.yaml" in result.stderr
    assert "no_mkstream" in result.stderr
