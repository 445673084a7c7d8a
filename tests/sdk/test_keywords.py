"""Misspelled keywords (sdk/_keywords.py): every publish callable, sync and async, constructors
included, refuses one with the closest right keyword, and the wrappers change nothing else.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Unpack

import pytest

import sdk
from sdk import _arguments
from sdk._config import RequestOptions
from sdk._keywords import (
    suggests_init_keywords,
    suggests_keywords,
    takes_request_options,
    unexpected_keyword,
)

# A publish callable is a method by one of these names, or the constructor of a class that one
# of them names in its parameters' annotations or of a request object (sdk/_arguments.py).
_PUBLISHING = re.compile(r"publish(?:_\w+|er)?|batch")
# What a call needs besides the misspelled keyword to reach the check, by parameter name: only a
# function taking `**options` checks its keywords in its body.
_REQUIRED = {"body": "x"}


def _public_classes() -> Iterator[type]:
    for name in sdk.__all__:
        value = getattr(sdk, name)
        if isinstance(value, type):
            yield value


def _publish_methods() -> Iterator[tuple[type, str]]:
    for cls in _public_classes():
        for name, _ in inspect.getmembers(cls, inspect.isfunction):
            if _PUBLISHING.fullmatch(name):
                yield cls, name


def _request_classes() -> set[type]:
    """The public dataclasses the publishes take: those their annotations name, and the request
    objects of sdk/_arguments.py.
    """
    dataclass_names = {
        cls.__name__: cls for cls in _public_classes() if dataclasses.is_dataclass(cls)
    }
    found = {dataclass_names[name] for name in _arguments.__all__ if name in dataclass_names}
    for cls, name in _publish_methods():
        for parameter in inspect.signature(getattr(cls, name)).parameters.values():
            for word in re.findall(r"\w+", str(parameter.annotation)):
                if word in dataclass_names:
                    found.add(dataclass_names[word])
    return found


def _typo(name: str) -> str:
    """`name` with two letters swapped, or its last one dropped when that changes nothing."""
    middle = len(name) // 2
    swapped = name[: middle - 1] + name[middle] + name[middle - 1] + name[middle + 1 :]
    return swapped if swapped != name else name[:-1]


def _keywords(function: Callable[..., Any]) -> list[str]:
    """The keywords a user may misspell: the named parameters and, for `**options`, the keys of
    its TypedDict.
    """
    names: list[str] = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            if parameter.name not in ("self", "cls"):
                names.append(parameter.name)
        elif parameter.kind is parameter.VAR_KEYWORD:
            typed = re.fullmatch(r"Unpack\[(\w+)\]", str(parameter.annotation))
            assert typed is not None, f"{function.__qualname__}: **{parameter.name} is untyped"
            names.extend(getattr(sdk, typed[1]).__annotations__)
    return names


def _takes_any_keyword(function: Callable[..., Any]) -> bool:
    return any(
        parameter.kind is parameter.VAR_KEYWORD
        for parameter in inspect.signature(function).parameters.values()
    )


@pytest.fixture
async def instances() -> AsyncIterator[dict[type, object]]:
    """A real instance of each resource class the clients hold (`client.messages`, ...), for
    the methods that check their keywords in their body; no request is made.
    """
    found: dict[type, object] = {}
    with sdk.Client("http://127.0.0.1:9", "token") as client:
        async with sdk.AsyncClient("http://127.0.0.1:9", "token") as aclient:
            for resource in [*vars(client).items(), *vars(aclient).items()]:
                if not resource[0].startswith("_"):
                    found[type(resource[1])] = resource[1]
            yield found


_METHODS = sorted(_publish_methods(), key=lambda pair: (pair[0].__name__, pair[1]))
_CLASSES = sorted(_request_classes(), key=lambda cls: cls.__name__)


def test_the_publish_callables_are_found() -> None:
    """The discovery finds every kind of publish, so a rename cannot empty the tests below."""
    found = {f"{cls.__name__}.{name}" for cls, name in _METHODS}
    assert {
        "Client.publish",
        "Client.publish_many",
        "Client.publish_nowait",
        "Client.publisher",
        "AsyncClient.publish",
        "Streams.publish_nowait",
        "AsyncQueue.publish_many",
        "Queue.publish",
        "Messages.publish_json",
        "AsyncMessages.batch",
        "Publisher.publish",
        "AsyncPublisher.publish",
    } <= found
    assert {sdk.Stream, sdk.JobRequest, sdk.MessageRequest, sdk.UrlEndpoint} <= set(_CLASSES)


@pytest.mark.parametrize(
    ("cls", "name"), _METHODS, ids=[f"{cls.__name__}.{name}" for cls, name in _METHODS]
)
async def test_every_publish_method_suggests_the_keyword_meant(
    cls: type, name: str, instances: dict[type, object]
) -> None:
    """Each keyword misspelled is a TypeError naming it; sync and async, before any request."""
    function = getattr(cls, name)
    keywords = _keywords(function)
    assert keywords, f"{cls.__name__}.{name} takes no keywords"
    receiver = instances.get(cls, object()) if _takes_any_keyword(function) else object()
    for keyword in keywords:
        typo = _typo(keyword)
        assert typo not in keywords
        arguments: dict[str, Any] = {typo: 1}
        if _takes_any_keyword(function):
            arguments.update({k: v for k, v in _REQUIRED.items() if k in keywords and k != keyword})
        message = f"unexpected keyword argument {typo!r}; did you mean {keyword!r}?"
        with pytest.raises(TypeError, match=re.escape(message)):
            result = function(receiver, **arguments)
            if inspect.isawaitable(result):
                await result


@pytest.mark.parametrize("cls", _CLASSES, ids=lambda cls: cls.__name__)
def test_every_request_object_suggests_the_field_meant(cls: type) -> None:
    """`sdk.Stream("s", maxln=5)` and its kind name the field meant."""
    for keyword in _keywords(cls):
        typo = _typo(keyword)
        message = f"{cls.__name__}.__init__() got an unexpected keyword argument {typo!r}; "
        with pytest.raises(TypeError, match=re.escape(f"{message}did you mean {keyword!r}?")):
            cls(**{typo: 1})


def test_the_message_names_the_method_as_python_does() -> None:
    """The whole message, for a client method and a request object."""
    client = sdk.Client("http://127.0.0.1:9", "token")
    with pytest.raises(TypeError) as raised:
        client.publish("events", {}, maxln=5)  # type: ignore[call-arg]
    assert str(raised.value) == (
        "Client.publish() got an unexpected keyword argument 'maxln'; did you mean 'maxlen'?"
    )
    with pytest.raises(TypeError) as raised:
        sdk.JobRequest("welcome", {}, dealy=5)  # type: ignore[call-arg]
    assert str(raised.value) == (
        "JobRequest.__init__() got an unexpected keyword argument 'dealy'; did you mean 'delay'?"
    )


class _Publishing:
    @suggests_keywords
    def publish(self, body: Any, *, maxlen: int | None = None) -> Any:
        """Publish `body`."""
        if body == "raise":
            raise TypeError(f"the body raised, maxln={maxlen}")
        return body, maxlen

    @suggests_keywords
    async def apublish(self, body: Any, *, maxlen: int | None = None) -> Any:
        """Publish `body` asynchronously."""
        return body, maxlen


async def test_a_right_call_is_unchanged_and_keeps_its_signature() -> None:
    """The wrappers return what the function returns and show its signature, docstring and
    kind: a coroutine function stays one.
    """
    publishing = _Publishing()
    assert publishing.publish("b", maxlen=3) == ("b", 3)
    assert await publishing.apublish("b", maxlen=3) == ("b", 3)
    assert str(inspect.signature(_Publishing.publish)) == (
        "(self, body: 'Any', *, maxlen: 'int | None' = None) -> 'Any'"
    )
    assert _Publishing.publish.__doc__ == "Publish `body`."
    assert inspect.iscoroutinefunction(_Publishing.apublish)
    assert not inspect.iscoroutinefunction(_Publishing.publish)
    assert str(inspect.signature(sdk.Stream)) == (
        "(name: 'str', *, group: 'str | None' = None, maxlen: 'int | None' = None, "
        "codec: 'Codec | None' = None) -> None"
    )


def test_a_type_error_of_the_body_or_of_a_missing_argument_is_left_alone() -> None:
    """Only a keyword the function does not take is rewritten: the body's own TypeError, and
    Python's for a missing argument, pass through as they are.
    """
    publishing = _Publishing()
    with pytest.raises(TypeError, match=r"^the body raised, maxln=None$"):
        publishing.publish("raise")
    with pytest.raises(TypeError, match=r"missing 1 required positional argument: 'body'$"):
        publishing.publish()  # type: ignore[call-arg]


async def test_a_keyword_close_to_none_gets_no_suggestion() -> None:
    """Nothing close: Python's words alone, with the original error as the cause."""
    publishing = _Publishing()
    with pytest.raises(TypeError) as raised:
        await publishing.apublish("b", colour="red")  # type: ignore[call-arg]
    assert str(raised.value) == "_Publishing.apublish() got an unexpected keyword argument 'colour'"
    assert isinstance(raised.value.__cause__, TypeError)


