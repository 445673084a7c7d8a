"""The suite's shared helpers in tests/conftest.py."""

from __future__ import annotations

import sys

import coverage
import pytest

from tests.conftest import tool_environment


def test_a_test_is_traced_when_coverage_is_on() -> None:
    """Nothing in the harness pauses coverage: every test runs under pytest-cov's measurement."""
    if coverage.Coverage.current() is None:
        pytest.skip("coverage is off in this run")
    assert sys.gettrace() is not None


def test_a_tools_environment_leaves_out_coverages_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A tool the tests run keeps the environment but for the variables that would start coverage
    in it.
    """
    monkeypatch.setenv("COVERAGE_PROCESS_CONFIG", "{}")
    monkeypatch.setenv("SPOOL_HARNESS_PROBE", "kept")
    environment = tool_environment()
    assert not any(name.startswith("COVERAGE_") for name in environment)
    assert environment["SPOOL_HARNESS_PROBE"] == "kept"
