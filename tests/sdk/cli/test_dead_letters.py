"""`spool dlq` against the real service: retry and delete (rm) by ids, by filters and all."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

import sdk
from tests.e2e._support import closed_port_url
from tests.sdk.cli._support import Spool, parsed

_SETTLE_SECONDS = 20.0


def _dead_letters(client: sdk.Client, url: str, count: int) -> list[str]:
    """Publish `count` messages to `url`, where nothing listens, with no retries, and wait until
    each is a dead letter; their ids, in order.
    """
    ids = [
        client.messages.publish_json(url=url, body={"n": n}, retries=0).message_id
        for n in range(count)
    ]
    deadline = time.monotonic() + _SETTLE_SECONDS
    while set(ids) - {letter.message_id for letter in client.dead_letters.list(limit=1000)}:
        assert time.monotonic() < deadline, "the messages did not become dead letters"
        time.sleep(0.05)
    return ids


def _dead(client: sdk.Client, ids: list[str]) -> list[str]:
    listed = {letter.message_id for letter in client.dead_letters.list(limit=1000)}
    return [message_id for message_id in ids if message_id in listed]


def test_retry_by_ids_reports_each_and_sets_headers(spool: Spool, client: sdk.Client) -> None:
    """Each id is reported; the retried message has the header set; an id that is no dead
    letter makes the exit code 3 (not found) after the others were retried.
    """
    url = closed_port_url() + "/ids"
    [message_id] = _dead_letters(client, url, 1)
    missing = "msg_00000000000000000000000000"
    result = spool("dlq", "retry", message_id, missing, "-H", "X-Retried: yes", "--json")
    assert result.exit_code == 3, result.output
    assert json.loads(result.stdout) == [
        {"message_id": message_id, "outcome": "retried"},
        {"message_id": missing, "outcome": "not_found"},
    ]
    assert client.messages.get(message_id).headers == {"X-Retried": "yes"}
    text = spool("dlq", "rm", missing)
    assert (text.exit_code, text.stdout) == (3, f"not found {missing}\n")


def test_rm_by_filter_reports_the_count(spool: Spool, client: sdk.Client) -> None:
    """A filter deletes what it matches, in requests of --page-size, and says how many."""
    url = closed_port_url() + "/filter"
    other = closed_port_url() + "/other"
    ids = _dead_letters(client, url, 3)
    [kept] = _dead_letters(client, other, 1)
    result = spool("dlq", "rm", "--url", url, "--page-size", "1")
    assert (result.exit_code, result.stdout) == (0, "deleted 3 dead letters\n"), result.output
    assert _dead(client, [*ids, kept]) == [kept]
    since_now = parsed(
        spool("dlq", "delete", "--url", other, "--since", "2100-01-01T00:00Z", "--json")
    )
    assert since_now == {"deleted": 0}
    assert _dead(client, [kept]) == [kept]


def test_retry_by_label_schedule_and_flow_control_key(spool: Spool, client: sdk.Client) -> None:
    """--label, --schedule and --flow-control-key pick out the letters whose messages have
    them, all of them given must match.
    """
    url = closed_port_url() + "/labels"
    ids = [
        client.messages.publish_json(
            url=url, body={}, retries=0, labels=["signup"], flow_control=limits
        ).message_id
        for limits in (
            sdk.FlowControl(key="cli-dlq", rate=100),
            sdk.FlowControl(key="cli-other", rate=100),
        )
    ]
    deadline = time.monotonic() + _SETTLE_SECONDS
    while _dead(client, ids) != ids:
        assert time.monotonic() < deadline, "the messages did not become dead letters"
        time.sleep(0.05)
    none = parsed(spool("dlq", "retry", "--label", "signup", "--schedule", "nightly", "--json"))
    assert none == {"retried": 0}
    both = spool("dlq", "retry", "--label", "signup", "--flow-control-key", "cli-dlq")
    assert (both.exit_code, both.stdout) == (0, "retried 1 dead letter\n"), both.output
    # The retried letter fails again at once, so only the other is sure to be where it was.
    other = spool("dlq", "rm", "--flow-control-key", "cli-other")
    assert (other.exit_code, other.stdout) == (0, "deleted 1 dead letter\n"), other.output
    assert ids[1] not in _dead(client, ids)


def test_all_asks_first_unless_yes(spool: Spool, client: sdk.Client) -> None:
    """--all asks; no keeps every dead letter, --yes goes ahead without asking."""
    ids = _dead_letters(client, closed_port_url() + "/all", 2)
    refused = spool("dlq", "rm", "--all", input="n\n")
    assert refused.exit_code == 1, refused.output
    assert _dead(client, ids) == ids
    deleted = parsed(spool("dlq", "rm", "--all", "--yes", "--json"))
    assert deleted["deleted"] >= 2
    assert _dead(client, ids) == []


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("msg_1", "--all"),
        ("--all", "--url", "http://127.0.0.1/x"),
        ("--since", "2026-11-29T06:00:00"),
        ("--until", "yesterday"),
        ("--all", "--page-size", "0"),
        ("msg_1", "-H", "no colon"),
    ],
)
def test_a_bad_selection_is_a_usage_error(spool: Spool, args: tuple[Any, ...]) -> None:
    """Exactly one of ids, filters and --all; times with an offset; headers as 'K: V'."""
    result = spool("dlq", "retry", *args, "--yes")
    assert result.exit_code == 2, result.output
