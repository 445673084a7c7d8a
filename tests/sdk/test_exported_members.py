"""The public API is exactly these names: any change to it is a deliberate change here."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

import pytest

import sdk
from tests.conftest import ROOT
from tests.sdk._support import TWINS

PUBLIC_NAMES = [
    "AioHttpClient",
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncClient",
    "AsyncDeadLetters",
    "AsyncFlowControlKeys",
    "AsyncMessages",
    "AsyncPublisher",
    "AsyncQueue",
    "AsyncQueues",
    "AsyncSchedules",
    "AsyncStreams",
    "AsyncUrlGroups",
    "AuthenticationError",
    "BadRequestError",
    "Batching",
    "ClaimResult",
    "Client",
    "Codec",
    "ConfigurationError",
    "ConflictError",
    "DeadLetter",
    "DeadLetterResult",
    "DeadLetters",
    "DeliveredEntry",
    "DeliveryAttempt",
    "Duration",
    "EmbeddedServiceError",
    "Entry",
    "FieldError",
    "FlowControl",
    "FlowControlKeys",
    "FlowControlState",
    "GroupInfo",
    "Health",
    "HttpMethod",
    "InternalServerError",
    "InvalidArgumentError",
    "InvalidDurationError",
    "InvalidNameError",
    "InvalidTopicError",
    "Job",
    "JobAckResult",
    "JobAttempt",
    "JobDestination",
    "JobReceipt",
    "JobReleaseResult",
    "JobRequest",
    "JobState",
    "JsonCodec",
    "LeasedJob",
    "LogEvent",
    "LogState",
    "Message",
    "MessageDestination",
    "MessageOptions",
    "MessageReceipt",
    "MessageRequest",
    "Messages",
    "MessageState",
    "NotFoundError",
    "PayloadTooLargeError",
    "PendingEntry",
    "PermissionDeniedError",
    "Publisher",
    "PublishError",
    "Queue",
    "QueueInfo",
    "Queues",
    "QueueStats",
    "QuotaExceededError",
    "RateLimitError",
    "RawResponse",
    "Receiver",
    "Redact",
    "RequestOptions",
    "ReservedTopicError",
    "Schedule",
    "ScheduleCatchUp",
    "ScheduleOptions",
    "ScheduleRun",
    "ScheduleRunError",
    "Schedules",
    "SignatureError",
    "SignatureFailure",
    "SignatureScheme",
    "SigningKeys",
    "SpoolError",
    "StandardWebhooksSecrets",
    "StoreFullError",
    "Stream",
    "StreamDestination",
    "StreamInfo",
    "Streams",
    "StreamSummary",
    "Timestamp",
    "TokenInfo",
    "TokenPermission",
    "TokenRateLimit",
    "TrimResult",
    "UnprocessableEntityError",
    "UnsupportedMediaTypeError",
    "UrlEndpoint",
    "UrlGroup",
    "UrlGroups",
]


# Public modules of the package, imported by name (`from sdk.flask import ...`), never by `import sdk`.
PUBLIC_MODULES = ["flask", "pytest_plugin", "starlette"]


def test_all_is_the_pinned_public_api() -> None:
    """sdk.__all__ lists exactly the pinned names."""
    assert sdk.__all__ == PUBLIC_NAMES


def test_all_is_sorted_case_insensitively() -> None:
    """One flat, sorted __all__, as httpx keeps it."""
    assert sdk.__all__ == sorted(sdk.__all__, key=str.casefold)


def test_every_public_attribute_is_exported() -> None:
    """Nothing public escapes __all__, and nothing in __all__ is missing.

    A public module shows up as an attribute once something imported it (pytest loads the
    plugin), so modules are pinned on their own below.
    """
    public = {
        name
        for name in dir(sdk)
        if not name.startswith("_") and not isinstance(getattr(sdk, name), types.ModuleType)
    }
    assert public == set(sdk.__all__)


def test_the_public_modules_are_the_pinned_ones() -> None:
    """Every module of sdk/ is private (`_name`) except the pinned adapters and the plugin."""
    modules = sorted(
        path.stem for path in (ROOT / "sdk").glob("*.py") if not path.stem.startswith("_")
    )
    assert modules == PUBLIC_MODULES


def test_exported_classes_belong_to_sdk() -> None:
    """Classes show as sdk.Client, not sdk._client.Client."""
    for name in sdk.__all__:
        member = getattr(sdk, name)
        if isinstance(member, type):
            assert member.__module__ == "sdk", name


def test_importing_the_sdk_loads_neither_the_server_nor_pydantic() -> None:
    """The facade needs only the generated client and httpx; the rest stays unloaded."""
    probe = (
        "import sys, sdk\n"
        "sdk.JsonCodec().encode({'a': 1})\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'server', 'pydantic', 'yaml'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_importing_the_sdk_defers_what_a_first_call_or_answer_needs() -> None:
    """`import sdk` loads neither the generated modules (attrs models), nor asyncio, nor the
    result dataclasses, the embedded service or the worker loop: they load on first use. Nor
    does it load the pytest plugin, the web-framework receivers or any framework.
    """
    deferred = (
        "flask",
        "starlette",
        "fastapi",
        "werkzeug",
        "sdk.flask",
        "sdk.starlette",
        "sdk.pytest_plugin",
        "generated",
        "attr",
        "attrs",
        "asyncio",
        "sdk._types",
        "sdk._embedded",
        "sdk._worker",
        "sdk._worker_handlers",
        "sdk._worker_jobs",
        "sdk._worker_run",
    )
    probe = (
        "import sys, sdk\n"
        f"deferred = {deferred!r}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in deferred or m in deferred))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_the_deferred_results_are_the_result_module() -> None:
    """sdk.__getattr__ serves exactly the classes of sdk/_types.py, as sdk's own."""
    from sdk import _types

    # In a fresh interpreter the names dir(sdk) lists beyond its globals are those it defers.
    probe = "import sdk; print(sorted(set(dir(sdk)) - set(vars(sdk))))"
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == str(sorted(_types.__all__))
    for name in _types.__all__:
        assert getattr(sdk, name) is getattr(_types, name)
        assert getattr(sdk, name).__module__ == "sdk"
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        sdk.Nope  # noqa: B018