def test_a_wrapped_dataclass_still_builds_compares_and_replaces() -> None:
    """The class decorator wraps `__init__` only: a frozen, slotted dataclass works as before."""

    @suggests_init_keywords
    @dataclasses.dataclass(frozen=True, slots=True)
    class Point:
        x: int
        y: int = 0

    point = Point(1, y=2)
    assert point == Point(x=1, y=2)
    assert dataclasses.replace(point, y=3) == Point(1, 3)
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'z'$"):
        Point(1, z=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"did you mean 'y'\?"):
        dataclasses.replace(point, yy=3)  # type: ignore[call-arg]


def test_unexpected_keyword_leaves_the_receiver_out() -> None:
    """`self` is never suggested, however close."""
    error = unexpected_keyword("Thing.call", "slf", ["self", "count"])
    assert str(error) == "Thing.call() got an unexpected keyword argument 'slf'"


class _Calling:
    def __init__(self) -> None:
        self.ran: list[dict[str, Any]] = []

    @takes_request_options
    def info(self, name: str, *, count: int = 1, **options: Unpack[RequestOptions]) -> str:
        """Look `name` up."""
        self.ran.append(dict(options))
        return name

    @takes_request_options
    async def ainfo(self, name: str, **options: Unpack[RequestOptions]) -> str:
        """Look `name` up asynchronously."""
        self.ran.append(dict(options))
        return name


