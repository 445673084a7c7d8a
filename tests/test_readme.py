"""The README's Python examples run and print what it says: every ```python block, in order, in
one fresh interpreter.

Blocks are self-contained programs (an example that needs a service starts its own with
`sdk.Client.embedded()`); they share one namespace only because they run in one process. A
```text block right after a ```python block (blank lines between at most) is what that block
prints, compared as doctest compares, `...` standing for any text; a block with no such output
block must print nothing. A failure points at the README line it happened on. A block that
defines `test_` functions (the pytest plugin's example) is also run by pytest as a test file.
"""

from __future__ import annotations

import dataclasses
import doctest
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
# A block opens with ```python (nothing else on the line) and ends at the next line that is ```;
# a ```text block that follows it with only blank lines between is its output.
_PYTHON_BLOCK = re.compile(
    r"^```python[ \t]*\n(?P<code>.*?)^```[ \t]*$"
    r"(?:\n(?:[ \t]*\n)*```text[ \t]*\n(?P<output>.*?)^```[ \t]*$)?",
    re.MULTILINE | re.DOTALL,
)
# A block that defines test functions is a pytest file, as the pytest plugin's example is.
_TEST_FILE = re.compile(r"^def (test_\w+)\(", re.MULTILINE)
_CHECKER = doctest.OutputChecker()
_OPTIONS = doctest.ELLIPSIS

# Line offsets make tracebacks name the README's own line numbers. What each block prints is
# written to the file named second, as a JSON list, even when a block fails.
_RUNNER = """
import contextlib, io, json, sys
namespace = {"__name__": "__main__"}
printed = []
try:
    for first_line, source in json.load(sys.stdin):
        with contextlib.redirect_stdout(io.StringIO()) as output:
            try:
                exec(compile("\\n" * (first_line - 1) + source, sys.argv[1], "exec"), namespace)
            finally:
                printed.append(output.getvalue())
finally:
    with open(sys.argv[2], "w", encoding="utf-8") as file:
        json.dump(printed, file)
"""


@dataclasses.dataclass(frozen=True)
class Block:
    """One ```python block: the line its code starts on, the code, and what it should print."""

    first_line: int
    code: str
    output: str = ""


@dataclasses.dataclass(frozen=True)
class Run:
    """What running a document's blocks gave: the process's result and each block's output."""

    result: subprocess.CompletedProcess[str]
    printed: list[str]


def _environment() -> dict[str, str]:
    """The environment the examples run in, importing this checkout's packages first."""
    # The developer's own service settings must not leak into examples that start their own.
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")}
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), environment.get("PYTHONPATH")])
    )
    return environment


def python_blocks(markdown: str) -> list[Block]:
    """Every ```python block with the line number its code starts on, in document order."""
    return [
        Block(
            first_line=markdown.count("\n", 0, block.start("code")) + 1,
            code=block.group("code"),
            output=block.group("output") or "",
        )
        for block in _PYTHON_BLOCK.finditer(markdown)
    ]


