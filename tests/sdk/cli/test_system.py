"""`spool verify`, `spool health` and `spool serve`."""

from __future__ import annotations

import json
import sys
import time

import pytest

from server.signing import sign
from tests.sdk.cli._support import Spool, parsed

CURRENT = "sig_current_key"
NEXT = "sig_next_key"
URL = "https://example.com/hooks/signup"
BODY = b'{"hello":"world"}'


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
