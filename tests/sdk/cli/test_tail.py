"""`spool tail`: the last entries, following new ones, and reading through a consumer group."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import sdk
from tests.sdk.cli._support import Spool, json_lines, read_line, spool_process

_FOLLOW_TIMEOUT = 15.0


def _read_line(process: subprocess.Popen[str]) -> str:
    return read_line(process, timeout=_FOLLOW_TIMEOUT)


def test_prints_the_last_n_entries_oldest_first(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """-n N prints the newest N, in the order they were appended."""
    client.publish_many(name, [{"n": n} for n in range(5)])
    result = spool("tail", name, "-n", "3", "--json")
    assert result.exit_code == 0, result.output
    assert [line["body"] for line in json_lines(result)] == [{"n": 2}, {"n": 3}, {"n": 4}]
    assert {line["stream"] for line in json_lines(result)} == {name}
    human = spool("tail", name, "-n", "1")
    assert '{"n": 4}' in human.stdout


def test_a_missing_stream_exits_not_found(spool: Spool, name: str) -> None:
    """Without -f there is nothing to wait for: exit 3."""
    result = spool("tail", name)
    assert result.exit_code == 3
    assert "stream_not_found" in result.stderr


def test_follow_prints_new_entries_until_ctrl_c(
    client: sdk.Client, environment: dict[str, str], name: str
) -> None:
    """-f prints what is there, then each entry appended later; SIGINT ends it with status 130,
    as it ends every command, and quietly: Ctrl-C is how a follow ends, not an error.
    """
    client.publish(name, {"n": "old"})
    process = spool_process("tail", name, "-f", "--json", environment=environment)
    try:
        assert json.loads(_read_line(process))["body"] == {"n": "old"}
        entry_id = client.publish(name, {"n": "new"})
        line = json.loads(_read_line(process))
        assert (line["id"], line["body"]) == (entry_id, {"n": "new"})
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=_FOLLOW_TIMEOUT) == 130
        _, stderr = process.communicate()
        assert stderr == ""
    finally:
        process.kill()
        process.communicate()


def test_group_reads_once_and_acknowledges(spool: Spool, client: sdk.Client, name: str) -> None:
    """--group creates the group where --start-id says and acknowledges what it printed, so a
    second read gets only newer entries and nothing stays pending.
    """
    client.publish_many(name, [{"n": 1}, {"n": 2}])
    first = spool("tail", name, "--group", "audit", "--consumer", "c1", "--start-id", "0", "--json")
    assert [line["body"] for line in json_lines(first)] == [{"n": 1}, {"n": 2}]
    assert {line["delivery_count"] for line in json_lines(first)} == {1}
    client.publish(name, {"n": 3})
    second = spool("tail", name, "--group", "audit", "--consumer", "c1", "--json")
    assert [line["body"] for line in json_lines(second)] == [{"n": 3}]
    assert client.streams.pending(name, "audit") == []


def test_group_follow_picks_up_a_new_entry(
    client: sdk.Client, environment: dict[str, str], name: str
) -> None:
    """-f with --group long-polls the group and prints an entry appended meanwhile."""
    process = spool_process(
        "tail", name, "-f", "--group", "g", "--consumer", "c", "--json", environment=environment
    )
    try:
        deadline = time.monotonic() + _FOLLOW_TIMEOUT
        # The group is created at "$" by the tail: publish once it exists.
        while not _has_group(client, name, "g"):
            assert time.monotonic() < deadline, "the tail never created its group"
            time.sleep(0.05)
        client.publish(name, {"n": "live"})
        assert json.loads(_read_line(process))["body"] == {"n": "live"}
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=_FOLLOW_TIMEOUT) == 130
    finally:
        process.kill()
        process.communicate()


def _has_group(client: sdk.Client, stream: str, group: str) -> bool:
    try:
        return group in [found.group for found in client.streams.info(stream).groups]
    except sdk.NotFoundError:
        return False
