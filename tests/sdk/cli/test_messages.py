"""`spool messages`, `spool dlq` and `spool url-groups` against the real service."""

from __future__ import annotations

import time
from typing import Any

import sdk
from tests.e2e._support import closed_port_url
from tests.sdk.cli._support import Spool, parsed

_SETTLE_SECONDS = 20.0


def _until(check: Any, *, timeout: float = _SETTLE_SECONDS) -> Any:
    """Call `check` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"not true within {timeout} s"
        time.sleep(0.05)
    return found


def test_get_and_cancel_a_scheduled_message(spool: Spool, client: sdk.Client) -> None:
    """get shows the message; cancel cancels it once, and a second cancel is a conflict (4)."""
    receipt = client.messages.publish_json(url="http://localhost:8000/x", body={}, delay="1h")
    shown = parsed(spool("messages", "get", receipt.message_id, "--json"))
    assert (shown["state"], shown["url"]) == ("scheduled", "http://localhost:8000/x")
    assert "scheduled" in spool("messages", "get", receipt.message_id).stdout
    cancelled = parsed(spool("messages", "cancel", receipt.message_id, "--json"))
    assert cancelled["state"] == "cancelled"
    again = spool("messages", "cancel", receipt.message_id)
    assert again.exit_code == 4, again.output
    assert spool("messages", "get", "msg_0000000000000000000000000").exit_code == 3


def test_a_redacted_header_is_never_shown(spool: Spool, client: sdk.Client) -> None:
    """get and ls show a redacted header's value as [redacted], as text and as JSON."""
    receipt = client.messages.publish_json(
        url="http://localhost:8000/x",
        body={},
        delay="1h",
        headers={"Authorization": "Bearer cli-secret"},
        redact=sdk.Redact(headers=("authorization",)),
    )
    shown = parsed(spool("messages", "get", receipt.message_id, "--json"))
    assert shown["headers"] == {"Authorization": "[redacted]"}
    for output in (
        spool("messages", "get", receipt.message_id).stdout,
        spool("messages", "get", receipt.message_id, "--json").stdout,
        spool("messages", "ls", "--json").stdout,
        spool("messages", "ls").stdout,
    ):
        assert "cli-secret" not in output


def test_dead_letters_are_listed_retried_and_deleted(spool: Spool, client: sdk.Client) -> None:
    """A message to a port where nothing listens, with no retries, becomes a dead letter that
    `dlq retry` sends again and `dlq delete` forgets.
    """
    url = closed_port_url() + "/hook"
    published = spool("publish", "--url", url, "--retries", "0", '{"n": 1}')
    assert published.exit_code == 0, published.output
    message_id = published.stdout.strip()

    def listed() -> list[dict[str, Any]]:
        letters = parsed(spool("dlq", "ls", "--json"))
        return [letter for letter in letters if letter["message_id"] == message_id]

    [letter] = _until(listed)
    assert (letter["url"], letter["attempts"]) == (url, 1)
    # Through a pipe the table is as wide as its rows, whatever $COLUMNS says: the id is whole.
    assert message_id in spool("dlq", "ls", COLUMNS="80").stdout
    [receipt] = parsed(spool("dlq", "retry", message_id, "--json"))
    assert receipt["message_id"] == message_id
    # The retry ran: a second attempt, failed like the first, and a dead letter again.
    _until(lambda: len(client.messages.get(message_id).attempts) == 2 and listed())
    assert parsed(spool("dlq", "delete", message_id, "--json")) == [
        {"message_id": message_id, "outcome": "deleted"}
    ]
    assert listed() == []
    assert spool("dlq", "delete", message_id).exit_code == 3


def test_url_groups_set_ls_get_delete(spool: Spool, name: str) -> None:
    """A group is set with named and unnamed URLs, listed, read, and deleted."""
    group = parsed(
        spool(
            "url-groups",
            "set",
            name,
            "a=http://localhost:8001/a",
            "http://localhost:8002/b",
            "--json",
        )
    )
    assert group["endpoints"] == [
        {"url": "http://localhost:8001/a", "name": "a"},
        {"url": "http://localhost:8002/b", "name": None},
    ]
    assert name in [found["name"] for found in parsed(spool("url-groups", "ls", "--json"))]
    assert "http://localhost:8002/b" in spool("url-groups", "get", name).stdout
    assert parsed(spool("url-groups", "delete", name, "--json")) == {"deleted": name}
    assert spool("url-groups", "get", name).exit_code == 3
    refused = spool("url-groups", "set", name, "ftp://example.com/")
    assert refused.exit_code == 2, refused.output


def test_ls_lists_messages_newest_first_by_state_and_url_group(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """`messages ls --url-group` shows the group's messages newest first; --state narrows it."""
    client.url_groups.upsert(name, ["http://localhost:8000/a"])
    first = client.messages.publish_json(url_group=name, body={}, delay="1h")
    second = client.messages.publish_json(url_group=name, body={}, delay="1h")
    client.messages.cancel(first[0].message_id)
    listed = parsed(spool("messages", "ls", "--url-group", name, "--json"))
    assert [m["message_id"] for m in listed] == [second[0].message_id, first[0].message_id]
    cancelled = parsed(
        spool("messages", "ls", "--url-group", name, "--state", "cancelled", "--json")
    )
    assert [m["message_id"] for m in cancelled] == [first[0].message_id]
    table = spool("messages", "ls", "--url-group", name, "-n", "1").stdout
    assert second[0].message_id in table and first[0].message_id not in table
    assert spool("messages", "ls", "--state", "lost").exit_code == 2
