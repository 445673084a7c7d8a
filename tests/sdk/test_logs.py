"""The request log on the ``sdk`` logger, $SPOOL_LOG, and no credential in either."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap

import httpx
import pytest
import respx

import sdk
from sdk._logs import REDACTED, redacted_headers
from tests.conftest import ROOT
from tests.sdk._support import API_KEY, appended, problem, resolve

SECRETS = ("sk_test_0123456789_secret", "tenant-key-value", "sig-value", "cookie-value")


async def test_each_request_is_logged_at_info(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """Operation, method, path, status, request id and elapsed time, on the ``sdk`` logger."""
    caplog.set_level(logging.INFO, logger="sdk")
    answer = appended("5-0")
    answer.headers["X-Request-Id"] = "req_42"
    api.post("/v1/streams/events/entries").mock(return_value=answer)
    await resolve(client.publish("events", {}))
    (record,) = [record for record in caplog.records if record.name == "sdk"]
    assert record.levelno == logging.INFO
    message = record.getMessage()
    assert message.startswith("append_entry POST /v1/streams/events/entries -> 201 in ")
    assert message.endswith(" ms (request req_42)")


async def test_retries_and_failures_are_logged(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """A failed attempt, the retry it causes and the attempt that succeeds: a line each."""
    caplog.set_level(logging.INFO, logger="sdk")
    api.get("/v1/streams/events").mock(
        side_effect=[
            httpx.ConnectError("refused"),
            problem(503, "unavailable", headers={"X-Request-Id": "req_1"}),
            httpx.Response(200, json={"stream": "events", "length": 0, "groups": []}),
        ]
    )
    await resolve(client.streams.length("events"))
    lines = [record.getMessage() for record in caplog.records if record.name == "sdk"]
    assert len(lines) == 5
    assert lines[0].startswith("get_stream GET /v1/streams/events -> no answer after ")
    assert "could not connect to http://spool.test" in lines[0]
    assert lines[1].startswith("retrying get_stream in ")
    assert lines[2].startswith("get_stream GET /v1/streams/events -> 503 in ")
    assert lines[2].endswith("(request req_1)")
    assert lines[3].startswith("retrying get_stream in ") and "503 unavailable" in lines[3]
    assert "-> 200 in " in lines[4]


async def test_debug_shows_headers_with_every_credential_redacted(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """The API key, a key-like extra header, a signature and a cookie never reach the log."""
    caplog.set_level(logging.DEBUG, logger="sdk")
    answer = appended()
    answer.headers.update(
        {"Spool-Signature": "sig-value", "Set-Cookie": "session=cookie-value", "X-Other": "shown"}
    )
    route = api.post("/v1/streams/events/entries").mock(return_value=answer)
    tenant = client.with_options(headers={"X-Tenant-Key": "tenant-key-value", "X-Tenant": "acme"})
    await resolve(tenant.publish("events", {}))
    assert route.calls.last.request.headers["x-tenant-key"] == "tenant-key-value"
    text = caplog.text
    assert "request headers" in text and "response headers" in text
    assert "'x-tenant': 'acme'" in text and "'x-other': 'shown'" in text
    for secret in SECRETS:
        assert secret not in text
    assert REDACTED in text


def test_redaction_goes_by_what_the_name_says() -> None:
    """Any name holding key, token, secret, signature, auth, password or cookie is redacted."""
    headers = [
        ("Authorization", "Bearer a"),
        ("Proxy-Authorization", "Basic b"),
        ("X-Api-Key", "c"),
        ("Idempotency-Key", "d"),
        ("X-Auth-Token", "e"),
        ("Upstash-Signature", "f"),
        ("Spool-Signature", "g"),
        ("X-Client-Secret", "h"),
        ("Cookie", "i"),
        ("X-Password", "j"),
        ("Content-Type", "application/json"),
        ("X-Request-Id", "req_1"),
    ]
    shown = redacted_headers(headers)
    assert [value for value in shown.values() if value != REDACTED] == ["application/json", "req_1"]


def run_with_spool_log(value: str | None, program: str) -> subprocess.CompletedProcess[str]:
    """`program` in a fresh interpreter with $SPOOL_LOG set to `value` (or unset)."""
    environment = {name: item for name, item in os.environ.items() if name != "SPOOL_LOG"}
    if value is not None:
        environment["SPOOL_LOG"] = value
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(program)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


PUBLISH = f"""
    import httpx, logging, respx, sdk

    with respx.mock(base_url="http://spool.test") as api:
        api.post("/v1/streams/events/entries").mock(return_value=httpx.Response(
            201,
            json={{"id": "1-0", "stream": "events", "length": 1, "trimmed": 0}},
            headers={{"X-Request-Id": "req_9", "Spool-Signature": "sig-value"}},
        ))
        with sdk.Client("http://spool.test", {API_KEY!r}) as client:
            client.publish("events", {{}})
    print(len(logging.getLogger("sdk").handlers))
"""


def test_spool_log_debug_logs_to_stderr_without_secrets() -> None:
    """$SPOOL_LOG=debug: one handler, the request line and the redacted headers on stderr."""
    result = run_with_spool_log("debug", PUBLISH)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1"
    assert "append_entry POST /v1/streams/events/entries -> 201" in result.stderr
    assert "(request req_9)" in result.stderr
    assert "response headers" in result.stderr
    assert "DEBUG" in result.stderr
    for secret in SECRETS:
        assert secret not in result.stderr


def test_spool_log_info_leaves_out_the_headers() -> None:
    """$SPOOL_LOG=info: the request line only."""
    result = run_with_spool_log("INFO", PUBLISH)
    assert result.returncode == 0, result.stderr
    assert "-> 201 in " in result.stderr
    assert "headers" not in result.stderr


def test_without_spool_log_the_sdk_is_silent() -> None:
    """Unset, nothing is attached and nothing is printed."""
    result = run_with_spool_log(None, PUBLISH)
    assert result.returncode == 0, result.stderr
    assert (result.stdout.strip(), result.stderr) == ("0", "")


def test_a_bad_spool_log_is_a_configuration_error() -> None:
    """A value that is no level fails the client's construction, clearly."""
    result = run_with_spool_log(
        "verbose",
        """
        import sdk
        try:
            sdk.Client("http://spool.test")
        except sdk.ConfigurationError as error:
            print(error)
        """,
    )
    assert result.stdout.strip() == "$SPOOL_LOG must be info or debug, got 'verbose'"
