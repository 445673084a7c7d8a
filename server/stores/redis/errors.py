"""How the Redis store reports what goes wrong: a script's refusal, a refused argument, an outage,
and a Redis out of memory.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import ParamSpec, TypeVar

from redis.exceptions import (
    ClusterDownError,
    ConnectionError as RedisConnectionError,
    OutOfMemoryError,
    RedisClusterException,
    RedisError,
    ResponseError,
    SlotNotCoveredError,
    TimeoutError as RedisTimeoutError,
    TryAgainError,
)

from ..base import (
    ConflictError,
    NotFoundError,
    Store,
    StoreError,
    StoreFullError,
    StoreUnavailableError,
)

__all__ = [
    "DETAILS",
    "is_out_of_memory",
    "outages_raise_unavailable",
    "redis_errors",
    "script_code",
    "script_failure",
    "store_error",
]

_T = TypeVar("_T")
_P = ParamSpec("_P")
_Class = TypeVar("_Class", bound=type[Store])

_NOT_FOUND_CODES = frozenset(
    {
        "stream_not_found",
        "group_not_found",
        "queue_not_found",
        "job_not_found",
        "message_not_found",
        "url_group_not_found",
        "dead_letter_not_found",
        "idempotency_record_not_found",
    }
)
_CONFLICT_CODES = frozenset({"conflict", "group_exists", "lease_expired", "invalid_state"})
_SCRIPT_ERROR_PREFIX = "SPOOL "
# What Redis says when over ``maxmemory`` (after its ``OOM`` error code, which redis-py's own
# OutOfMemoryError strips, but which a script's error text keeps when passed on as it is).
_OOM_MARKER = "command not allowed when used memory > 'maxmemory'"

DETAILS: dict[str, str] = {
    "stream_not_found": "stream {stream!r} does not exist",
    "group_not_found": "consumer group {group!r} does not exist on stream {stream!r}",
    "group_exists": "consumer group {group!r} already exists on stream {stream!r}",
    "queue_not_found": "queue {queue!r} does not exist",
    "job_not_found": "job {job_id!r} does not exist in queue {queue!r}",
    "lease_expired": "lease {lease_id!r} of job {job_id!r} has ended or belongs to another worker",
    "message_lease_expired": "lease {lease_id!r} is not the current lease of message "
    "{message_id!r}: another claim replaced it, or its attempt was already recorded",
    "message_not_found": "message {message_id!r} does not exist",
    "url_group_not_found": "URL group {url_group!r} does not exist",
    "dead_letter_not_found": "message {message_id!r} is not a dead letter",
    "conflict": "the idempotency key was already used for another request",
    "idempotency_record_not_found": "no live record of this idempotency key to replay",
}

# What Redis answers when a caller's argument (not the store) is wrong.
_ARGUMENT_ERROR_MARKERS = (
    "Invalid stream ID",
    "not an integer",
    "not a float",
    "syntax error",
    "equal or smaller than",
)


def store_error(code: str, detail: str) -> StoreError:
    """The typed store error for ``code``."""
    if code in _NOT_FOUND_CODES:
        return NotFoundError(code, detail)
    if code in _CONFLICT_CODES:
        return ConflictError(code, detail)
    return StoreError(code, detail)


def script_code(exc: ResponseError) -> str | None:
    """The code of a script's ``SPOOL <code> [<word>]`` error; None for any other error."""
    text = str(exc)
    if not text.startswith(_SCRIPT_ERROR_PREFIX):
        return None
    return text[len(_SCRIPT_ERROR_PREFIX) :].split(" ", 1)[0]


def script_failure(
    exc: ResponseError | UnicodeEncodeError, details: Mapping[str, str]
) -> Exception:
    """What a failed script raises instead of ``exc``: the typed store error of its
    ``SPOOL <code> [<word>]`` refusal or of an argument Redis refused, else ``exc`` itself.

    A function the script runner calls in its ``except``, not a context manager around every
    script, which cost a generator per publish.
    """
    if isinstance(exc, UnicodeEncodeError):
        return store_error("validation_failed", f"text that is not valid UTF-8: {exc}")
    code = script_code(exc)
    if code is not None:
        return _script_error(code, exc, details)
    if _is_argument_error(exc):
        return store_error("validation_failed", _refusal(exc))
    return exc


