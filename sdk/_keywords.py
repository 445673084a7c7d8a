"""Misspelled keywords refused with the closest right one: `publish(maxln=5)` raises
`TypeError("Client.publish() got an unexpected keyword argument 'maxln'; did you mean
'maxlen'?")` rather than Python's bare message.

`suggests_keywords` wraps a function or method (sync or `async def`) and `suggests_init_keywords`
a class's `__init__`, such as a frozen dataclass's. The wrapped call is made as it is, inside a
`try` that costs nothing until it raises: only a TypeError is looked at, and only one whose call
passed a keyword the function does not take is rewritten, since such a call never reaches the
function's body. A TypeError the body raises passes through untouched.

`takes_request_options` wraps a call taking the per-call request options as
`**options: Unpack[RequestOptions]` (sdk/_config.py), where Python would take any name: it
refuses any other before the call is made, with the same suggestion, and checks the options'
values then, so that a call with nothing to send refuses a bad one too; a call given only
parameters costs one subset test. A request option given to a call that takes none
(`publish_nowait`) is refused saying where such options go.

The wrappers keep the signature (`__wrapped__`) for `inspect.signature`, help() and IDEs, and
their ParamSpec typing keeps it for type checkers.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Collection, Coroutine, Iterable, Mapping
from types import CodeType
from typing import Any, ParamSpec, TypeVar, cast

from ._config import REQUEST_OPTION_NAMES, check_request_options

__all__ = [
    "suggests_init_keywords",
    "suggests_keywords",
    "suggests_option_keywords",
    "takes_request_options",
    "unexpected_keyword",
]

P = ParamSpec("P")
R = TypeVar("R")
ClassT = TypeVar("ClassT", bound=type)

# The receiver of a method, never worth suggesting.
_RECEIVERS = frozenset({"self", "cls"})


def unexpected_keyword(where: str, name: str, known: Iterable[str]) -> TypeError:
    """The TypeError for keyword `name` passed to `where` (`Client.publish`, say), naming the
    closest of the `known` keywords when one is close enough.

    Returns:
        The TypeError to raise, in Python's own words plus `; did you mean '...'?`.
    """
    close = difflib.get_close_matches(name, sorted(set(known) - _RECEIVERS), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    if not close and name in REQUEST_OPTION_NAMES:
        # Such a call shares its requests with others (publish_nowait) or makes none of its own.
        instead = "headers" if name == "extra_headers" else name
        hint = (
            f"; it takes no per-call request options: client.with_options({instead}=...) sets "
            "them for a client"
        )
    return TypeError(f"{where}() got an unexpected keyword argument {name!r}{hint}")


def _parameters(function: Callable[..., Any]) -> tuple[str, ...]:
    """The names `function` takes as keywords, `**options` aside."""
    code: CodeType = inspect.unwrap(function).__code__
    return code.co_varnames[code.co_posonlyargcount : code.co_argcount + code.co_kwonlyargcount]


def _rewritten(
    function: Callable[..., Any],
    args: tuple[object, ...],
    kwargs: Mapping[str, object],
    options: Collection[str],
) -> TypeError | None:
    """The suggesting TypeError for a call of `function` that raised one, or None when the call
    passed only keywords `function` takes (then the error came from elsewhere: its body).
    """
    code: CodeType = inspect.unwrap(function).__code__
    known: Collection[str] = _parameters(function)
    if code.co_flags & inspect.CO_VARKEYWORDS:
        # `**options` takes any name, so the body may have run: only a call that does not bind
        # (a misspelled required keyword, say) is the caller's mistake.
        try:
            inspect.signature(function).bind(*args, **kwargs)
        except TypeError:
            known = {*known, *options}
        else:
            return None
    for name in kwargs:
        if name not in known:
            return unexpected_keyword(function.__qualname__, name, known)
    return None


def _wrapped(
    function: Callable[P, R],
    options: Collection[str],
    *,
    check: Callable[[Any], None] | None = None,
) -> Callable[P, R]:
    """`function` rewriting the TypeError of a misspelled keyword; with `check`, also refusing,
    before the call, any keyword that is neither a parameter nor one of `options`, and handing
    the keywords to `check` whenever one is not a parameter.
    """
    parameters = frozenset(_parameters(function))
    allowed = parameters | frozenset(options)

    def screen(kwargs: Mapping[str, object]) -> None:
        for name in kwargs:
            if name not in allowed:
                raise unexpected_keyword(function.__qualname__, name, allowed)
        assert check is not None
        check(kwargs)

    if inspect.iscoroutinefunction(function):
        coroutine = cast("Callable[..., Coroutine[Any, Any, Any]]", function)

        @functools.wraps(function)
        async def awaited(*args: Any, **kwargs: Any) -> Any:
            # A call given only parameters, the usual one, costs one subset test.
            if check is not None and not kwargs.keys() <= parameters:
                screen(kwargs)
            try:
                running = coroutine(*args, **kwargs)
            except TypeError as error:
                rewritten = _rewritten(function, args, kwargs, options)
                if rewritten is None:
                    raise
                raise rewritten from error
            return await running

        return cast("Callable[P, R]", awaited)

    @functools.wraps(function)
    def called(*args: P.args, **kwargs: P.kwargs) -> R:
        if check is not None and not kwargs.keys() <= parameters:
            screen(kwargs)
        try:
            return function(*args, **kwargs)
        except TypeError as error:
            rewritten = _rewritten(function, args, kwargs, options)
            if rewritten is None:
                raise
            raise rewritten from error

    return called


def suggests_keywords(function: Callable[P, R]) -> Callable[P, R]:
    """`function` (a plain or `async def` function or method) refusing a misspelled keyword
    with the closest right one; see the module's docstring.

    Returns:
        A wrapper with `function`'s signature, docstring and kind (a coroutine function for an
        `async def`).
    """
    return _wrapped(function, ())


def suggests_option_keywords(
    options: Collection[str],
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """`suggests_keywords` for a function taking `**options` (a TypedDict's `options` names),
    which checks those names itself: a call that does not bind, such as one misspelling a
    required keyword, is refused naming the closest parameter or option.

    Returns:
        The decorator.
    """
    names = frozenset(options)
    return lambda function: _wrapped(function, names)


def takes_request_options(function: Callable[P, R]) -> Callable[P, R]:
    """`suggests_keywords` for a call whose `**options` are the RequestOptions (`timeout`,
    `max_retries`, `extra_headers`): any other keyword is refused before the call, naming the
    closest parameter or option, as Python would refuse it without `**options`, and a bad
    option value is a ConfigurationError before the call too (`check_request_options`).

    Returns:
        A wrapper with `function`'s signature, docstring and kind.
    """
    return _wrapped(function, REQUEST_OPTION_NAMES, check=check_request_options)


def suggests_init_keywords(cls: ClassT) -> ClassT:
    """`cls` with its `__init__` wrapped by `suggests_keywords`, so that `cls(...)` refuses a
    misspelled keyword with the closest right one. Apply it above `@dataclass`.

    Returns:
        `cls` itself.
    """
    # Assigned on the class, not on instances: slots and frozen dataclasses allow it.
    cls.__init__ = suggests_keywords(cls.__init__)  # type: ignore[misc]
    return cls
