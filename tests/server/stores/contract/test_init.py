"""``Store`` itself: a backend implements the hooks and the life cycle, and nothing else."""

from __future__ import annotations

import inspect

from server.stores.base import Store
from server.stores.redis import RedisStore
from server.stores.sqlite import SQLiteStore
from tests.server.stores.contract._recording import RecordingStore


def test_every_public_coroutine_has_a_hook_of_its_name() -> None:
    """Each public coroutine of ``Store`` but the life cycle is concrete and has an abstract
    hook, ``_<name>``, with the same positional parameters and every keyword one (a hook may
    take more: the JSON text the contract wrote).
    """
    life_cycle = {"open", "close", "ping"}
    public = {
        name
        for name in dir(Store)
        if not name.startswith("_") and inspect.iscoroutinefunction(getattr(Store, name))
    }
    assert life_cycle <= public
    assert Store.__abstractmethods__ == {f"_{name}" for name in public - life_cycle} | {
        *life_cycle,
        "from_url",
    }
    for name in public - life_cycle:
        method = inspect.signature(getattr(Store, name))
        hook = inspect.signature(getattr(Store, f"_{name}"))
        assert _positional(hook) == _positional(method), name
        assert _keywords(method) <= _keywords(hook), name


def _positional(signature: inspect.Signature) -> list[str]:
    return [p.name for p in signature.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]


def _keywords(signature: inspect.Signature) -> set[str]:
    return {p.name for p in signature.parameters.values() if p.kind is p.KEYWORD_ONLY}


def test_the_backends_keep_the_public_methods_of_the_contract() -> None:
    """Neither backend overrides a checked public method, so none can skip a check."""
    for backend in (SQLiteStore, RedisStore):
        for name in dir(Store):
            if name.startswith("_") or name in {"open", "close", "ping", "from_url"}:
                continue
            assert getattr(backend, name) is getattr(Store, name), (backend.__name__, name)


async def test_the_recording_store_runs_only_the_contract() -> None:
    """The fake backend of these tests records the life cycle too."""
    recording = RecordingStore()
    await recording.store.open()
    await recording.store.ping()
    await recording.store.close()
    assert [name for name, _, _ in recording.calls] == ["open", "ping", "close"]