def _script_error(code: str, exc: ResponseError, details: Mapping[str, str]) -> StoreError:
    if code == "invalid_state":
        # The script names the state it found after the code; ``state_rule`` says what it needs.
        state = str(exc)[len(_SCRIPT_ERROR_PREFIX) :].split(" ")[1]
        subject = (
            f"job {details['job_id']!r}"
            if "job_id" in details
            else f"message {details.get('message_id')!r}"
        )
        return store_error(code, f"{subject} is {state}; {details.get('state_rule', '')}")
    if code == "lease_expired" and "message_id" in details:
        return store_error(code, DETAILS["message_lease_expired"].format(**details))
    return store_error(code, DETAILS.get(code, code).format(**details))


@contextlib.contextmanager
def redis_errors() -> Iterator[None]:
    """Turn Redis refusing an argument (an invalid id, say) into a typed store error."""
    try:
        yield
    except ResponseError as exc:
        if _is_argument_error(exc):
            raise store_error("validation_failed", _refusal(exc)) from exc
        raise
    except UnicodeEncodeError as exc:
        raise store_error("validation_failed", f"text that is not valid UTF-8: {exc}") from exc


def _refusal(exc: ResponseError) -> str:
    """What Redis said, without the script or pipeline details redis-py and Redis wrap it in."""
    text = str(exc).split(" script: ", 1)[0]
    if "of pipeline caused error: " in text:
        text = text.split("of pipeline caused error: ", 1)[1].strip("(),'\"")
    return f"Redis refused an argument: {text}"


def _is_argument_error(exc: ResponseError) -> bool:
    # Subclasses (READONLY, NOPERM, …) are the server's state, never the caller's input.
    return type(exc) is ResponseError and any(
        marker in str(exc) for marker in _ARGUMENT_ERROR_MARKERS
    )


def _unavailable_on_outage(method: Callable[_P, Awaitable[_T]]) -> Callable[_P, Awaitable[_T]]:
    @functools.wraps(method)
    async def call(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return await method(*args, **kwargs)
        except (RedisError, RedisClusterException) as exc:
            if is_out_of_memory(exc):
                raise StoreFullError(
                    f"Redis is out of memory (maxmemory reached) and refused the write: {exc}"
                ) from exc
            if not _is_outage(exc):
                raise
            # redis-py names the host and port it tried, never the password of the URL.
            raise StoreUnavailableError(f"Redis does not answer: {exc}") from exc

    return call


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether Redis refused a command for ``maxmemory``: its ``-OOM`` answer to a command, to a
    script's write, or to a command queued in a MULTI, whose EXEC it then aborts (redis-py raises
    the command's error from the ``ExecAbortError``).

    Redis refuses before writing anything: a command whole, a script at its first write that could
    grow memory (a script that has written anything goes on to its end, over the limit), and a
    MULTI whole, as every command queued in one while over ``maxmemory`` is refused, reads too.
    """
    return any(
        isinstance(error, OutOfMemoryError)
        or (isinstance(error, ResponseError) and _OOM_MARKER in str(error))
        for error in (exc, exc.__cause__)
        if error is not None
    )


def _is_outage(exc: RedisError | RedisClusterException) -> bool:
    """A lost, refused or timed-out connection, or a cluster that cannot serve a slot now (down,
    or still moving the slot after the client's retries).
    """
    lost = (RedisConnectionError, RedisTimeoutError)
    if isinstance(exc, (*lost, ClusterDownError, SlotNotCoveredError, TryAgainError)):
        return True
    # A cluster client that reaches none of its startup nodes wraps the connection's error.
    return isinstance(exc, RedisClusterException) and isinstance(exc.__cause__, lost)


def outages_raise_unavailable(store_class: _Class) -> _Class:
    """Make every hook and public coroutine method of ``store_class`` raise
    ``StoreUnavailableError`` for a refused, lost or timed-out connection, wherever in the method
    it happens.

    The methods are those ``store_class`` and its bases below ``Store`` define (the store is
    composed of one class per resource): the hooks ``Store``'s public methods call (``_append``,
    …), which are all that reaches Redis, and any public coroutine (``open``, ``close``, …).
    ``Store``'s own methods only check arguments and call a hook, so they are left as they are.
    """
    hooks = {
        name
        for name in Store.__abstractmethods__
        if inspect.iscoroutinefunction(getattr(Store, name))
    }
    own_classes = [klass for klass in store_class.__mro__ if klass not in Store.__mro__]
    members: dict[str, object] = {}
    for klass in reversed(own_classes):
        members.update(vars(klass))
    for name, member in members.items():
        if (name in hooks or not name.startswith("_")) and inspect.iscoroutinefunction(member):
            setattr(store_class, name, _unavailable_on_outage(member))
    return store_class
