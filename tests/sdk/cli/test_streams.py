"""`spool streams` against the real service."""

from __future__ import annotations

import sdk
from tests.sdk.cli._support import Spool, json_lines, parsed


def test_info_range_trim_pending_delete(spool: Spool, client: sdk.Client, name: str) -> None:
    """Every stream subcommand, in human and JSON form."""
    ids = client.publish_many(name, [{"n": n} for n in range(5)])
    client.streams.create_group(name, "g", start_id="0")
    client.streams.read_group(name, "g", consumer="c", count=2)
    info = parsed(spool("streams", "info", name, "--json"))
    assert (info["length"], info["first_id"], info["last_id"]) == (5, ids[0], ids[-1])
    assert info["groups"][0]["pending"] == 2
    assert "consumer groups" in spool("streams", "info", name).stdout
    entries = json_lines(spool("streams", "range", name, "--start", ids[1], "-n", "2", "--json"))
    assert [entry["id"] for entry in entries] == ids[1:3]
    newest = json_lines(spool("streams", "range", name, "--reverse", "-n", "1", "--json"))
    assert newest[0]["body"] == {"n": 4}
    pending = parsed(spool("streams", "pending", name, "g", "--json"))
    assert [entry["id"] for entry in pending] == ids[:2]
    trimmed = parsed(spool("streams", "trim", name, "--maxlen", "3", "--exact", "--json"))
    assert trimmed == {"length": 3, "trimmed": 2}
    assert spool("streams", "trim", name).exit_code == 2  # neither --maxlen nor --minid
    assert parsed(spool("streams", "delete", name, "--yes", "--json")) == {"deleted": name}
    assert spool("streams", "info", name).exit_code == 3


def test_ls_lists_streams_by_name_with_a_prefix(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """`streams ls --prefix` shows the matching streams by name, as a table or JSON, and -n
    stops after that many (fetching pages of that size until it has them).
    """
    client.publish_many(f"{name}.b", [1, 2])
    client.publish(f"{name}.a", 1)
    client.streams.create_group(f"{name}.a", "g", start_id="0")
    client.publish(f"{name}.c", 1)
    listed = parsed(spool("streams", "ls", "--prefix", name, "--json"))
    assert [(s["name"], s["length"], s["group_count"]) for s in listed] == [
        (f"{name}.a", 1, 1),
        (f"{name}.b", 2, 0),
        (f"{name}.c", 1, 0),
    ]
    assert [
        s["name"] for s in parsed(spool("streams", "ls", "--prefix", name, "-n", "2", "--json"))
    ] == [
        f"{name}.a",
        f"{name}.b",
    ]
    table = spool("streams", "ls", "--prefix", name).stdout
    assert f"{name}.b" in table and "groups" in table
    assert spool("streams", "ls", "--prefix", "no spaces").exit_code == 2
