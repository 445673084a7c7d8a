"""The independent contract run the README gives: the ``schemathesis`` command, every check, every
phase (examples, coverage, fuzzing, stateful), against a real service on each store, configured
only by the project's ``schemathesis.toml``.

It is the same run a user makes by hand, so it is the one that must find nothing; the examples per
operation are ``$SPOOL_CONTRACT_EXAMPLES`` (``make contract`` asks for 100), fewer in the suite.
The phases run as three tests per store, so that pytest-xdist runs them side by side.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT, ServerProcess, tool_environment

EXAMPLES = int(os.environ.get("SPOOL_CONTRACT_EXAMPLES", 8))
# The suite's run is the same every time, so that CI fails only for a change; `make contract`
# explores with a fresh seed each run (schemathesis prints it, and `--seed` replays it).
SEED = None if "SPOOL_CONTRACT_EXAMPLES" in os.environ else "20261130"
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
# A whole run takes a minute or two at the suite's examples, up to half an hour at 100; the
# suite's per-test limit (pyproject.toml) is for tests that hang, not for this one.
RUN_SECONDS = 1800
# schemathesis runs its phases in order, in one thread: several threads building cases at once
# fail here with "AST constructor recursion depth mismatch" (schemathesis 4.32.5, Python 3.11).
PHASES = ["examples,coverage", "fuzzing", "stateful"]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(RUN_SECONDS + 60)]


def _run_schemathesis(server: ServerProcess, tmp_path: Path, phases: str) -> None:
    environment = {**tool_environment(), "SPOOL_API_KEY": server.token}
    command = [str(SCHEMATHESIS), "run", "openapi.yaml", "--url", server.base_url]
    command += ["--checks", "all", "--max-examples", str(EXAMPLES), "--no-color"]
    command += ["--phases", phases]
    command += ["--report", "junit", "--report-dir", str(tmp_path / "reports")]
    if SEED is not None:
        command += ["--seed", SEED]
    finished = subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=RUN_SECONDS
    )
    # The failures come first, the warnings and the summary last: show both ends.
    failures = finished.stdout.find("FAILURES")
    summary = finished.stdout[max(failures, 0) :][:8000] + "\n...\n" + finished.stdout[-2000:]
    assert finished.returncode == 0, summary


@pytest.mark.parametrize("phases", PHASES)
def test_schemathesis_finds_nothing_on_sqlite(
    spool_server: Callable[..., ServerProcess], tmp_path: Path, phases: str
) -> None:
    """On the embedded store, in development mode (the default destination policy)."""
    server = spool_server(f"sqlite:///{tmp_path}/contract.db")
    _run_schemathesis(server, tmp_path, phases)


@pytest.mark.redis
@pytest.mark.parametrize("phases", PHASES)
def test_schemathesis_finds_nothing_on_redis(
    spool_server: Callable[..., ServerProcess], redis_store_url: str, tmp_path: Path, phases: str
) -> None:
    """On Redis, with a token that holds every permission."""
    everything = [{"resource": "*", "name": "*", "actions": ["publish", "consume", "admin"]}]
    config = {"tokens": [{"id": "contract", "token": "contract-token", "permissions": everything}]}
    server = spool_server(redis_store_url, config=config)
    _run_schemathesis(server, tmp_path, phases)
