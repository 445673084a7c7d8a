"""`spool logs` and the message filters it shares with `spool messages ls` (sdk/_cli/_logs.py),
against the real service.
"""

from __future__ import annotations

import json
import signal

import sdk
from tests.sdk.cli._support import Spool, json_lines, parsed, read_line, spool_process

_FOLLOW_TIMEOUT = 15.0
HOOK = "http://localhost:8000/logs"


def test_logs_prints_the_latest_events_oldest_first(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """The events of the labelled messages, as JSON lines or one line each, oldest first."""
    first = client.messages.publish_json(url=HOOK, body={}, delay="1h", labels=[name])
    client.messages.cancel(first.message_id)
    client.messages.publish_json(url=HOOK, body={}, delay="1h", labels=["other"])
    events = json_lines(spool("logs", "--label", name, "--json"))
    assert [(event["message_id"], event["state"]) for event in events] == [
        (first.message_id, "created"),
        (first.message_id, "cancelled"),
    ]
    assert events[0]["labels"] == [name]
    text = spool("logs", "--label", name, "--state", "cancelled").stdout.splitlines()
    assert len(text) == 1
    assert f"{first.message_id} cancelled {HOOK} labels={name}" in text[0]
    latest = json_lines(spool("logs", "--label", name, "-n", "1", "--json"))
    assert [event["state"] for event in latest] == ["cancelled"]
    assert (
        json_lines(spool("logs", "--label", name, "--since", "2999-01-01T00:00:00Z", "--json"))
        == []
    )
    assert len(json_lines(spool("logs", "--id", first.message_id, "--since", "1h", "--json"))) == 2


def test_bad_filters_are_usage_errors(spool: Spool) -> None:
    """A time that is neither RFC 3339 with an offset nor a duration, or a state of the other
    listing, is refused before any request.
    """
    for args in (
        ("logs", "--since", "yesterday"),
        ("logs", "--until", "2026-11-29T12:00:00"),
        ("logs", "--state", "delivering"),
        ("messages", "ls", "--state", "retry"),
    ):
        result = spool(*args)
        assert result.exit_code == 2, (args, result.output)


def test_messages_ls_takes_the_filters_and_publish_takes_labels(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """`spool publish --label` labels the message; `messages ls --label` finds it."""
    published = parsed(
        spool(
            "publish",
            "--url",
            HOOK,
            "--delay",
            "1h",
            "--label",
            name,
            "--label",
            "x",
            "{}",
            "--json",
        )
    )
    listed = parsed(spool("messages", "ls", "--label", name, "--json"))
    assert [message["message_id"] for message in listed] == [published["message_id"]]
    assert listed[0]["labels"] == [name, "x"]
    assert name in spool("messages", "ls", "--label", name).stdout
    assert parsed(spool("messages", "ls", "--label", name, "--state", "delivered", "--json")) == []


def test_follow_prints_new_events_until_ctrl_c(
    client: sdk.Client, environment: dict[str, str], name: str
) -> None:
    """-f prints what is there, then each event as it happens; SIGINT ends it with 130."""
    first = client.messages.publish_json(url=HOOK, body={}, delay="1h", labels=[name])
    process = spool_process("logs", "--label", name, "-f", "--json", environment=environment)
    try:
        line = json.loads(read_line(process, timeout=_FOLLOW_TIMEOUT))
        assert (line["message_id"], line["state"]) == (first.message_id, "created")
        client.messages.cancel(first.message_id)
        line = json.loads(read_line(process, timeout=_FOLLOW_TIMEOUT))
        assert (line["message_id"], line["state"]) == (first.message_id, "cancelled")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=_FOLLOW_TIMEOUT) == 130
        _, stderr = process.communicate()
        assert stderr == ""
    finally:
        process.kill()
        process.communicate()
