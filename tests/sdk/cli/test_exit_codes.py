"""The README's table of exit statuses holds: each status it lists, produced by a real `spool` run.

The table is found by its form, not its place: the markdown table whose rows start with a status
and that has a `| 130 |` row. Every status in it must be one of `ExitCode` and have a scenario
here, so a status added to either side without the other fails.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from dataclasses import dataclass

import pytest

import sdk
from sdk._cli._errors import ExitCode
from tests.e2e._support import closed_port_url
from tests.sdk.cli._support import ROOT, Spool, read_line, spool_process

_INTERRUPTED = 130
_FOLLOW_TIMEOUT = 15.0
# Over the service's 1 MiB limit on a request body.
_TOO_LARGE_BODY = json.dumps({"blob": "x" * (1024 * 1024 + 1)})
_EVERYTHING = [{"resource": "*", "name": "*", "actions": ["publish", "consume", "admin"]}]


def readme_exit_statuses() -> dict[int, str]:
    """Status -> meaning, as the README's exit-status table gives them."""
    tables: list[list[list[str]]] = [[]]
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if text.startswith("|") and text.endswith("|"):
            tables[-1].append([cell.strip() for cell in text[1:-1].split("|")])
        elif tables[-1]:
            tables.append([])
    for rows in tables:
        statuses = {int(cells[0]): cells[1] for cells in rows if cells[0].isdigit()}
        if _INTERRUPTED in statuses:
            return statuses
    raise AssertionError("README.md has no exit-status table (a markdown table with a 130 row)")


@dataclass(frozen=True)
class Run:
    """What a scenario may use: the in-process runner, and pytest's fixtures on demand."""

    spool: Spool
    request: pytest.FixtureRequest

    def fixture(self, name: str) -> object:
        return self.request.getfixturevalue(name)


def _done(run: Run) -> int:
    return run.spool("health").exit_code


def _bad_signature(run: Run) -> int:
    return run.spool(
        "verify", "--key", "k", "--url", "https://example.com/hook", "not.a.jwt", input=b"{}"
    ).exit_code


def _bad_arguments(run: Run) -> int:
    return run.spool("tail", "events", "--lines", "0").exit_code


def _refused_input(run: Run) -> int:
    return run.spool("publish", str(run.fixture("name")), "-", input=_TOO_LARGE_BODY).exit_code


def _not_found(run: Run) -> int:
    return run.spool("tail", str(run.fixture("name"))).exit_code


def _conflict(run: Run) -> int:
    client = run.fixture("client")
    assert isinstance(client, sdk.Client)
    receipt = client.messages.publish_json(url="http://localhost:8000/x", body={}, delay="1h")
    client.messages.cancel(receipt.message_id)
    return run.spool("messages", "cancel", receipt.message_id).exit_code


def _not_authenticated(run: Run) -> int:
    return run.spool("streams", "info", str(run.fixture("name")), "--api-key", "wrong").exit_code


def _quota_used_up(run: Run) -> int:
    start = run.fixture("spool_server")
    assert callable(start)
    token = {"id": "none-left", "token": "none-left", "quota": 0, "permissions": _EVERYTHING}
    server = start(run.fixture("sqlite_store_url"), config={"tokens": [token]})
    return run.spool(
        "publish", "events", "{}", "--base-url", server.base_url, "--api-key", server.token
    ).exit_code


def _no_answer(run: Run) -> int:
    return run.spool("health", "--base-url", closed_port_url()).exit_code


def _ctrl_c(run: Run) -> int:
    client = run.fixture("client")
    assert isinstance(client, sdk.Client)
    name = str(run.fixture("name"))
    client.publish(name, {"n": 1})
    environment = run.fixture("environment")
    assert isinstance(environment, dict)
    process = spool_process("tail", name, "-f", "--json", environment=environment)
    try:
        # Once the entry is printed the tail is following, past start-up.
        assert json.loads(read_line(process, timeout=_FOLLOW_TIMEOUT))["body"] == {"n": 1}
        process.send_signal(signal.SIGINT)
        return process.wait(timeout=_FOLLOW_TIMEOUT)
    finally:
        process.kill()
        process.communicate()


# How each status comes about: one run per kind of cause the README's row names.
_SCENARIOS: dict[int, tuple[Callable[[Run], int], ...]] = {
    ExitCode.OK: (_done,),
    ExitCode.FAILED: (_bad_signature,),
    ExitCode.USAGE: (_bad_arguments, _refused_input),
    ExitCode.NOT_FOUND: (_not_found,),
    ExitCode.CONFLICT: (_conflict,),
    ExitCode.DENIED: (_not_authenticated,),
    ExitCode.RATE_LIMITED: (_quota_used_up,),
    ExitCode.UNREACHABLE: (_no_answer,),
    ExitCode.INTERRUPTED: (_ctrl_c,),
}


def test_the_table_lists_every_exit_code() -> None:
    """The README names each status the CLI may exit with, and no other."""
    assert sorted(readme_exit_statuses()) == sorted(code.value for code in ExitCode)


@pytest.mark.parametrize("status", sorted(readme_exit_statuses()))
def test_each_status_in_the_table_is_what_the_cli_exits_with(
    status: int, spool: Spool, request: pytest.FixtureRequest
) -> None:
    """Every cause a row gives, brought about for real, ends `spool` with that row's status."""
    assert status in _SCENARIOS, f"no scenario for exit status {status}"
    run = Run(spool, request)
    for scenario in _SCENARIOS[status]:
        assert scenario(run) == status, scenario.__name__
