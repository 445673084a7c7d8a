"""Retry delay expressions: what compiles, what each kind of refusal says, and the default backoff."""

from __future__ import annotations

import math

import pytest

from server.delivery.retry_delay import (
    DEFAULT_BACKOFF_CAP_MS,
    MAX_DELAY_MS,
    RetryDelayError,
    compile_retry_delay,
    default_backoff_ms,
)


@pytest.mark.parametrize(
    ("expression", "retried", "expected"),
    [
        ("10 * pow(2, retried)", 3, 80.0),
        ("1000", 5, 1000.0),
        ("retried * 500 + 250", 2, 1250.0),
        ("(retried + 1) * 100 - 50", 1, 150.0),
        ("-(-retried) * 10", 4, 40.0),
        ("+retried", 7, 7.0),
        ("1000 / retried", 4, 250.0),
        ("retried % 3 * 100", 5, 200.0),
        ("sqrt(retried) * 1000", 4, 2000.0),
        ("abs(5 - retried) * 10", 7, 20.0),
        ("exp(retried)", 1, math.e),
        ("floor(retried / 2) * 100", 5, 200.0),
        ("ceil(retried / 2) * 100", 5, 300.0),
        ("round(retried * 1.4)", 2, 3.0),
        ("round(retried / 3, 2) * 100", 1, 33.0),
        ("min(1000 * retried, 3000)", 5, 3000.0),
        ("max(100, 10 * retried, 50)", 20, 200.0),
        ("  1.5e3  ", 1, 1500.0),
    ],
)
def test_valid_expressions_evaluate(expression: str, retried: int, expected: float) -> None:
    """Every allowed operator and function computes what its arithmetic says."""
    delay = compile_retry_delay(expression)
    assert delay(retried) == pytest.approx(expected)
    assert isinstance(delay(retried), float)


def test_qstash_example_is_accepted_for_the_retries_it_can_have() -> None:
    """The documented ``1000 * pow(2, retried)`` compiles for a message with a few retries."""
    delay = compile_retry_delay("1000 * pow(2, retried)", max_retried=3)
    assert [delay(retried) for retried in (1, 2, 3)] == [2000.0, 4000.0, 8000.0]
    assert repr(delay) == "RetryDelay('1000 * pow(2, retried)')"


def test_delay_beyond_the_cap_is_refused_for_the_retry_that_reaches_it() -> None:
    """An exponential delay fails only when the message's own retries would exceed 7 days."""
    compile_retry_delay("1000 * pow(2, retried)", max_retried=19)
    with pytest.raises(RetryDelayError, match=r"retried=20.*7 days"):
        compile_retry_delay("1000 * pow(2, retried)", max_retried=20)
    with pytest.raises(RetryDelayError, match="7 days"):
        compile_retry_delay(str(MAX_DELAY_MS + 1))


