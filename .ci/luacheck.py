"""Lint the Redis store's Lua with luacheck, each script composed with its libraries exactly as the
store loads it, so a script is checked against the libraries it names and no others.

A library's top-level definitions are there for the scripts that use them, so one a script leaves
unused is no warning; a library none of whose definitions a script uses is (but every script
starts from lib/common.lua). Warnings point at the library or script file they are in. Exits 1 on
any warning, 2 without luacheck.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from server.stores.redis.scripts import script_names, script_parts  # noqa: E402

LUA = "server/stores/redis/lua"
_WARNING = re.compile(
    r"^(?P<file>[^:]+):(?P<line>\d+):(?P<column>\d+): \((?P<code>[EW]\d+)\) (?P<message>.*)$"
)
_TOP_LEVEL_LOCAL = re.compile(r"^local (?:function (\w+)|([\w, ]+?) =)")
_UNUSED = frozenset({"W211", "W231"})
# Every script is composed from lib/common.lua first, whether or not it fails or formats numbers.
_BASELINE = "lib/common.lua"


@dataclass(frozen=True)
class _Part:
    """One library or script inside a composed script: its path, first line and lines."""

    path: str
    first_line: int
    lines: list[str]

    def definitions(self) -> set[str]:
        """The names this part defines at its top level."""
        names: set[str] = set()
        for line in self.lines:
            match = _TOP_LEVEL_LOCAL.match(line)
            if match:
                names.update(name.strip() for name in (match[1] or match[2]).split(","))
        return names


def _compose(name: str, directory: Path) -> list[_Part]:
    """Write the script ``name`` as the store runs it into ``directory``; answer its parts."""
    parts, line, texts = [], 1, []
    for path, text in script_parts(name):
        parts.append(_Part(path, line, text.splitlines()))
        line += text.count("\n")
        texts.append(text)
    (directory / f"{name}.lua").write_text("".join(texts), encoding="utf-8")
    return parts


def _warnings(output: str, composed: dict[str, list[_Part]]) -> list[str]:
    """luacheck's warnings at the file and line they are in, each once, and the libraries a
    script uses none of.
    """
    found_in: dict[str, list[str]] = {}
    unused: dict[tuple[str, str], set[str]] = {}
    for row in output.splitlines():
        found = _WARNING.match(row)
        if found is None:
            found_in.setdefault(row, [])
            continue
        script, line = found["file"], int(found["line"])
        part = next(part for part in reversed(composed[script]) if part.first_line <= line)
        number = line - part.first_line + 1
        if (
            part.path != script
            and found["code"] in _UNUSED
            and _TOP_LEVEL_LOCAL.match(part.lines[number - 1])
        ):
            unused.setdefault((script, part.path), set()).add(found["message"].split("'")[1])
            continue
        warning = (
            f"{LUA}/{part.path}:{number}:{found['column']}: ({found['code']}) {found['message']}"
        )
        found_in.setdefault(warning, []).append(script)
    warnings = []
    for warning, scripts in found_in.items():
        if scripts and not warning.startswith(f"{LUA}/{scripts[0]}:"):
            more = f" and {len(scripts) - 3} more" if len(scripts) > 3 else ""
            warning += f" (in {', '.join(scripts[:3])}{more})"
        warnings.append(warning)
    for script, parts in composed.items():
        for part in parts[:-1]:
            if part.path != _BASELINE and part.definitions() <= unused.get(
                (script, part.path), set()
            ):
                warnings.append(f"{LUA}/{script}: uses {part.path} but none of its definitions")
    return sorted(warnings)


def main() -> int:
    """Lint every script; print each warning once."""
    if shutil.which("luacheck") is None:
        print("luacheck is missing: apt-get install lua-check", file=sys.stderr)  # noqa: T201
        return 2
    with tempfile.TemporaryDirectory() as directory:
        composed = {f"{name}.lua": _compose(name, Path(directory)) for name in script_names()}
        checked = subprocess.run(
            ["luacheck", "--config", str(ROOT / ".luacheckrc"), "--formatter", "plain"]
            + ["--codes", "--no-color", *sorted(composed)],
            cwd=directory,
            capture_output=True,
            text=True,
            check=False,
        )
    if checked.returncode > 1 and not checked.stdout:
        print(checked.stderr, file=sys.stderr)  # noqa: T201
        return checked.returncode
    warnings = _warnings(checked.stdout, composed)
    for warning in warnings:
        print(warning)  # noqa: T201
    print(f"luacheck: {len(composed)} scripts checked, warnings: {len(warnings)}")  # noqa: T201
    return 1 if warnings else 0


if __name__ == "__main__":
    sys.exit(main())