async def test_a_call_taking_request_options_refuses_any_other_name_before_it_runs() -> None:
    """`**options` would take any name: a parameter or a request option goes through, anything
    else is refused with the closest of both, and the body never runs.
    """
    calling = _Calling()
    assert calling.info("a", count=2, timeout=3, extra_headers={}) == "a"
    assert await calling.ainfo("b", max_retries=0) == "b"
    assert calling.ran == [{"timeout": 3, "extra_headers": {}}, {"max_retries": 0}]
    with pytest.raises(TypeError, match=r"'cont'; did you mean 'count'\?$"):
        calling.info("a", cont=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"'max_retry'; did you mean 'max_retries'\?$"):
        await calling.ainfo("a", max_retry=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"missing 1 required positional argument: 'name'$"):
        calling.info()  # type: ignore[call-arg]
    assert len(calling.ran) == 2
    assert str(inspect.signature(_Calling.info)) == (
        "(self, name: 'str', *, count: 'int' = 1, **options: 'Unpack[RequestOptions]') -> 'str'"
    )
    assert inspect.iscoroutinefunction(_Calling.ainfo)


def test_a_request_option_where_none_is_taken_says_where_it_goes() -> None:
    """Nothing close to suggest, but the name is a request option: the client takes it."""
    error = unexpected_keyword("Queue.publish_nowait", "timeout", ["topic", "payload", "delay"])
    assert str(error) == (
        "Queue.publish_nowait() got an unexpected keyword argument 'timeout'; it takes no "
        "per-call request options: client.with_options(timeout=...) sets them for a client"
    )
    error = unexpected_keyword("Queue.publish_nowait", "extra_headers", ["topic", "payload"])
    assert str(error).endswith("client.with_options(headers=...) sets them for a client")
