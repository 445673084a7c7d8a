"""`spool verify`, `spool health`, `spool serve` and `spool console`."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import webbrowser
from collections.abc import Callable
from pathlib import Path

import pytest

import sdk
from server.signing import sign
from tests.conftest import ServerProcess
from tests.e2e._support import closed_port_url
from tests.sdk.cli._support import Spool, parsed, read_line, spool_process

CURRENT = "sig_current_key"
NEXT = "sig_next_key"
URL = "https://example.com/hooks/signup"
BODY = b'{"hello":"world"}'
_SERVE_TIMEOUT = 30.0
_EVERYTHING = [{"resource": "*", "name": "*", "actions": ["publish", "consume", "admin"]}]


def _signature(key: str = CURRENT, *, age: float = 0.0) -> str:
    return sign(key, url=URL, body=BODY, now=time.time() - age)


def test_verify_accepts_a_delivery_signed_with_either_key(spool: Spool) -> None:
    """The raw body on stdin, the URL, and the current or the next key."""
    ok = spool("verify", "--key", CURRENT, "--url", URL, _signature(), input=BODY)
    assert (ok.exit_code, ok.stdout.strip()) == (0, "valid")
    rotated = spool(
        "verify", "--key", CURRENT, "--next-key", NEXT, "--url", URL, _signature(NEXT), input=BODY
    )
    assert rotated.exit_code == 0, rotated.output
    from_environment = spool(
        "verify", _signature(), "--json", input=BODY, SPOOL_SIGNING_KEY=CURRENT
    )
    assert parsed(from_environment) == {"valid": True}


def test_verify_says_why_a_signature_fails(spool: Spool) -> None:
    """Exit 1 and the reason, in words and in JSON."""
    cases = [
        ((_signature(),), b'{"hello": "world"}', "body_mismatch"),
        ((_signature("another key"),), BODY, "bad_signature"),
        ((_signature(age=3600),), BODY, "expired"),
        (("not-a-jwt",), BODY, "malformed"),
    ]
    for args, body, reason in cases:
        result = spool("verify", "--key", CURRENT, "--url", URL, *args, input=body)
        assert result.exit_code == 1, result.output
        assert f"invalid signature: {reason}" in result.stderr
    wrong_url = spool(
        "verify", "--key", CURRENT, "--url", URL + "/x", _signature(), "--json", input=BODY
    )
    assert wrong_url.exit_code == 1
    assert json.loads(wrong_url.stdout) == {
        "valid": False,
        "reason": "url_mismatch",
        "detail": json.loads(wrong_url.stdout)["detail"],
    }
    tolerated = spool(
        "verify", "--key", CURRENT, _signature(age=305), "--clock-tolerance", "60", input=BODY
    )
    assert tolerated.exit_code == 0, tolerated.output


def test_verify_needs_a_key(spool: Spool) -> None:
    """No --key and no $SPOOL_SIGNING_KEY is a usage error."""
    result = spool("verify", _signature(), input=BODY)
    assert result.exit_code == 2
    assert "--key" in result.stderr


def test_health_reports_the_store(spool: Spool) -> None:
    """health asks the service, which needs no token for it."""
    assert parsed(spool("health", "--json"))["store"] == "sqlite"
    assert "sqlite" in spool("health").stdout


def test_whoami_shows_the_token_and_tells_a_bad_key(spool: Spool) -> None:
    """whoami shows the development token's id and permissions, as text and as JSON; an
    unknown key exits with 5, as any command refused a token does.
    """
    token = parsed(spool("whoami", "--json"))
    assert (token["id"], token["development"]) == ("dev", True)
    assert token["permissions"] == [
        {"resource": "*", "name": "*", "actions": ["admin", "consume", "publish"]}
    ]
    shown = spool("whoami")
    assert shown.exit_code == 0, shown.output
    assert "dev" in shown.stdout and "* *: admin, consume, publish" in shown.stdout
    wrong = spool("whoami", SPOOL_API_KEY="not-the-key")
    assert wrong.exit_code == 5, wrong.output


def test_serve_runs_the_service_entry_point_with_the_arguments(
    spool: Spool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Everything after `serve` goes to spool-server's own parser, options included."""
    import server.__main__

    seen: list[list[str]] = []
    monkeypatch.setattr(server.__main__, "main", seen.append)
    result = spool("serve", "--store", "sqlite:///x.db", "--port", "0")
    assert result.exit_code == 0, result.output
    assert seen == [["--store", "sqlite:///x.db", "--port", "0"]]
    help_of_server = spool("serve", "--", "--help")
    assert help_of_server.exit_code == 0
    assert seen[-1] == ["--help"]


