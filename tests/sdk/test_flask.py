"""sdk.flask: the view decorator that verifies Spool-Signature for Flask apps."""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest
from flask import Flask, request

import sdk
from sdk.flask import verify_spool_signature
from tests.sdk._receiving import (
    NEXT,
    RECEIVER,
    RealDeliveries,
    served_wsgi,
    signed,
)

BODY = b'{"user": 42}'


def flask_app(
    seen: list[dict[str, Any]], *, receiver: sdk.Receiver = RECEIVER, **options: Any
) -> Flask:
    """A Flask app whose /hooks/<name> view records the body it reads; /health is not guarded."""
    app = Flask(__name__)

    @app.post("/hooks/<name>")
    @verify_spool_signature(receiver, **options)
    def hook(name: str) -> dict[str, Any]:
        seen.append(
            {
                "name": name,
                "raw": request.get_data(),
                "json": request.get_json(),
                "headers": dict(request.headers),
            }
        )
        return {"ok": name}

    @app.post("/health")
    def health() -> dict[str, bool]:
        return {"ok": True}

    return app


def behind_proxy(app: Any, *, prefix: str) -> Any:
    """`app` as a reverse proxy shows it requests: `prefix` stripped, another Host."""

    def proxied(environ: dict[str, Any], start_response: Any) -> Any:
        environ = dict(environ, HTTP_HOST="internal:8000")
        environ["PATH_INFO"] = environ["PATH_INFO"].removeprefix(prefix) or "/"
        for name in ("RAW_URI", "REQUEST_URI"):
            if name in environ:
                environ[name] = environ[name].removeprefix(prefix) or "/"
        return app(environ, start_response)

    return proxied


def _problem(status: int, document: Any, content_type: str, reason: str) -> None:
    assert status == 401
    assert content_type == "application/problem+json"
    assert (document["status"], document["code"]) == (401, reason)
    assert reason in document["detail"]


def test_a_signed_request_reaches_the_view_with_its_body() -> None:
    """The view reads the raw bytes and the JSON after the decorator verified them."""
    seen: list[dict[str, Any]] = []
    url = "http://localhost/hooks/signup?tenant=acme"
    response = flask_app(seen).test_client().post(url, data=BODY, headers=signed(url, BODY))
    assert response.get_json() == {"ok": "signup"}
    assert (seen[0]["raw"], seen[0]["json"]) == (BODY, {"user": 42})


@pytest.mark.parametrize(
    ("body", "key", "signed_for", "reason"),
    [
        (BODY + b" ", "web_current_key", "http://localhost/hooks/a", "body_mismatch"),
        (BODY, "somebody_elses_key", "http://localhost/hooks/a", "bad_signature"),
        (BODY, "web_current_key", "http://localhost/hooks/b", "url_mismatch"),
        (BODY, "web_current_key", None, "malformed"),
    ],
    ids=["tampered body", "wrong key", "wrong url", "no signature"],
)
def test_refused_requests_get_a_401_problem_and_never_reach_the_view(
    body: bytes, key: str, signed_for: str | None, reason: str
) -> None:
    """A tampered body, another key, another URL or no signature: 401 problem+json."""
    seen: list[dict[str, Any]] = []
    headers = signed(signed_for, BODY, key=key) if signed_for else {}
    response = flask_app(seen).test_client().post("/hooks/a", data=body, headers=headers)
    _problem(response.status_code, response.get_json(), response.content_type, reason)
    assert seen == []


def test_the_next_key_and_unguarded_views_pass() -> None:
    """A signature made with the next key passes; a view without the decorator needs none."""
    client = flask_app([]).test_client()
    url = "http://localhost/hooks/a"
    assert client.post(url, data=BODY, headers=signed(url, BODY, key=NEXT)).status_code == 200
    assert client.post("/health").get_json() == {"ok": True}


def test_public_url_is_joined_to_the_path_and_query() -> None:
    """Behind a proxy the signature names the public URL: public_url gives its start."""
    client = flask_app([], public_url="https://hooks.example.com").test_client()
    public = "https://hooks.example.com/hooks/a?x=1"
    assert client.post("/hooks/a?x=1", data=BODY, headers=signed(public, BODY)).status_code == 200
    local = "http://localhost/hooks/a?x=1"
    refused = client.post("/hooks/a?x=1", data=BODY, headers=signed(local, BODY))
    _problem(refused.status_code, refused.get_json(), refused.content_type, "url_mismatch")


def test_a_server_without_the_raw_target_gets_the_path_rebuilt() -> None:
    """WSGI servers that keep no REQUEST_URI: the URL is rebuilt from the path and query."""
    seen: list[dict[str, Any]] = []
    app = flask_app(seen)
    plain = app.wsgi_app

    def without_raw_target(environ: dict[str, Any], start_response: Any) -> Any:
        environ.pop("REQUEST_URI", None)
        environ.pop("RAW_URI", None)
        environ.pop("HTTP_HOST", None)
        return plain(environ, start_response)

    app.wsgi_app = without_raw_target  # type: ignore[method-assign]
    url = "http://localhost:80/hooks/caf%C3%A9?x=1"
    response = app.test_client().post("/hooks/café?x=1", data=BODY, headers=signed(url, BODY))
    assert response.status_code == 200
    assert seen[0]["name"] == "café"


def test_bad_settings_fail_when_the_decorator_is_made() -> None:
    """A public URL that is not one, or keys instead of a Receiver."""
    with pytest.raises(sdk.ConfigurationError, match="public_url"):
        verify_spool_signature(RECEIVER, public_url="https://x.example/#top")
    with pytest.raises(TypeError, match="sdk.Receiver"):
        verify_spool_signature("key")  # type: ignore[arg-type]


def test_without_flask_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """The decorator imports Flask when it is made; a missing Flask says `spool[flask]`."""
    real_import = builtins.__import__

    def no_flask(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "flask":
            raise ModuleNotFoundError("No module named 'flask'", name="flask")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "flask")
    monkeypatch.setattr(builtins, "__import__", no_flask)
    with pytest.raises(sdk.ConfigurationError, match=r"pip install 'spool\[flask\]'") as caught:
        verify_spool_signature(RECEIVER)
    assert isinstance(caught.value.__cause__, ModuleNotFoundError)


@pytest.mark.slow
class TestRealDeliveries(RealDeliveries):
    """The service delivers to a Flask app on Werkzeug: its signatures pass, others do not."""

    def serve(self, make_app: Callable[[str], Any]) -> AbstractContextManager[str]:
        return served_wsgi(make_app)

    def app(self, seen: list[dict[str, Any]], *, receiver: sdk.Receiver, **options: Any) -> Any:
        return flask_app(seen, receiver=receiver, **options)

    def behind_proxy(self, app: Any, *, prefix: str) -> Any:
        return behind_proxy(app, prefix=prefix)
