"""Signing in to the console: the token in a cookie, and the form token that guards every POST.

The cookie holds a random session nonce and the API token itself (base64url), HttpOnly (no script reads it),
SameSite=Strict (no other site's page sends it) and Secure when the console is served over https.
Each POST form carries ``csrf``, an HMAC of the nonce keyed by the token: a page of another site
can neither read the cookie nor compute the value, and no state is kept on the server, so every
worker process checks it alike.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import hmac
import secrets
from urllib.parse import parse_qsl, urlsplit

from starlette.requests import Request
from starlette.responses import Response

from ..auth import Principal
from ..problems import ProblemError
from ..routes._context import context_of

__all__ = [
    "COOKIE_NAME",
    "CSRF_FIELD",
    "Session",
    "check_csrf",
    "check_origin",
    "clear_cookie",
    "form_fields",
    "session_of",
    "set_cookie",
    "sign_in",
]

COOKIE_NAME = "spool_console"
CSRF_FIELD = "csrf"
COOKIE_PATH = "/console"
# Eight hours: a working day, after which the token is asked for again.
_COOKIE_SECONDS = 8 * 3600
_NONCE_BYTES = 16


@dataclasses.dataclass(frozen=True, slots=True)
class Session:
    """A signed-in visitor: the token's principal and the form token of this sign-in."""

    principal: Principal
    csrf: str


def _csrf_of(nonce: str, token: str) -> str:
    return hmac.new(
        token.encode(), f"spool-console-csrf:{nonce}".encode(), hashlib.sha256
    ).hexdigest()


def _principal(request: Request, token: str) -> Principal:
    """The token's principal; 401 ``unauthenticated`` for an unknown one."""
    return context_of(request).tokens.authenticate(f"Bearer {token}")


def session_of(request: Request) -> Session | None:
    """The visitor's session from the cookie; None without a cookie naming a known token."""
    cookie = request.cookies.get(COOKIE_NAME, "")
    nonce, separator, encoded = cookie.partition(".")
    if not separator or not nonce or not encoded:
        return None
    try:
        token = base64.urlsafe_b64decode(encoded.encode("ascii")).decode()
        principal = _principal(request, token)
    except (ProblemError, UnicodeError, binascii.Error):
        return None
    return Session(principal=principal, csrf=_csrf_of(nonce, token))


def sign_in(request: Request, token: str) -> str:
    """The cookie value for ``token`` after checking it (401 ``unauthenticated`` when unknown)."""
    _principal(request, token)
    # Encoded, so a token may hold any character and the cookie is still one plain value.
    encoded = base64.urlsafe_b64encode(token.encode()).decode("ascii")
    return f"{secrets.token_hex(_NONCE_BYTES)}.{encoded}"


def set_cookie(request: Request, response: Response, value: str) -> None:
    """Keep the session in the console's cookie."""
    response.set_cookie(
        COOKIE_NAME,
        value,
        max_age=_COOKIE_SECONDS,
        path=COOKIE_PATH,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def clear_cookie(request: Request, response: Response) -> None:
    """Forget the session."""
    response.delete_cookie(
        COOKIE_NAME,
        path=COOKIE_PATH,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


async def form_fields(request: Request) -> dict[str, str]:
    """The fields of a posted form (``application/x-www-form-urlencoded``, all the console's
    forms send); none for any other body. Read here rather than by Starlette, whose form parser
    needs one more package for what a line of the standard library does.
    """
    content_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        return {}
    body = (await request.body()).decode("utf-8", errors="replace")
    return dict(parse_qsl(body, keep_blank_values=True))


def check_origin(request: Request) -> None:
    """403 ``permission_denied`` for a form posted from a page of another host.

    Browsers name the page a POST comes from in ``Origin``; one naming another host than the
    request's own is refused before anything else, the sign-in form included (whose post has no
    session, hence no form token, to check). The scheme is not compared: behind a proxy that ends
    TLS the service may see http where the browser saw https.
    """
    origin = request.headers.get("origin")
    if origin is None:
        return
    host = request.headers.get("host", "")
    if origin == "null" or urlsplit(origin).netloc.lower() != host.lower():
        raise ProblemError(
            403, "permission_denied", "the form came from another site; load the page again"
        )


async def check_csrf(request: Request, session: Session) -> None:
    """403 ``permission_denied`` unless the form comes from this host and carries this session's
    form token.
    """
    check_origin(request)
    presented = (await form_fields(request)).get(CSRF_FIELD)
    if presented is None or not hmac.compare_digest(presented.encode(), session.csrf.encode()):
        raise ProblemError(
            403,
            "permission_denied",
            "the form is stale or came from another site; load the page again",
        )