def run_python_blocks(path: Path, *, cwd: Path) -> Run:
    """Run the blocks of the Markdown file `path` in a fresh interpreter working in `cwd`."""
    blocks = python_blocks(path.read_text(encoding="utf-8"))
    printed_file = cwd / "printed.json"
    result = subprocess.run(
        [sys.executable, "-c", _RUNNER, path.name, str(printed_file)],
        input=json.dumps([(block.first_line, block.code) for block in blocks]),
        cwd=cwd,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    printed = json.loads(printed_file.read_text(encoding="utf-8")) if printed_file.exists() else []
    return Run(result=result, printed=printed)


def mismatches(path: Path, blocks: list[Block], printed: list[str]) -> list[str]:
    """A report for each block whose printed text is not its output block's."""
    return [
        f"{path.name}, block at line {block.first_line}:\n"
        + _CHECKER.output_difference(doctest.Example("", block.output), got, _OPTIONS)
        for block, got in zip(blocks, printed, strict=False)
        if not _CHECKER.check_output(block.output, got, _OPTIONS)
    ]


def test_every_python_block_of_the_readme_runs_and_prints_its_output(tmp_path: Path) -> None:
    """The README's examples run as written, top to bottom, against embedded services, and print
    exactly what the README shows after each.
    """
    blocks = python_blocks(README.read_text(encoding="utf-8"))
    if not blocks:
        pytest.skip("README.md has no ```python blocks")
    run = run_python_blocks(README, cwd=tmp_path)
    assert run.result.returncode == 0, run.result.stdout + run.result.stderr
    assert len(run.printed) == len(blocks)
    reports = mismatches(README, blocks, run.printed)
    assert not reports, "\n".join(reports)


def test_the_readme_test_files_pass_under_pytest(tmp_path: Path) -> None:
    """The blocks that are pytest test files (they define `test_` functions) pass when pytest runs
    them, with the plugin as an installed Spool loads it and no conftest of their own.
    """
    files = [
        block
        for block in python_blocks(README.read_text(encoding="utf-8"))
        if _TEST_FILE.search(block.code)
    ]
    if not files:
        pytest.skip("README.md has no test files")
    for number, block in enumerate(files):
        (tmp_path / f"test_readme_{number}.py").write_text(block.code, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    test_count = sum(len(_TEST_FILE.findall(block.code)) for block in files)
    assert f"{test_count} passed" in result.stdout, result.stdout


def test_blocks_are_found_in_order_with_their_line_numbers_and_outputs() -> None:
    """Only python fences count; each keeps its code, the line the code starts on, and the text
    block right after it as its output.
    """
    markdown = (
        "# Title\n"
        "```console\n$ make demo\n```\n"
        "```python\nimport sdk\n```\n"
        "text\n"
        "```python\nx = 1\nprint(x)\n```\n"
        "\n"
        "```text\n1\n```\n"
        "```pycon\n>>> 1\n```\n"
        "```python\ny = 2\n```\n"
        "between\n"
        "```text\nnot an output\n```\n"
    )
    assert python_blocks(markdown) == [
        Block(6, "import sdk\n"),
        Block(10, "x = 1\nprint(x)\n", "1\n"),
        Block(21, "y = 2\n"),
    ]


def test_printed_text_is_compared_with_ellipses(tmp_path: Path) -> None:
    """`...` stands for any text; a block without an output block must print nothing."""
    document = tmp_path / "EXAMPLE.md"
    document.write_text(
        "```python\nprint('id', 1793095014218)\n```\n\n```text\nid ...\n```\n"
        "```python\nprint('audit', 4, 0)\n```\n```text\naudit 3 0\n```\n"
        "```python\nprint('unexpected')\n```\n"
    )
    blocks = python_blocks(document.read_text())
    run = run_python_blocks(document, cwd=tmp_path)
    assert run.result.returncode == 0, run.result.stderr
    reports = mismatches(document, blocks, run.printed)
    assert len(reports) == 2
    assert reports[0].startswith("EXAMPLE.md, block at line 9:")
    assert "audit 3 0" in reports[0] and "audit 4 0" in reports[0]
    assert reports[1].startswith("EXAMPLE.md, block at line 15:") and "unexpected" in reports[1]


def test_a_failing_block_names_its_readme_line(tmp_path: Path) -> None:
    """A traceback points at the Markdown file and the line of the failing statement; what the
    blocks printed before it is kept.
    """
    document = tmp_path / "EXAMPLE.md"
    document.write_text(
        "# Example\n\n```python\nvalue = 1\nprint(value)\nraise RuntimeError(value)\n```\n"
    )
    run = run_python_blocks(document, cwd=tmp_path)
    assert run.result.returncode != 0
    assert 'File "EXAMPLE.md", line 6' in run.result.stderr
    assert "RuntimeError: 1" in run.result.stderr
    assert run.printed == ["1\n"]
