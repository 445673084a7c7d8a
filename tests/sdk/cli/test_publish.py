"""`spool publish`: one body to a stream, a queue or a URL, against the real service."""

from __future__ import annotations

import sdk
from tests.sdk.cli._support import Spool, parsed


def test_publishes_a_json_body_and_prints_the_entry_id(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """The id printed is the entry's; the body arrives as JSON."""
    result = spool("publish", name, '{"type": "signup", "user": 42}')
    assert result.exit_code == 0, result.output
    [entry] = client.streams.range(name)
    assert result.stdout.strip() == entry.id
    assert entry.body == {"type": "signup", "user": 42}


def test_reads_the_body_from_stdin_and_trims_exactly(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """`-` reads standard input; --maxlen with --exact caps the stream exactly."""
    for n in range(4):
        result = spool("publish", name, "-", "--maxlen", "2", "--exact", input=f'{{"n": {n}}}')
        assert result.exit_code == 0, result.output
    assert [entry.body for entry in client.streams.range(name)] == [{"n": 2}, {"n": 3}]


def test_json_output_names_the_entry(spool: Spool, name: str) -> None:
    """--json prints one document with the id and the stream."""
    document = parsed(spool("publish", name, "[1, 2]", "--json"))
    assert document["stream"] == name
    assert document["id"].count("-") == 1


def test_a_job_to_a_queue_prints_its_receipt(spool: Spool, client: sdk.Client, name: str) -> None:
    """--queue with --topic publishes a job; --json prints the receipt."""
    client.queues.create(name)
    receipt = parsed(spool("publish", "--queue", name, "--topic", "email", '{"to": "a"}', "--json"))
    assert (receipt["queue"], receipt["topic"], receipt["deduplicated"]) == (name, "email", False)
    job = client.init_queue(name).job(receipt["job_id"])
    assert (job.payload, job.state) == ({"to": "a"}, "ready")


def test_a_job_to_a_missing_queue_exits_not_found(spool: Spool, name: str) -> None:
    """A queue never created is exit 3, with the service's reason on stderr."""
    result = spool("publish", "--queue", name, "--topic", "email", "{}")
    assert result.exit_code == 3
    assert "queue_not_found" in result.stderr


def test_a_message_carries_every_option_given(spool: Spool, client: sdk.Client, name: str) -> None:
    """Headers, method, delay, retries, retry delay, timeout, callbacks and deduplication reach
    the message.
    """
    result = spool(
        "publish",
        "--url",
        "http://localhost:8000/hooks/signup",
        "-H",
        "X-Tenant: acme",
        "--method",
        "PUT",
        "--delay",
        "1h",
        "--retries",
        "2",
        "--retry-delay",
        "1000 * retried",
        "--timeout",
        "30s",
        "--callback",
        "http://localhost:8000/done",
        "--failure-callback",
        "http://localhost:8000/failed",
        "--callback-header",
        "Authorization: Bearer ok",
        "--failure-callback-header",
        "Authorization: Bearer ko",
        "--deduplication-id",
        name,
        '{"hello": "world"}',
    )
    assert result.exit_code == 0, result.output
    message = client.messages.get(result.stdout.strip())
    assert message.state == "scheduled"
    assert message.headers == {"X-Tenant": "acme"}
    assert (message.method, message.retries, message.retry_delay) == ("PUT", 2, "1000 * retried")
    assert message.timeout.total_seconds() == 30
    assert (message.callback, message.failure_callback) == (
        "http://localhost:8000/done",
        "http://localhost:8000/failed",
    )
    assert message.callback_headers == {"Authorization": "Bearer ok"}
    assert message.failure_callback_headers == {"Authorization": "Bearer ko"}
    assert message.deduplication_id == name
    again = spool("publish", "--url", "http://localhost:8000/hooks/signup", "--delay", "1h")
    assert again.exit_code == 2  # no body


def test_a_raw_message_to_a_url_group_prints_one_receipt_per_url(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """--raw sends text as is; a URL group gives one message per URL."""
    client.url_groups.upsert(name, ["http://localhost:8001/a", "http://localhost:8002/b"])
    receipts = parsed(
        spool(
            "publish",
            "--url-group",
            name,
            "--raw",
            "--content-type",
            "text/html",
            "--delay",
            "3600",
            "<h1>Hi</h1>",
            "--json",
        )
    )
    assert sorted(receipt["url"] for receipt in receipts) == [
        "http://localhost:8001/a",
        "http://localhost:8002/b",
    ]
    message = client.messages.get(receipts[0]["message_id"])
    assert (message.content_type, message.url_group) == ("text/html", name)


def test_usage_errors_exit_2_with_one_clear_line(spool: Spool, name: str) -> None:
    """A body that is not JSON, a missing target or topic, two targets, a bad header."""
    cases = [
        (("publish", name, "{not json"), "BODY is not JSON"),
        (("publish",), "name a STREAM"),
        (("publish", "--queue", "q", "{}"), "--queue needs --topic"),
        (("publish", "--queue", "q", "--url", "http://localhost/", "{}"), "at most one"),
        (("publish", "--url", "http://localhost/", "-H", "no colon", "{}"), "Name: value"),
        (("publish", name, "--delay", "5m", "{}"), "--delay does not apply to a stream"),
        (("publish", "--queue", "q", "--topic", "t", "--retries", "1", "{}"), "--retries"),
        (("publish", "--url", "http://localhost/", "--delay", "soon", "{}"), "delay must"),
    ]
    for args, message in cases:
        result = spool(*args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.stderr, (args, result.stderr)


def test_a_message_takes_flow_control_and_redaction(
    spool: Spool, client: sdk.Client, name: str
) -> None:
    """--flow-control with its limits, --redact-header and --signature-scheme reach the
    message.
    """
    result = spool(
        "publish",
        "--url",
        "http://localhost:8000/hooks/signup",
        "-H",
        "Authorization: Bearer secret",
        "--delay",
        "1h",
        "--flow-control",
        name,
        "--rate",
        "10",
        "--period",
        "1m",
        "--parallelism",
        "2",
        "--redact-header",
        "authorization",
        "--signature-scheme",
        "standard_webhooks",
        "{}",
    )
    assert result.exit_code == 0, result.output
    message = client.messages.get(result.stdout.strip())
    assert message.flow_control is not None
    assert (message.flow_control.key, message.flow_control.rate) == (name, 10)
    assert message.flow_control.parallelism == 2
    assert message.headers == {"Authorization": "[redacted]"}
    assert message.signature_scheme == "standard_webhooks"
    assert client.flow_control.get(name).parallelism == 2


def test_flow_control_limits_need_a_key_and_a_limit(spool: Spool) -> None:
    """A limit without --flow-control, or a key without a limit, is a usage error."""
    url = "http://localhost:8000/hooks/signup"
    cases = [
        (("--rate", "5"), "--rate needs --flow-control KEY"),
        (("--flow-control", "acme", "--period", "1m"), "needs --rate or --parallelism"),
        (("--flow-control", "acme", "--rate", "0"), "--rate"),
    ]
    for extra, message in cases:
        result = spool("publish", "--url", url, *extra, "{}")
        assert result.exit_code == 2, (extra, result.output)
        assert message in result.stderr, (extra, result.stderr)