def test_serve_without_the_server_extra_says_what_to_install(
    spool: Spool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing dependency of the service is one line naming the extra, exit 2."""
    monkeypatch.delitem(sys.modules, "server.__main__", raising=False)
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    result = spool("serve")
    assert result.exit_code == 2
    assert "pip install 'spool[server]'" in result.stderr


@pytest.fixture
def development_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No token configuration in the environment: `spool serve` is in development mode."""
    for variable in ("SPOOL_CONFIG", "SPOOL_TOKENS", "SPOOL_ALLOW_DESTINATIONS", "SPOOL_DEV_TOKEN"):
        monkeypatch.delenv(variable, raising=False)


@pytest.mark.usefixtures("development_environment")
@pytest.mark.parametrize(
    ("arguments", "environment", "allowed"),
    [
        ((), {}, "localhost,127.0.0.0/8,::1"),
        (("--port", "0"), {"SPOOL_ALLOW_DESTINATIONS": ""}, ""),
        (("--port", "0"), {"SPOOL_ALLOW_DESTINATIONS": "10.0.0.0/8"}, "10.0.0.0/8"),
        (("--config", "spool.yaml"), {}, None),
        (("--conf=spool.yaml",), {}, None),
        ((), {"SPOOL_CONFIG": "spool.yaml"}, None),
        ((), {"SPOOL_TOKENS": "[]"}, None),
    ],
)
def test_serve_in_development_mode_delivers_to_loopback(
    spool: Spool,
    monkeypatch: pytest.MonkeyPatch,
    arguments: tuple[str, ...],
    environment: dict[str, str],
    allowed: str | None,
) -> None:
    """As Client.embedded() does, unless $SPOOL_ALLOW_DESTINATIONS is set or the service reads
    a token configuration (whose allow-list stays as written); the setting is put back after.
    """
    import server.__main__

    seen: list[str | None] = []
    monkeypatch.setattr(
        server.__main__, "main", lambda _: seen.append(os.environ.get("SPOOL_ALLOW_DESTINATIONS"))
    )
    result = spool("serve", *arguments, **environment)
    assert result.exit_code == 0, result.output
    assert seen == [allowed]
    assert ("messages may go to localhost" in result.stderr) == (
        allowed is not None and not environment
    )
    assert "SPOOL_ALLOW_DESTINATIONS" not in os.environ


@pytest.mark.slow
@pytest.mark.usefixtures("development_environment")
def test_serve_names_its_token_delivers_to_loopback_and_stops_quietly_on_ctrl_c(
    environment: dict[str, str], tmp_path: Path
) -> None:
    """A real `spool serve`: it says which token signs in, takes a message to this machine, and
    Ctrl-C stops it gracefully with status 130 and no error line.
    """
    store = f"sqlite:///{tmp_path / 'spool.db'}"
    process = spool_process(
        "serve", "--port", "0", "--store", store, "--log-level", "warning", environment={}
    )
    try:
        line = read_line(process, timeout=_SERVE_TIMEOUT)
        base_url = line.removeprefix("spool-server listening on ").strip()
        with sdk.Client(base_url, "spool-dev-token") as client:
            receipt = client.messages.publish_json(
                url="http://127.0.0.1:9/hook", body={}, delay="1h"
            )
            assert client.messages.get(receipt.message_id).state == "scheduled"
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=_SERVE_TIMEOUT) == 130
        _, stderr = process.communicate()
    finally:
        process.kill()
        process.communicate()
    assert "sign in with token spool-dev-token" in stderr
    assert f"console at {base_url}/console" in stderr
    assert "messages may go to localhost, 127.0.0.0/8, ::1" in stderr
    assert "Error" not in stderr and "Traceback" not in stderr


def test_console_opens_the_sign_in_page_and_prints_the_token(
    spool: Spool, environment: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The browser gets the sign-in page; stdout the console's URL, stderr the token to paste
    (the console has no sign-in by link). --no-browser opens nothing.
    """
    opened: list[str] = []

    def open_browser(url: str) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", open_browser)
    console_url = f"{environment['SPOOL_BASE_URL']}/console"
    result = spool("console")
    assert result.exit_code == 0, result.output
    assert opened == [f"{console_url}/sign-in"]
    assert result.stdout == f"{console_url}\n"
    assert environment["SPOOL_API_KEY"] in result.stderr
    assert "no sign-in by link" in result.stderr
    quiet = spool("console", "--no-browser", "--json")
    assert parsed(quiet) == {
        "console_url": console_url,
        "token": environment["SPOOL_API_KEY"],
        "opened": False,
    }
    assert len(opened) == 1
    monkeypatch.setattr(webbrowser, "open", lambda url: False)
    headless = spool("console")
    assert "open " + console_url in headless.stderr and "no browser" in headless.stderr


def test_console_says_when_the_service_does_not_serve_it(
    spool: Spool,
    spool_server: Callable[..., ServerProcess],
    sqlite_store_url: str,
) -> None:
    """A service with a token file and no --console: exit 3, saying how to turn it on; no
    service at all: exit 7.
    """
    tokens = [{"id": "ops", "token": "ops-secret", "permissions": _EVERYTHING}]
    server = spool_server(sqlite_store_url, config={"tokens": tokens})
    off = spool("console", "--no-browser", "--base-url", server.base_url, "--api-key", "ops-secret")
    assert off.exit_code == 3
    assert "--console" in off.stderr and "SPOOL_CONSOLE=1" in off.stderr
    gone = spool("console", "--no-browser", "--base-url", closed_port_url())
    assert gone.exit_code == 7
