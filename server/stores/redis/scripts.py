"""The Redis store's Lua scripts, read from the package's ``lua/`` directory.

Each script is a file in ``lua/`` (its KEYS and ARGV named at its top), whose first line names the
libraries of ``lua/lib/`` it is run with, in order: ``-- uses: common, idempotency, trim``. Redis
runs the libraries' text followed by the script's as one script.
"""

from __future__ import annotations

import importlib.resources
import re

__all__ = ["SCRIPTS", "script_names", "script_parts", "script_text"]

_LUA = importlib.resources.files(__package__).joinpath("lua")
_USES = re.compile(r"\A-- uses: ([\w, ]+)\n")


def script_names() -> list[str]:
    """The name of every script (its file name without ``.lua``), sorted."""
    return sorted(
        entry.name.removesuffix(".lua") for entry in _LUA.iterdir() if entry.name.endswith(".lua")
    )


def script_parts(name: str) -> list[tuple[str, str]]:
    """What the script ``name`` is made of, in order: each library it uses, then itself, each as
    its path under ``lua/`` and its text.
    """
    path = f"{name}.lua"
    text = _LUA.joinpath(path).read_text(encoding="utf-8")
    uses = _USES.match(text)
    if uses is None:
        raise RuntimeError(f"lua/{path} does not start with its '-- uses: ...' line")
    libraries = [f"{library.strip()}.lua" for library in uses.group(1).split(",")]
    parts = [
        (f"lib/{library}", _LUA.joinpath("lib", library).read_text(encoding="utf-8"))
        for library in libraries
    ]
    return [*parts, (path, text)]


def script_text(name: str) -> str:
    """The script ``name`` as Redis runs it: its libraries' text, then its own."""
    return "".join(text for _, text in script_parts(name))


SCRIPTS: dict[str, str] = {name: script_text(name) for name in script_names()}
