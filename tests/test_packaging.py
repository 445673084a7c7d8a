"""The wheel ships what an installed service and SDK need."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import tool_environment

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_ships_the_packages_their_markers_and_the_api_document(tmp_path: Path) -> None:
    """The wheel holds sdk, generated and server with py.typed, openapi.yaml inside server, the
    Redis store's Lua, the console's templates and static files, and the API reference's
    templates and assets (Swagger UI's release files with their licence).
    """
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(tmp_path), str(ROOT)],
        env=tool_environment(),
        check=True,
    )
    (wheel,) = tmp_path.glob("spool-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"sdk/py.typed", "generated/py.typed", "server/openapi.yaml"} <= names
    lua = {path.relative_to(ROOT).as_posix() for path in (ROOT / "server").rglob("*.lua")}
    assert lua and lua <= names
    console = ROOT / "server" / "console"
    pages = {
        path.relative_to(ROOT).as_posix()
        for folder in ("templates", "static")
        for path in (console / folder).iterdir()
    }
    assert "server/console/templates/base.html" in pages and pages <= names
    docs = ROOT / "server" / "docs"
    reference = {
        path.relative_to(ROOT).as_posix()
        for folder in ("templates", "assets")
        for path in (docs / folder).rglob("*")
        if path.is_file()
    }
    page = {"server/docs/templates/reference.html", "server/docs/assets/reference.js"}
    swagger_ui = {
        f"server/docs/assets/swagger-ui/{name}"
        for name in ("swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE")
    }
    assert page | swagger_ui <= reference <= names
    assert {"sdk/__init__.py", "generated/client.py", "server/app.py"} <= names
    shipped = zipfile.ZipFile(wheel).read("server/openapi.yaml")
    assert shipped == (ROOT / "openapi.yaml").read_bytes()
