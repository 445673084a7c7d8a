"""The console's routes: sign-in and sign-out, the resource pages, and its own static files."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..config import DEFAULT_DEV_TOKEN
from ..problems import ProblemError
from ..routes._context import context_of
from ..stores.base import StoreError
from . import _dashboard, _flow_control, _messages, _queues, _schedules, _search, _streams
from ._pages import PREFIX, error_page, render
from ._session import (
    check_csrf,
    check_origin,
    clear_cookie,
    form_fields,
    session_of,
    set_cookie,
    sign_in,
    sign_out,
)

__all__ = ["console_routes"]

_STATIC = Path(__file__).resolve().parent / "static"
_HOME = f"{PREFIX}/streams"


def _next_page(candidate: object) -> str:
    """Where to go after signing in: a console page, never another site."""
    if not isinstance(candidate, str):
        return _HOME
    parsed = urlparse(candidate)
    if parsed.scheme or parsed.netloc or not parsed.path.startswith(f"{PREFIX}/"):
        return _HOME
    return parsed.path


async def home(request: Request) -> Response:
    """``/console``: the streams page, or the sign-in form first."""
    try:
        signed_in = await session_of(request, touch=False) is not None
    except StoreError as error:
        return error_page(request, None, error)
    target = _HOME if signed_in else f"{PREFIX}/sign-in"
    return RedirectResponse(target, status_code=303)


def _sign_in_page(
    request: Request, *, next_page: str, error: str = "", status: int = 200
) -> Response:
    """The sign-in form; in development mode it names the default token (public anyway), or says
    the token is the one $SPOOL_DEV_TOKEN gave (a secret, which the page does not show).
    """
    settings = context_of(request).settings
    token = settings.tokens[0].secret if settings.development else ""
    return render(
        request,
        "sign_in.html",
        session=None,
        status=status,
        error=error,
        next_page=next_page,
        development=settings.development,
        development_token=token if token == DEFAULT_DEV_TOKEN else "",
    )


async def sign_in_form(request: Request) -> Response:
    """The sign-in form."""
    return _sign_in_page(request, next_page=_next_page(request.query_params.get("next")))


async def sign_in_submit(request: Request) -> Response:
    """Check the token and keep it in the console's cookie; the form again when it is unknown."""
    form = await form_fields(request)
    token = form.get("token")
    next_page = _next_page(form.get("next"))
    try:
        check_origin(request)
    except ProblemError as error:
        return error_page(request, None, error)
    try:
        if token is None or not token.strip():
            raise ProblemError(401, "unauthenticated", "enter an API token")
        value = await sign_in(request, token.strip())
    except StoreError as error:
        return error_page(request, None, error)
    except ProblemError:
        return _sign_in_page(
            request,
            next_page=next_page,
            error="That token is not known to this service.",
            status=401,
        )
    response = RedirectResponse(next_page, status_code=303)
    set_cookie(request, response, value)
    return response


async def sign_out_submit(request: Request) -> Response:
    """End the session for every process and forget the cookie (the form token is checked, so no
    other site can sign a visitor out).
    """
    session = None
    try:
        session = await session_of(request, touch=False)
        if session is not None:
            await check_csrf(request, session)
        await sign_out(request)
    except (ProblemError, StoreError) as error:
        return error_page(request, session, error)
    response = RedirectResponse(f"{PREFIX}/sign-in", status_code=303)
    clear_cookie(request, response)
    return response


def console_routes() -> list[BaseRoute]:
    """Every route of the console, all under ``/console``."""
    return [
        Route(PREFIX, home, methods=["GET"]),
        Route(f"{PREFIX}/", home, methods=["GET"]),
        Route(f"{PREFIX}/sign-in", sign_in_form, methods=["GET"]),
        Route(f"{PREFIX}/sign-in", sign_in_submit, methods=["POST"]),
        Route(f"{PREFIX}/sign-out", sign_out_submit, methods=["POST"]),
        *_streams.routes,
        *_queues.routes,
        *_messages.routes,
        *_schedules.routes,
        *_flow_control.routes,
        *_dashboard.routes,
        *_search.routes,
        Mount(f"{PREFIX}/static", app=StaticFiles(directory=_STATIC), name="console-static"),
    ]