# Methods of the async twins that return at once rather than a coroutine: decorators, stop(),
# close_with() and with_options().
NOT_AWAITED = {"close_with", "publish_nowait", "publisher", "stop", "subscribe", "with_options"}

# The async twin's names for the sync twin's: __aenter__ for __enter__, AsyncQueue for Queue, an
# httpx.AsyncClient for an httpx.Client, AsyncTransport for SyncTransport.
_ASYNC_NAMES = re.compile(r"\b(?:Async|Sync)(?=[A-Z])|(?<=__)a(?=enter__|exit__)")


def _unasynced(text: str) -> str:
    return _ASYNC_NAMES.sub("", text)


_SPECIAL = {"__init__", "__enter__", "__exit__", "__aenter__", "__aexit__"}


def _methods(cls: type) -> dict[str, Callable[..., Any]]:
    """The public methods of `cls`, its constructor and its context-manager ones, by sync name."""
    return {
        _unasynced(name): member
        for name, member in inspect.getmembers(cls, callable)
        if not isinstance(member, type) and (not name.startswith("_") or name in _SPECIAL)
    }


def _signatures(method: Callable[..., Any]) -> list[str]:
    """The method's signature and its overloads', with the Async and Sync names taken out."""
    return [
        _unasynced(str(inspect.signature(each))) for each in [method, *typing.get_overloads(method)]
    ]


@pytest.mark.parametrize(("sync", "asynchronous"), TWINS, ids=lambda cls: cls.__name__)
def test_the_twins_have_the_same_methods(sync: type, asynchronous: type) -> None:
    """Every method of the sync class has an async twin, and no other is there."""
    assert sorted(_methods(sync)) == sorted(_methods(asynchronous))


@pytest.mark.parametrize(("sync", "asynchronous"), TWINS, ids=lambda cls: cls.__name__)
def test_the_twins_take_and_return_the_same(sync: type, asynchronous: type) -> None:
    """Each pair of methods has the same parameters, defaults, annotations and overloads, up to
    the Async names; the async one is a coroutine function unless it returns at once.
    """
    async_methods = _methods(asynchronous)
    for name, method in _methods(sync).items():
        twin = async_methods[name]
        assert _signatures(method) == _signatures(twin), name
        assert not inspect.iscoroutinefunction(method), name
        # A listing is iterated (`async for`), not awaited: its twins answer Iterator and
        # AsyncIterator, which the Async names make the same annotation.
        iterated = str(inspect.signature(method).return_annotation).startswith("Iterator[")
        awaited = name not in NOT_AWAITED and name != "__init__" and not iterated
        assert inspect.iscoroutinefunction(twin) == awaited, name
        if not name.startswith("_"):
            assert method.__doc__ and twin.__doc__, name


async def test_the_twin_clients_hold_twin_resources() -> None:
    """`client.streams` and the other resources are the twins of the async client's."""
    client = sdk.Client("http://127.0.0.1:9")
    async_client = sdk.AsyncClient("http://127.0.0.1:9")
    try:
        resources = {name: type(value) for name, value in vars(client).items() if name[0] != "_"}
        async_resources = {
            name: type(value) for name, value in vars(async_client).items() if name[0] != "_"
        }
    finally:
        client.close()
        await async_client.close()
    assert (
        resources.keys()
        == async_resources.keys()
        == {
            "dead_letters",
            "flow_control",
            "messages",
            "queues",
            "schedules",
            "streams",
            "url_groups",
        }
    )
    sync_twin = {asynchronous: sync for sync, asynchronous in TWINS}
    assert resources == {name: sync_twin[cls] for name, cls in async_resources.items()}
