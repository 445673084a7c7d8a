"""demo.py (`make demo`) runs by itself, exits 0 and prints each step of the tour."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow


def test_the_demo_runs_the_whole_tour() -> None:
    """Streams, queues, a verified HTTP delivery and a PublishError, then exit code 0."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SPOOL_")}
    result = subprocess.run(
        [sys.executable, str(ROOT / "demo.py")],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    output = result.stdout
    assert re.search(
        r"published 12 signups to 'signups' \(maxlen=5, exact\); last id \d+-\d+", output
    )
    assert "stream length: 5" in output
    assert "init_queue('emails') before creating it: NotFoundError (queue_not_found)" in output
    assert output.count("worker: sending the welcome email to") == 3
    assert "left in the queue: 0 ready, 0 leased, 0 dead" in output
    assert "endpoint: got {'hello': 'world'} at /hooks/signup: signature verified" in output
    assert "the service recorded: delivered, attempts answered [200]" in output
    assert "PublishError: could not publish to signups: could not connect to" in output
    assert "__cause__: APIConnectionError" in output
    assert "Stopped the embedded service." in output
