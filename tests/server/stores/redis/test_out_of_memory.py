"""Which Redis errors are a Redis out of memory: the ones the store answers as ``store_full``."""

from __future__ import annotations

import pytest
from redis.exceptions import ExecAbortError, OutOfMemoryError, ResponseError

from server.stores.redis.errors import is_out_of_memory

_OOM_TEXT = "command not allowed when used memory > 'maxmemory'."


def _raised_from(error: Exception, cause: Exception) -> Exception:
    try:
        raise error from cause
    except Exception as raised:
        return raised


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(OutOfMemoryError(_OOM_TEXT), id="command"),
        pytest.param(
            OutOfMemoryError(f"{_OOM_TEXT} script: 1f0e, on @user_script:59."), id="script"
        ),
        pytest.param(
            _raised_from(OutOfMemoryError(_OOM_TEXT), ExecAbortError("Transaction discarded")),
            id="multi",
        ),
        pytest.param(ResponseError(f"OOM {_OOM_TEXT}"), id="passed-on-by-a-script"),
        pytest.param(
            _raised_from(ResponseError("Error running script"), OutOfMemoryError(_OOM_TEXT)),
            id="wrapped",
        ),
    ],
)
def test_redis_out_of_memory_is_recognised(error: Exception) -> None:
    """Redis's -OOM answer, however redis-py raises it."""
    assert is_out_of_memory(error)


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(
            ExecAbortError("Transaction discarded because of previous errors."), id="abort"
        ),
        pytest.param(ResponseError("WRONGTYPE Operation against a key"), id="wrongtype"),
        pytest.param(ResponseError("SPOOL stream_not_found"), id="script-refusal"),
    ],
)
def test_other_errors_are_not_out_of_memory(error: Exception) -> None:
    """A MULTI aborted for another reason, or any other refusal, stays what it was."""
    assert not is_out_of_memory(error)
