"""The wheel ships what an installed service and SDK need."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_ships_the_packages_their_markers_and_the_api_document(tmp_path: Path) -> None:
    """The wheel holds sdk, generated and server with py.typed, and openapi.yaml inside server."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(tmp_path), str(ROOT)],
        check=True,
    )
    (wheel,) = tmp_path.glob("spool-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"sdk/py.typed", "generated/py.typed", "server/openapi.yaml"} <= names
    lua = {path.relative_to(ROOT).as_posix() for path in (ROOT / "server").rglob("*.lua")}
    assert lua and lua <= names
    assert {"sdk/__init__.py", "generated/client.py", "server/app.py"} <= names
    shipped = zipfile.ZipFile(wheel).read("server/openapi.yaml")
    assert shipped == (ROOT / "openapi.yaml").read_bytes()
