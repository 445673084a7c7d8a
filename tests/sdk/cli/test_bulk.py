"""`spool publish --from FILE.jsonl`: batches, bad lines, a summary, and resuming without
duplicates.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import sdk
from sdk._cli import _bulk, _targets
from sdk._cli._bulk import batch_key
from sdk._cli._targets import StreamTarget
from tests.sdk.cli._support import Spool, parsed


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_loads_every_good_line_and_reports_the_bad_ones(
    spool: Spool, client: sdk.Client, name: str, tmp_path: Path
) -> None:
    """Bad lines are reported by number and skipped; the rest is published in order; the exit
    status says something failed.
    """
    source = _write(tmp_path / "events.jsonl", ['{"n": 1}', '{"n": 2}', "{oops", "", '{"n": 3}'])
    result = spool("publish", name, "--from", str(source), "--batch-size", "2", "--json")
    assert result.exit_code == 1
    summary = json.loads(result.stdout)
    assert (summary["published"], summary["failed"], summary["lines"]) == (3, 1, 5)
    assert [bad["line"] for bad in summary["bad_lines"]] == [3]
    assert summary["per_second"] >= 0
    assert [entry.body for entry in client.streams.range(name)] == [{"n": 1}, {"n": 2}, {"n": 3}]
    human = spool("publish", name, "--from", str(source), "--batch-size", "2")
    assert "line 3:" in human.stderr
    assert "1 line(s) were not published" in human.stderr


def test_running_the_same_load_again_publishes_nothing_twice(
    spool: Spool, client: sdk.Client, name: str, tmp_path: Path
) -> None:
    """The second run sends the same batch keys: the service replays its answers, and the
    summary says so.
    """
    source = _write(tmp_path / "events.jsonl", [f'{{"n": {n}}}' for n in range(7)])
    for written, replayed in ((7, 0), (0, 7)):
        summary = parsed(
            spool("publish", name, "--from", str(source), "--batch-size", "3", "--json")
        )
        assert (summary["published"], summary["failed"]) == (7, 0)
        assert (summary["written"], summary["replayed"]) == (written, replayed)
    assert client.streams.length(name) == 7
    table = spool("publish", name, "--from", str(source), "--batch-size", "3").stdout
    assert "written" in table and "replayed" in table


def test_a_load_interrupted_midway_resumes_without_duplicates(
    spool: Spool,
    client: sdk.Client,
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A crash after the first batch (here a Ctrl-C) leaves that batch published; the rerun
    publishes the rest, and the first batch once.
    """
    source = _write(tmp_path / "events.jsonl", [f'{{"n": {n}}}' for n in range(6)])
    real = StreamTarget.publish_batch
    calls = 0

    def crash_on_second(self: StreamTarget, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(_targets.StreamTarget, "publish_batch", crash_on_second)
    interrupted = spool("publish", name, "--from", str(source), "--batch-size", "2")
    assert interrupted.exit_code == 130
    message = " ".join(interrupted.stderr.split())
    assert "interrupted: 2 of 6 line(s) published (2 written, 0 replayed)" in message
    assert "run the same command again to resume" in message
    assert client.streams.length(name) == 2
    monkeypatch.setattr(_targets.StreamTarget, "publish_batch", real)
    resumed = parsed(spool("publish", name, "--from", str(source), "--batch-size", "2", "--json"))
    assert (resumed["published"], resumed["written"], resumed["replayed"]) == (6, 4, 2)
    assert [entry.body["n"] for entry in client.streams.range(name)] == list(range(6))


def test_an_interrupt_between_batches_is_reported_the_same_way(
    spool: Spool,
    client: sdk.Client,
    name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while the next lines are read, not only during a request, still says how far
    the load got and how to resume.
    """
    source = _write(tmp_path / "events.jsonl", [f'{{"n": {n}}}' for n in range(4)])
    real = _bulk.batch_key
    calls = 0

    def interrupt_on_second(*args: Any) -> str:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(_bulk, "batch_key", interrupt_on_second)
    interrupted = spool("publish", name, "--from", str(source), "--batch-size", "2", "--json")
    assert interrupted.exit_code == 130
    summary = json.loads(interrupted.stdout)
    assert (summary["published"], summary["written"]) == (2, 2)
    assert "2 of 4 line(s) published" in " ".join(interrupted.stderr.split())
    assert client.streams.length(name) == 2


def test_strict_publishes_nothing_when_a_line_is_bad(
    spool: Spool, client: sdk.Client, name: str, tmp_path: Path
) -> None:
    """--strict checks the whole file first."""
    source = _write(tmp_path / "events.jsonl", ['{"n": 1}', "nope"])
    result = spool("publish", name, "--from", str(source), "--strict")
    assert result.exit_code == 1
    assert "line 2:" in result.stderr
    with pytest.raises(sdk.NotFoundError):
        client.streams.length(name)


def test_loads_jobs_and_messages_in_batches(
    spool: Spool, client: sdk.Client, name: str, tmp_path: Path
) -> None:
    """--from works for a queue's topic and for a URL as well."""
    source = _write(tmp_path / "jobs.jsonl", ['{"to": "a"}', '{"to": "b"}', '{"to": "c"}'])
    client.queues.create(name)
    summary = parsed(
        spool("publish", "--queue", name, "--topic", "t", "--from", str(source), "--json")
    )
    assert summary["published"] == 3
    assert client.queues.get(name).stats.ready == 3
    messages = parsed(
        spool(
            "publish",
            "--url",
            "http://localhost:8000/hook",
            "--delay",
            "1h",
            "--from",
            str(source),
            "--json",
        )
    )
    assert (messages["published"], messages["target"]) == (3, "url http://localhost:8000/hook")


def test_a_batch_the_service_refuses_fails_alone(
    spool: Spool, client: sdk.Client, name: str, tmp_path: Path
) -> None:
    """A body the SDK cannot encode (NaN) fails its batch; the other batches go through."""
    source = _write(tmp_path / "events.jsonl", ['{"n": 1}', '{"n": NaN}', '{"n": 3}'])
    result = spool("publish", name, "--from", str(source), "--batch-size", "1", "--json")
    assert result.exit_code == 1
    summary = json.loads(result.stdout)
    assert (summary["published"], summary["failed"]) == (2, 1)
    assert summary["failed_batches"][0]["lines"] == "2-2"
    assert client.streams.length(name) == 2


def test_usage_errors(spool: Spool, name: str, tmp_path: Path) -> None:
    """--from takes no BODY and no deduplication id; a missing file is a usage error."""
    source = _write(tmp_path / "events.jsonl", ["{}"])
    assert spool("publish", name, "{}", "--from", str(source)).exit_code == 2
    assert spool("publish", name, "--from", str(tmp_path / "missing.jsonl")).exit_code == 2
    refused = spool(
        "publish", "--url", "http://localhost/", "--deduplication-id", "x", "--from", str(source)
    )
    assert refused.exit_code == 2


def test_batch_keys_name_the_file_the_target_and_the_lines() -> None:
    """Keys differ by content, target and line range, and stay within the API's pattern."""
    one = batch_key("a" * 64, StreamTarget("events"), 1, 100)
    assert one == batch_key("a" * 64, StreamTarget("events"), 1, 100)
    assert one != batch_key("b" * 64, StreamTarget("events"), 1, 100)
    assert one != batch_key("a" * 64, StreamTarget("orders"), 1, 100)
    assert one != batch_key("a" * 64, StreamTarget("events"), 101, 200)
    assert len(one) <= 255 and " " not in one
