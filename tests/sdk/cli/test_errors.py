"""Exit codes by class of SDK error."""

from __future__ import annotations

import pytest

import sdk
from sdk._cli._errors import ExitCode, exit_code_for, failure


def _status(cls: type[sdk.APIStatusError], status: int) -> sdk.APIStatusError:
    return cls(f"{status} problem", status_code=status)


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (_status(sdk.NotFoundError, 404), ExitCode.NOT_FOUND),
        (_status(sdk.ConflictError, 409), ExitCode.CONFLICT),
        (_status(sdk.AuthenticationError, 401), ExitCode.DENIED),
        (_status(sdk.PermissionDeniedError, 403), ExitCode.DENIED),
        (_status(sdk.RateLimitError, 429), ExitCode.RATE_LIMITED),
        (_status(sdk.QuotaExceededError, 429), ExitCode.RATE_LIMITED),
        (_status(sdk.BadRequestError, 400), ExitCode.USAGE),
        (_status(sdk.PayloadTooLargeError, 413), ExitCode.USAGE),
        (_status(sdk.UnprocessableEntityError, 422), ExitCode.USAGE),
        (_status(sdk.InternalServerError, 500), ExitCode.FAILED),
        (sdk.APIConnectionError("refused"), ExitCode.UNREACHABLE),
        (sdk.APITimeoutError("slow"), ExitCode.UNREACHABLE),
        (sdk.ConfigurationError("no base URL"), ExitCode.USAGE),
        (sdk.InvalidNameError("bad name"), ExitCode.USAGE),
        (sdk.SignatureError("no", reason="expired"), ExitCode.FAILED),
    ],
)
def test_each_error_class_has_its_code(error: BaseException, code: ExitCode) -> None:
    """The table in the README and in `spool --help`."""
    assert exit_code_for(error) is code


def test_a_publish_error_is_judged_by_its_cause() -> None:
    """PublishError wraps the real reason; the exit code follows the reason."""
    error = sdk.PublishError("events", "not found")
    error.__cause__ = _status(sdk.NotFoundError, 404)
    assert exit_code_for(error) is ExitCode.NOT_FOUND
    assert exit_code_for(sdk.PublishError("events", "no cause")) is ExitCode.FAILED


def test_failure_carries_the_message_and_the_code() -> None:
    """What click prints, and what the process exits with."""
    reported = failure(_status(sdk.ConflictError, 409))
    assert (reported.message, reported.exit_code) == ("409 problem", 4)