def test_no_retries_checks_nothing_at_runtime() -> None:
    """With ``max_retried=0`` only the syntax is checked (a message that is never retried)."""
    delay = compile_retry_delay("1 / (retried - retried)", max_retried=0)
    with pytest.raises(RetryDelayError, match="divides by zero"):
        delay(1)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("1" * 257, "at most 256"),
        ("1 +\n2", "one line"),
        ("retried +", "not a valid expression at the end"),
        ("1 +* 2", "not a valid expression at position 4"),
        ("import os", "not a valid expression"),
        ("x + 1", "unknown name 'x' at position 1"),
        ("retried + __builtins__", "unknown name '__builtins__' at position 11"),
        ("__import__('os').system('true')", "only plain function calls"),
        ("__import__('os')", "unknown function '__import__'"),
        ("eval('1')", "unknown function 'eval'"),
        ("(1).real", "attribute access at position 1"),
        ("math.pow(2, 3)", "only plain function calls"),
        ("retried ** 2", r"\*\* \(use pow\(a, b\)\) at position 1"),
        ("retried // 2", "//"),
        ("retried << 2", "<<"),
        ("~retried", "~"),
        ("not retried", "not"),
        ("retried < 2", "a comparison"),
        ("retried and 2", "and/or"),
        ("1 if retried else 2", "a conditional expression"),
        ("[1][0]", "indexing"),
        ("lambda: 1", "a lambda"),
        ("(retried := 3)", "an assignment"),
        ("'1000'", "only numbers"),
        ("True", "only numbers"),
        ("1j", "only numbers"),
        ("pow(2)", r"pow\(\) takes 2 argument\(s\), got 1"),
        ("sqrt(1, 2)", r"sqrt\(\) takes 1 argument\(s\), got 2"),
        ("round(1, 2, 3)", r"round\(\) takes 1-2 argument\(s\)"),
        ("min()", r"min\(\) takes 1 or more"),
        ("abs(x=1)", "no keyword arguments"),
        ("max(*[1, 2])", r"does not take \*arguments"),
    ],
)
def test_disallowed_syntax_is_refused_with_the_reason(expression: str, message: str) -> None:
    """Anything outside the whitelist is a RetryDelayError naming the offending part."""
    with pytest.raises(RetryDelayError, match=message):
        compile_retry_delay(expression)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("pow(10, 1000)", "overflows for retried=1"),
        ("exp(1000 * retried)", "overflows for retried=1"),
        ("pow(2, retried * 100)", "7 days"),
        ("9" * 250, "7 days"),
        ("1e400", "too large"),
        ("1 / (retried - 1)", "divides by zero for retried=1"),
        ("1000 % (retried - 2)", "divides by zero for retried=2"),
        ("sqrt(-retried)", "undefined for retried=1"),
        ("pow(-8, 1 / 3)", "undefined"),
        ("-retried", r"negative \(-1 ms\) for retried=1"),
        ("1000 - retried * 100", "negative .* for retried=11"),
        ("pow(10, 300) * pow(10, 300) - pow(10, 300) * pow(10, 300)", "not a finite number"),
        ("round(2.5, 0.5)", "whole number of digits"),
    ],
)
def test_unusable_values_are_refused_at_compile_time(expression: str, message: str) -> None:
    """Overflow, division by zero, domain errors and out-of-range delays fail when compiled."""
    with pytest.raises(RetryDelayError, match=message):
        compile_retry_delay(expression)


def test_retry_delay_error_is_a_value_error() -> None:
    """Callers that treat bad input as ValueError keep working."""
    with pytest.raises(ValueError, match="unknown name"):
        compile_retry_delay("y")


def test_non_string_and_bad_max_retried_are_refused() -> None:
    """Wrong argument types get a clear error instead of an AttributeError."""
    with pytest.raises(RetryDelayError, match="must be a string"):
        compile_retry_delay(1000)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_retried"):
        compile_retry_delay("1000", max_retried=-1)


def test_default_backoff_doubles_up_to_one_hour_with_full_jitter() -> None:
    """The default backoff's ceiling doubles from 1 s and stops at 1 h; jitter scales it."""
    ceilings = [default_backoff_ms(retried, rng=lambda: 1.0) for retried in range(1, 16)]
    assert ceilings[:4] == [1000.0, 2000.0, 4000.0, 8000.0]
    assert ceilings == sorted(ceilings)
    assert ceilings[-1] == DEFAULT_BACKOFF_CAP_MS
    assert default_backoff_ms(3, rng=lambda: 0.5) == 2000.0
    assert default_backoff_ms(10_000, rng=lambda: 1.0) == DEFAULT_BACKOFF_CAP_MS


def test_default_backoff_stays_within_its_window() -> None:
    """With the real random source every delay lies in [0, ceiling]."""
    for retried in range(1, 25):
        delay = default_backoff_ms(retried)
        assert 0.0 <= delay <= min(DEFAULT_BACKOFF_CAP_MS, 1000.0 * 2 ** (retried - 1))
