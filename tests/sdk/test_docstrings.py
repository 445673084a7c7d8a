"""The SDK's public classes, functions and methods say what they return and what they raise.

Walked: every name of `sdk.__all__` whose module is in DOCUMENTED, and the whole `__all__` of
the modules people import or get objects from by name (ENTRY_POINTS: the framework adapters and
the pytest plugin) and of the machinery behind the clients (INTERNALS: what the resources send,
the batching and the worker loop, whose docstrings are where the next change to them starts).
Each class and each public method (and `__call__`) must have a docstring of its own, and one
that returns something (its annotation is not None) a `Returns:` section, or `Yields:` for a
fixture or generator; the errors go in a `Raises:` section, which no test can hold to the code.
The lists grow as more modules are written to this standard.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

import sdk

DOCUMENTED = (
    "sdk._async_client",
    "sdk._batching",
    "sdk._client",
    "sdk._dead_letters",
    "sdk._embedded",
    "sdk._exceptions",
    "sdk._message_calls",
    "sdk._message_listing",
    "sdk._message_options",
    "sdk._message_reading",
    "sdk._messages",
    "sdk._pages",
    "sdk._publisher",
    "sdk._pytest_async",
    "sdk._pytest_receiver",
    "sdk._pytest_service",
    "sdk._queue_calls",
    "sdk._queues",
    "sdk._receiver",
    "sdk._response",
    "sdk._schedules",
    "sdk._stream",
    "sdk._stream_calls",
    "sdk._streams",
    "sdk._url_groups",
    "sdk._web",
    "sdk._worker",
    "sdk._worker_run",
    "sdk.flask",
    "sdk.pytest_plugin",
    "sdk.starlette",
)
ENTRY_POINTS = (
    "sdk.flask",
    "sdk.starlette",
    "sdk.pytest_plugin",
    "sdk._pytest_async",
    "sdk._pytest_receiver",
    "sdk._pytest_service",
)
INTERNALS = (
    "sdk._batching",
    "sdk._queue_calls",
    "sdk._worker",
    "sdk._worker_run",
)
# Public although they start with an underscore.
_SPECIAL = frozenset({"__call__"})
_RESULT_SECTIONS = ("Returns:", "Yields:")


def _modules(names: tuple[str, ...]) -> list[ModuleType]:
    return [importlib.import_module(name) for name in names]


def _public_members() -> Iterator[tuple[str, object]]:
    """(qualified name, member) of every class and function walked."""
    documented = _modules(DOCUMENTED)
    for name in sdk.__all__:
        member = getattr(sdk, name)
        if any(
            name in getattr(module, "__all__", ()) and getattr(module, name) is member
            for module in documented
        ):
            yield f"sdk.{name}", member
    for module in _modules(ENTRY_POINTS + INTERNALS):
        for name in module.__all__:
            yield f"{module.__name__}.{name}", getattr(module, name)


def _function(member: object) -> Callable[..., Any] | None:
    """The function behind a method, a fixture or a function; None for anything else."""
    raw = member.__func__ if isinstance(member, classmethod | staticmethod) else member
    unwrapped = inspect.unwrap(raw) if callable(raw) else raw
    return unwrapped if inspect.isfunction(unwrapped) else None


def _own_methods(cls: type) -> Iterator[tuple[str, object]]:
    """The public methods and properties of `cls` (inherited ones too) that the SDK wrote."""
    for name in dir(cls):
        if name.startswith("_") and name not in _SPECIAL:
            continue
        member = inspect.getattr_static(cls, name)
        function = member.fget if isinstance(member, property) else _function(member)
        if function is not None and function.__module__.startswith("sdk"):
            yield name, member


def _problems(qualified: str, member: object) -> list[str]:
    """What is missing from the docstring of `member`: nothing, or one line per gap."""
    if isinstance(member, property):
        return [] if member.__doc__ else [f"{qualified}: no docstring"]
    function = _function(member)
    doc = inspect.getdoc(member) if function is None else (member.__doc__ or function.__doc__)
    if not doc:
        return [f"{qualified}: no docstring"]
    if function is None:
        return []
    returned = inspect.signature(function).return_annotation
    if returned in (None, "None", inspect.Signature.empty):
        return []
    if not any(section in doc for section in _RESULT_SECTIONS):
        return [f"{qualified}: returns {returned} but has no Returns: (or Yields:) section"]
    return []


def _all_problems() -> list[str]:
    found: list[str] = []
    for qualified, member in _public_members():
        if isinstance(member, type):
            # A class's docstring is its own: a dataclass without one gets its signature.
            own = member.__dict__.get("__doc__")
            if not own or own.startswith(f"{member.__name__}("):
                found.append(f"{qualified}: no docstring")
            for name, method in _own_methods(member):
                found += _problems(f"{qualified}.{name}", method)
        elif _function(member) is not None:
            found += _problems(qualified, member)
    return found


def test_every_public_member_says_what_it_returns() -> None:
    """Docstrings everywhere, and a Returns: section wherever something is returned."""
    problems = _all_problems()
    assert not problems, "\n".join(problems)


def test_the_walk_reaches_the_documented_api() -> None:
    """The walk finds the clients, the resources, their methods, the plugin's fixtures and the
    worker loop, and only the modules listed.
    """
    walked = dict(_public_members())
    for name in (
        "sdk.Client",
        "sdk.AsyncClient",
        "sdk.Streams",
        "sdk.AsyncMessages",
        "sdk.Queue",
        "sdk.Receiver",
        "sdk.NotFoundError",
        "sdk._queue_calls.QueueCalls",
        "sdk._worker.SyncWorker",
        "sdk._worker_run.RunOptions",
        "sdk._batching.SyncCoalescer",
    ):
        assert name in walked, name
    assert "sdk.AioHttpClient" not in walked
    assert "sdk.pytest_plugin.spool_client" in walked
    methods = dict(_own_methods(sdk.Streams))
    assert {"publish", "list", "claim"} <= set(methods)


@pytest.mark.parametrize(
    ("doc", "gap"),
    [
        (None, "no docstring"),
        ("The answer.", "no Returns:"),
        ("The answer.\n\nReturns:\n    42.", None),
    ],
)
def test_a_gap_is_reported(doc: str | None, gap: str | None) -> None:
    """The check itself: a missing docstring, or a missing Returns: section, is named."""

    def answer() -> int:
        return 42

    answer.__doc__ = doc
    problems = _problems("answer", answer)
    if gap is None:
        assert problems == []
    else:
        [problem] = problems
        assert gap in problem
