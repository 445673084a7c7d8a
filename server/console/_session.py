"""Signing in to the console: a session the store keeps, named by an opaque cookie, and the form
token that guards every POST.

The cookie holds 256 random bits and nothing else, HttpOnly (no script reads it), SameSite=Strict
(no other site's page sends it) and Secure when the console is served over https. The store keeps
the session under a hash of the cookie, so what the store holds (a backup, a replica) names no
live cookie, with the token's id and a check value of its secret keyed by the cookie, so a stored
session tells nothing about the secret either. Every visit looks the session up and asks the
configuration for the token again: signing out deletes the session for every worker process; a
session ends on the service's clock ``Settings.console_session_seconds`` after it was made, or
``Settings.console_idle_seconds`` after the last page or action; and a token removed from the
configuration, or given another secret, ends its sessions.

Each POST form carries ``csrf``, an HMAC of a fixed label keyed by the cookie: a page of another
site can neither read the cookie nor compute the value.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import math
import re
import secrets
from urllib.parse import parse_qsl, urlsplit

from starlette.requests import Request
from starlette.responses import Response

from ..auth import Principal
from ..config import TokenConfig
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
    "form_lists",
    "has_cookie",
    "session_of",
    "set_cookie",
    "sign_in",
    "sign_out",
]

COOKIE_NAME = "spool_console"
CSRF_FIELD = "csrf"
COOKIE_PATH = "/console"
_COOKIE_BYTES = 32
# What secrets.token_urlsafe(_COOKIE_BYTES) makes: anything else is not looked up at all.
_COOKIE_VALUE = re.compile(r"[A-Za-z0-9_-]{43}")


@dataclasses.dataclass(frozen=True, slots=True)
class Session:
    """A signed-in visitor: the token's principal and the form token of this sign-in."""

    principal: Principal
    csrf: str


def _keyed(cookie: str, label: str, value: str = "") -> str:
    return hmac.new(
        cookie.encode("ascii"), f"spool-console-{label}:{value}".encode(), hashlib.sha256
    ).hexdigest()


def _store_key(cookie: str) -> str:
    return hashlib.sha256(f"spool-console-session:{cookie}".encode("ascii")).hexdigest()


def _cookie(request: Request) -> str | None:
    """The console cookie when it has the shape of one the service hands out."""
    value = request.cookies.get(COOKIE_NAME, "")
    return value if _COOKIE_VALUE.fullmatch(value) else None


def has_cookie(request: Request) -> bool:
    """Whether the request carries a console cookie at all, live or not."""
    return COOKIE_NAME in request.cookies


def _configured(request: Request, token_id: str) -> TokenConfig | None:
    for token in context_of(request).settings.tokens:
        if token.id == token_id:
            return token
    return None


async def session_of(request: Request, *, touch: bool = True) -> Session | None:
    """The visitor's live session; None without a cookie naming one, or when its token is no
    longer configured with the secret it was signed in with. ``touch`` counts the request as a
    visit, which starts the idle time again (a page's polls of its numbers do not).
    """
    cookie = _cookie(request)
    if cookie is None:
        return None
    store = context_of(request).store
    stored = await store.get_console_session(_store_key(cookie), touch=touch)
    if stored is None:
        return None
    token = _configured(request, stored.token_id)
    if token is None or not hmac.compare_digest(
        _keyed(cookie, "token", token.secret), stored.token_check
    ):
        # Removed from the configuration or given another secret: the session ends for good,
        # even if a later configuration brought the old secret back.
        await store.delete_console_session(_store_key(cookie))
        return None
    try:
        principal = context_of(request).tokens.authenticate(f"Bearer {token.secret}")
    except ProblemError:
        # A configured secret that authenticating never accepts (one with surrounding blanks).
        return None
    return Session(principal=principal, csrf=_keyed(cookie, "csrf"))


async def sign_in(request: Request, token: str) -> str:
    """A new session for ``token`` after checking it (401 ``unauthenticated`` when unknown): the
    cookie value that names it. A session the request's cookie names is ended first.
    """
    context = context_of(request)
    principal = context.tokens.authenticate(f"Bearer {token}")
    await sign_out(request)
    cookie = secrets.token_urlsafe(_COOKIE_BYTES)
    await context.store.create_console_session(
        _store_key(cookie),
        token_id=principal.token_id,
        token_check=_keyed(cookie, "token", token),
        lifetime=context.settings.console_session_seconds,
        idle=context.settings.console_idle_seconds,
    )
    return cookie


async def sign_out(request: Request) -> None:
    """End the session the request's cookie names, for every process; none is fine."""
    cookie = _cookie(request)
    if cookie is not None:
        await context_of(request).store.delete_console_session(_store_key(cookie))


def set_cookie(request: Request, response: Response, value: str) -> None:
    """Keep the session in the console's cookie."""
    response.set_cookie(
        COOKIE_NAME,
        value,
        max_age=math.ceil(context_of(request).settings.console_session_seconds),
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
    return {name: values[-1] for name, values in (await form_lists(request)).items()}


async def form_lists(request: Request) -> dict[str, list[str]]:
    """As :func:`form_fields`, with every value of a field given more than once (the ticked
    boxes of a list), in order.
    """
    content_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        return {}
    lists: dict[str, list[str]] = {}
    body = (await request.body()).decode("utf-8", errors="replace")
    for name, value in parse_qsl(body, keep_blank_values=True):
        lists.setdefault(name, []).append(value)
    return lists


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
