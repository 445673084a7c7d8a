"""Exit codes by class of error, and the one-line message each failure prints."""

from __future__ import annotations

import enum

import click

import sdk

__all__ = ["CliError", "ExitCode", "exit_code_for", "failure"]


class ExitCode(enum.IntEnum):
    """What `spool` exits with; the README's "Command line" section lists the same table."""

    OK = 0
    FAILED = 1  # an API error with no code of its own, a bad signature, a load with failures
    USAGE = 2  # bad arguments, input the service refuses (400, 413, 422), configuration, a missing extra
    NOT_FOUND = 3
    CONFLICT = 4
    DENIED = 5  # 401 and 403: no key, an unknown key, or not allowed
    RATE_LIMITED = 6  # 429: rate limited or quota used up
    UNREACHABLE = 7  # no answer: connection refused or reset, or a timeout
    INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT


class CliError(click.ClickException):
    """A failure to report on stderr as one line, exiting with `code`."""

    def __init__(self, message: str, *, code: ExitCode) -> None:
        super().__init__(message)
        # click declares exit_code a class variable, and reads it from the instance.
        setattr(self, "exit_code", int(code))  # noqa: B010


def exit_code_for(error: BaseException) -> ExitCode:
    """The exit code of an SDK error; a PublishError is judged by its cause."""
    if isinstance(error, sdk.PublishError) and error.__cause__ is not None:
        return exit_code_for(error.__cause__)
    if isinstance(error, sdk.NotFoundError):
        return ExitCode.NOT_FOUND
    if isinstance(error, sdk.ConflictError):
        return ExitCode.CONFLICT
    if isinstance(error, sdk.AuthenticationError | sdk.PermissionDeniedError):
        return ExitCode.DENIED
    if isinstance(error, sdk.RateLimitError | sdk.QuotaExceededError):
        return ExitCode.RATE_LIMITED
    if isinstance(error, sdk.APIConnectionError):
        return ExitCode.UNREACHABLE
    if isinstance(
        error, sdk.BadRequestError | sdk.PayloadTooLargeError | sdk.UnprocessableEntityError
    ):
        return ExitCode.USAGE
    if isinstance(error, ValueError | TypeError):
        # ConfigurationError and InvalidArgumentError are ValueErrors: the command line was wrong.
        return ExitCode.USAGE
    return ExitCode.FAILED


def failure(error: BaseException) -> CliError:
    """The CliError that reports `error`: its message and its exit code."""
    return CliError(str(error) or type(error).__name__, code=exit_code_for(error))
