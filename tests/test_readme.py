"""The README's Python examples run: every ```python block, in order, in one fresh interpreter.

Blocks are self-contained programs (an example that needs a service starts its own with
`sdk.Client.embedded()`); they share one namespace only because they run in one process. A failure
points at the README line it happened on.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow

README = ROOT / "README.md"
# A block opens with ```python (nothing else on the line) and ends at the next line that is ```.
_PYTHON_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)

# Line offsets make tracebacks name the README's own line numbers.
_RUNNER = """
import json, sys
namespace = {"__name__": "__main__"}
for first_line, source in json.load(sys.stdin):
    exec(compile("\\n" * (first_line - 1) + source, sys.argv[1], "exec"), namespace)
"""


def python_blocks(markdown: str) -> list[tuple[int, str]]:
    """Every ```python block with the line number its code starts on, in document order."""
    return [
        (markdown.count("\n", 0, block.start(1)) + 1, block.group(1))
        for block in _PYTHON_BLOCK.finditer(markdown)
    ]


def run_python_blocks(path: Path, *, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the blocks of the Markdown file `path` in a fresh interpreter working in `cwd`."""
    blocks = python_blocks(path.read_text(encoding="utf-8"))
    # The developer's own service settings must not leak into examples that start their own.
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")}
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), environment.get("PYTHONPATH")])
    )
    return subprocess.run(
        [sys.executable, "-c", _RUNNER, path.name],
        input=json.dumps(blocks),
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_python_block_of_the_readme_runs(tmp_path: Path) -> None:
    """The README's examples run as written, top to bottom, against embedded services."""
    if not python_blocks(README.read_text(encoding="utf-8")):
        pytest.skip("README.md has no ```python blocks")
    result = run_python_blocks(README, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_blocks_are_found_in_order_with_their_line_numbers() -> None:
    """Only python fences count; each keeps its code and the line the code starts on."""
    markdown = (
        "# Title\n"
        "```console\n$ make demo\n```\n"
        "```python\nimport sdk\n```\n"
        "text\n"
        "```python\nx = 1\ny = 2\n```\n"
        "```pycon\n>>> 1\n```\n"
    )
    assert python_blocks(markdown) == [(6, "import sdk\n"), (10, "x = 1\ny = 2\n")]


def test_a_failing_block_names_its_readme_line(tmp_path: Path) -> None:
    """A traceback points at the Markdown file and the line of the failing statement."""
    document = tmp_path / "EXAMPLE.md"
    document.write_text("# Example\n\n```python\nvalue = 1\nraise RuntimeError(value)\n```\n")
    result = run_python_blocks(document, cwd=tmp_path)
    assert result.returncode != 0
    assert 'File "EXAMPLE.md", line 5' in result.stderr
    assert "RuntimeError: 1" in result.stderr
