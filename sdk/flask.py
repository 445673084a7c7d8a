"""Verify `Spool-Signature` in Flask apps: the `@verify_spool_signature(receiver)` decorator.

```python
from flask import Flask, request

import sdk
from sdk.flask import verify_spool_signature

app = Flask(__name__)
receiver = sdk.Receiver(current_signing_key="...", next_signing_key="...")


@app.post("/hooks/signup")
@verify_spool_signature(receiver)
def signup():
    return {"got": request.get_json()}
```

The decorator reads the raw body (Flask keeps it, so the view reads it again as usual), verifies
it against the URL the request came to (or `public_url` joined to its path, behind a proxy) and
answers `401` with an `application/problem+json` body when it fails; the view never runs then.
Flask is imported when the decorator is applied: `pip install 'spool[flask]'`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast
from urllib.parse import quote

from ._exceptions import SignatureError
from ._receiver import Receiver
from ._web import (
    PROBLEM_MEDIA_TYPE,
    check_public_url,
    missing_framework,
    refusal_document,
    request_url,
)

__all__ = ["verify_spool_signature"]

ViewT = TypeVar("ViewT", bound=Callable[..., Any])


def verify_spool_signature(
    receiver: Receiver, *, public_url: str | None = None, clock_tolerance: float = 0
) -> Callable[[ViewT], ViewT]:
    """A view decorator that runs the view only for requests signed by Spool; else `401`.

    * `receiver` - an `sdk.Receiver` with the service's signing keys.
    * `public_url` - behind a proxy, the public URL the service delivers to, without the path:
      the request's path and query are joined to it (`"https://hooks.example.com"`).
    * `clock_tolerance` - seconds the signature's validity window may be off.

    Returns:
        The decorator. The view it wraps answers `401` with an `application/problem+json` body,
        whose `code` is the `SignatureError.reason`, instead of running when the signature fails.

    Raises:
        ConfigurationError: Flask is not installed, or `public_url` is not an http(s) URL with a
            host and neither query nor fragment.
        TypeError: `receiver` is not an `sdk.Receiver`.
    """
    try:
        import flask
    except ModuleNotFoundError as error:
        raise missing_framework("sdk.flask", "Flask", "flask") from error
    if not isinstance(receiver, Receiver):
        raise TypeError(f"receiver must be an sdk.Receiver, not {type(receiver).__name__}")
    public = check_public_url(public_url)

    def decorate(view: ViewT) -> ViewT:
        @functools.wraps(view)
        def verified(*args: Any, **kwargs: Any) -> Any:
            request = flask.request
            try:
                receiver.verify_request(
                    body=request.get_data(cache=True),
                    headers=request.headers.items(),
                    url=_url(request.environ, public),
                    clock_tolerance=clock_tolerance,
                )
            except SignatureError as error:
                return flask.Response(
                    refusal_document(error), status=401, mimetype=PROBLEM_MEDIA_TYPE
                )
            return view(*args, **kwargs)

        return cast(ViewT, verified)

    return decorate


def _url(environ: dict[str, Any], public_url: str | None) -> str:
    # The request target as sent, when the server keeps it (Werkzeug, gunicorn); otherwise
    # rebuilt from the decoded path, which WSGI hands over as latin-1.
    target = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if not target:
        path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
        target = quote(path.encode("latin-1"), safe="/:@!$&'()*+,;=-._~%")
        if environ.get("QUERY_STRING"):
            target += "?" + environ["QUERY_STRING"]
    host = environ.get("HTTP_HOST") or f"{environ['SERVER_NAME']}:{environ['SERVER_PORT']}"
    return request_url(
        public_url, scheme=environ.get("wsgi.url_scheme", "http"), host=host, target=str(target)
    )
