"""mypy --strict fails on the facade when openapi.yaml renames a field the facade sends or reads.

The facade is typed against the generated models end to end (sdk/_http.py's `make_call`), so a
rename in the spec, once generated, is a type error where sdk/ uses the old name. Each test
renames fields in a copy of the checkout, regenerates it with .ci/generate and runs mypy there;
the real openapi.yaml and generated/ are never touched.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, tool_environment
from tests.generated._spec import YAML_DUMPER, YAML_LOADER

pytestmark = pytest.mark.slow

# One field of a response the facade reads (Client.publish returns it) and one of a request it
# builds (publish's trim options).
RESPONSE_RENAME = ("AppendEntryResult", "id", "entry_id")
REQUEST_RENAME = ("AppendEntryRequest", "maxlen", "max_len")


def _checkout_copy(tmp_path: Path) -> Path:
    """What generation and mypy read: the spec, the generator's settings, sdk/ and pyproject."""
    copy = tmp_path / "checkout"
    copy.mkdir()
    shutil.copytree(ROOT / ".ci", copy / ".ci")
    shutil.copytree(ROOT / "sdk", copy / "sdk", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("openapi.yaml", ".openapi-python-client.yaml", "pyproject.toml"):
        shutil.copy2(ROOT / name, copy / name)
    return copy


def _rename_field(node: Any, old: str, new: str) -> Any:
    """`node` (a schema) with the field `old` called `new` wherever the schema names it: as a
    property and in `required` lists, nested ones (cross-field rules) included.
    """
    if isinstance(node, list):
        return [_rename_field(item, old, new) for item in node]
    if not isinstance(node, dict):
        return node
    renamed = {}
    for key, value in node.items():
        if key == "properties":
            value = {new if name == old else name: schema for name, schema in value.items()}
        elif key == "required" and isinstance(value, list):
            value = [new if name == old else name for name in value]
        renamed[key] = _rename_field(value, old, new)
    return renamed


def _rename_in_spec(checkout: Path, *renames: tuple[str, str, str]) -> None:
    spec_path = checkout / "openapi.yaml"
    spec = yaml.load(spec_path.read_text(encoding="utf-8"), Loader=YAML_LOADER)
    schemas = spec["components"]["schemas"]
    for schema, old, new in renames:
        assert old in schemas[schema]["properties"], f"{schema} has no field {old!r} any more"
        schemas[schema] = _rename_field(schemas[schema], old, new)
    # Written back through YAML: a spec that is loaded and dumped unchanged generates exactly
    # the committed generated/, so the renames are the only difference.
    text = yaml.dump(spec, Dumper=YAML_DUMPER, sort_keys=False, allow_unicode=True)
    spec_path.write_text(text, "utf-8")


def _generate_and_type_check(checkout: Path, mypy_cache: Path) -> subprocess.CompletedProcess[str]:
    """Regenerate generated/ in `checkout` as `make generate` does, then mypy --strict its sdk/."""
    tools = str(Path(sys.executable).parent)
    environment = {
        name: value
        for name, value in tool_environment().items()
        # Either would put the real checkout's generated/ ahead of the copy's.
        if name not in {"MYPYPATH", "PYTHONPATH"}
    }
    environment["PATH"] = f"{tools}{os.pathsep}{os.environ.get('PATH', '')}"
    subprocess.run(
        [str(checkout / ".ci" / "generate")],
        env=environment,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            "pyproject.toml",
            "--cache-dir",
            str(mypy_cache),
            "sdk",
        ],
        cwd=checkout,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_unmodified_spec_type_checks(tmp_path: Path, mypy_cache: Path) -> None:
    """The same copy, generation and mypy run pass when nothing is renamed."""
    checkout = _checkout_copy(tmp_path)
    _rename_in_spec(checkout)
    result = _generate_and_type_check(checkout, mypy_cache)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_renamed_field_fails_type_checking_where_the_facade_uses_it(
    tmp_path: Path, mypy_cache: Path
) -> None:
    """mypy names the facade's files, the generated model and the old field, and nothing else."""
    checkout = _checkout_copy(tmp_path)
    _rename_in_spec(checkout, RESPONSE_RENAME, REQUEST_RENAME)
    generated = checkout / "generated" / "models"
    result = _generate_and_type_check(checkout, mypy_cache)
    assert "entry_id: str" in (generated / "append_entry_result.py").read_text("utf-8")
    assert "max_len: int | Unset" in (generated / "append_entry_request.py").read_text("utf-8")

    assert result.returncode == 1, result.stdout + result.stderr
    expected = [
        r'sdk/_stream_calls\.py:\d+: error: "AppendEntryResult" has no attribute "id"',
        r'sdk/_stream_calls\.py:\d+: error: Unexpected keyword argument "maxlen" for '
        r'"AppendEntryRequest"; did you mean "max_len"\?',
        # A schedule's stream destination is an AppendEntryRequest too.
        r'sdk/_schedules\.py:\d+: error: Unexpected keyword argument "maxlen" for '
        r'"AppendEntryRequest"; did you mean "max_len"\?',
        r'sdk/_schedules\.py:\d+: error: "AppendEntryRequest" has no attribute "maxlen"; '
        r'maybe "max_len"\?',
    ]
    errors = [line for line in result.stdout.splitlines() if ": error: " in line]
    for pattern in expected:
        assert any(re.match(pattern, line) for line in errors), (pattern, result.stdout)
    unrelated = [line for line in errors if not any(re.match(p, line) for p in expected)]
    assert unrelated == [], result.stdout
