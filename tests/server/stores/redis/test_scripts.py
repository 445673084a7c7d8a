"""The Redis store's Lua: composed from the package's files as the store loads them, and loaded."""

from __future__ import annotations

import importlib.resources
import re
from pathlib import Path

import pytest
import redis

from server.stores.redis import RedisStore
from server.stores.redis.scripts import SCRIPTS, script_names, script_parts, script_text
from tests.server.stores._support import script_sha

LUA = Path(
    str(importlib.resources.files("server.stores.redis").joinpath("lua"))
)  # A key or argument a script reads by its position, outside the line that names it.
_POSITIONAL = re.compile(r"\b(KEYS|ARGV)\[\d+\]")


def test_every_script_file_is_a_script() -> None:
    """Each ``lua/*.lua`` is one script, by its file name (``lua/lib/`` holds the libraries)."""
    assert script_names() == sorted(path.stem for path in LUA.glob("*.lua"))
    assert SCRIPTS.keys() == set(script_names())


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_a_script_is_its_libraries_then_itself(name: str) -> None:
    """The text Redis runs is the libraries the ``-- uses:`` line names, in order, then the file."""
    text = (LUA / f"{name}.lua").read_text(encoding="utf-8")
    uses = text.splitlines()[0].removeprefix("-- uses: ").split(", ")
    libraries = [(LUA / "lib" / f"{library}.lua").read_text(encoding="utf-8") for library in uses]
    assert script_text(name) == SCRIPTS[name] == "".join(libraries) + text
    assert [path for path, _ in script_parts(name)] == [f"lib/{u}.lua" for u in uses] + [
        f"{name}.lua"
    ]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_a_script_names_its_keys_and_arguments_before_it_reads_them(name: str) -> None:
    """The header names KEYS and ARGV; the code reads them by position only where it binds them."""
    lines = (LUA / f"{name}.lua").read_text(encoding="utf-8").splitlines()
    header = [line for line in lines[1:] if line.startswith("--")]
    assert header[0].startswith("-- KEYS["), name
    assert any("ARGV[" in line for line in header), name
    for line in lines:
        if _POSITIONAL.search(line) and not line.startswith("--"):
            assert line.startswith("local "), f"{name}.lua reads {line!r} by position"


def test_a_script_without_its_uses_line_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script must name its libraries on its first line, even when it needs none."""
    (tmp_path / "bare.lua").write_text("return 1\n", encoding="utf-8")
    monkeypatch.setattr("server.stores.redis.scripts._LUA", tmp_path)
    with pytest.raises(RuntimeError, match=r"lua/bare\.lua does not start with"):
        script_parts("bare")


@pytest.mark.redis
async def test_opening_the_store_loads_every_script_into_redis(
    redis_store_url: str, redis_url: str
) -> None:
    """``open`` registers every composed script and Redis holds each one by its SHA."""
    store = RedisStore.from_url(redis_store_url)
    await store.open()
    try:
        client = redis.Redis.from_url(redis_url)
        try:
            shas = [script_sha(name) for name in sorted(SCRIPTS)]
            assert client.script_exists(*shas) == [True] * len(shas)
        finally:
            client.close()
    finally:
        await store.close()
