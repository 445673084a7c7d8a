"""What every console page shares: the templates, the signed-in check, and the API's access checks.

A view is written as ``async def view(request, visit)``; :func:`page` and :func:`action` wrap it
so that a visitor without a session is sent to the sign-in form, a POST without the session's form
token is refused, and a refusal or a store error (403, 404, 409 …) is shown as an error page with
the API's status and words. :meth:`Visit.access` authorizes the visitor for one API operation
exactly as the bound route of that operation does.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ..docs import DOCS_PATH
from ..problems import ProblemError
from ..routes._context import context_of, path_name
from ..routes._operations import Access, authorize
from ..stores.base import StoreError
from ._session import CSRF_FIELD, Session, check_csrf, clear_cookie, has_cookie, session_of

__all__ = [
    "PREFIX",
    "View",
    "Visit",
    "action",
    "back_to",
    "error_page",
    "live",
    "page",
    "render",
]

PREFIX = "/console"
_TEMPLATES = Path(__file__).resolve().parent / "templates"
# Shown in full up to this many characters, cut short after.
_EXCERPT_CHARACTERS = 160

# The console serves everything it uses itself; the policy makes the browser hold it to that.
# Referrers stay within the console: "no-referrer" would make a browser send its own forms with
# ``Origin: null``, which the origin check refuses.
_SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def _time(timestamp: float) -> str:
    moment = datetime.fromtimestamp(timestamp, tz=UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _entry_time(entry_id: str) -> str:
    """When a stream entry was added, from its id's milliseconds."""
    milliseconds, _, _ = entry_id.partition("-")
    return _time(int(milliseconds) / 1000) if milliseconds.isdigit() else ""


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def _excerpt(text: str | None) -> str:
    if not text:
        return ""
    return text if len(text) <= _EXCERPT_CHARACTERS else text[:_EXCERPT_CHARACTERS] + "…"


_environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(_TEMPLATES),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_environment.filters["time"] = _time
_environment.filters["pretty"] = _pretty
_environment.filters["entry_time"] = _entry_time
_environment.filters["excerpt"] = _excerpt


@dataclasses.dataclass(frozen=True, slots=True)
class Visit:
    """A signed-in visitor's request to one page or action."""

    request: Request
    session: Session

    def access(self, method: str, template: str, *, purpose: str | None = None) -> Access:
        """The visitor's access to the API operation ``method template`` (its path parameters are
        this page's, checked against their patterns: 400), or 403 as the API would refuse it.
        """
        context = context_of(self.request)
        operation = context.spec.operations[(method, template)]
        names = {
            parameter: path_name(self.request, parameter)
            for parameter in self.request.path_params
            if f"{{{parameter}}}" in template
        }
        return authorize(self.session.principal, operation, names, purpose=purpose)

    def access_to(self, method: str, template: str, **names: str) -> Access | None:
        """The visitor's access to ``method template`` for the path ``names`` given (not this
        page's), or None when a name does not match its pattern or the API would refuse it.
        """
        context = context_of(self.request)
        patterns = context.spec.path_patterns
        if not all(patterns[name].fullmatch(value) for name, value in names.items()):
            return None
        try:
            return authorize(
                self.session.principal, context.spec.operations[(method, template)], names
            )
        except ProblemError:
            return None


View = Callable[[Request, Visit], Awaitable[Response]]
Endpoint = Callable[[Request], Awaitable[Response]]


def render(
    request: Request, template: str, *, session: Session | None, status: int = 200, **values: Any
) -> HTMLResponse:
    """The page ``template`` filled with ``values``, with the console's security headers."""
    text = _environment.get_template(template).render(
        prefix=PREFIX,
        docs_path=DOCS_PATH if context_of(request).settings.docs else None,
        session=session,
        csrf_field=CSRF_FIELD,
        notice=request.query_params.get("notice", ""),
        path=request.url.path,
        status=status,
        **values,
    )
    return HTMLResponse(text, status_code=status, headers=_SECURITY_HEADERS)


def back_to(path: str, notice: str) -> RedirectResponse:
    """After an action: see (303) the page at ``path`` again, saying what was done."""
    return RedirectResponse(f"{path}?{urlencode({'notice': notice})}", status_code=303)


def _problem(error: ProblemError | StoreError) -> tuple[int, str, str]:
    """The status, code and detail the API would answer ``error`` with."""
    if isinstance(error, ProblemError):
        return error.status, error.code, error.detail
    # As the API's handler does: a store's own input check is a validation failure.
    status = 422 if error.code == "validation_failed" else error.status
    return status, error.code, error.detail


def error_page(
    request: Request, session: Session | None, error: ProblemError | StoreError
) -> HTMLResponse:
    """The page saying what the API would have answered: its status, code and words."""
    status, code, detail = _problem(error)
    return render(request, "error.html", session=session, status=status, code=code, detail=detail)


_ENDED = "Your session has ended; sign in again."


def _to_sign_in(request: Request, next_page: str | None) -> RedirectResponse:
    """See (303) the sign-in form, which brings the visitor back to ``next_page`` afterwards. A
    cookie the request still carries names no live session (signed out, ended or its token gone):
    it is cleared, and the form says why it is shown.
    """
    query: dict[str, str] = {} if next_page is None else {"next": next_page}
    ended = has_cookie(request)
    if ended:
        query["notice"] = _ENDED
    target = f"{PREFIX}/sign-in?{urlencode(query)}" if query else f"{PREFIX}/sign-in"
    response = RedirectResponse(target, status_code=303)
    if ended:
        clear_cookie(request, response)
    return response


def page(view: View) -> Endpoint:
    """A GET page: sign-in first, errors as pages."""

    async def endpoint(request: Request) -> Response:
        session: Session | None = None
        try:
            session = await session_of(request)
            if session is None:
                return _to_sign_in(request, request.url.path)
            return await view(request, Visit(request, session))
        except (ProblemError, StoreError) as error:
            return error_page(request, session, error)

    return endpoint


def action(view: View) -> Endpoint:
    """A POST action: a session and its form token first, errors as pages. Without a cookie it is
    401; with one that names no live session, nothing is done and the visitor is sent to sign in.
    """

    async def endpoint(request: Request) -> Response:
        session: Session | None = None
        try:
            session = await session_of(request)
            if session is None:
                if has_cookie(request):
                    return _to_sign_in(request, None)
                raise ProblemError(401, "unauthenticated", "sign in to the console first")
            await check_csrf(request, session)
            return await view(request, Visit(request, session))
        except (ProblemError, StoreError) as error:
            return error_page(request, session, error)

    return endpoint


def live(view: Callable[[Request, Visit], Awaitable[dict[str, object]]]) -> Endpoint:
    """A JSON document of a page's changing numbers, which the page polls."""

    async def endpoint(request: Request) -> Response:
        try:
            # A page polls its numbers by itself: that is no visit, so the idle time runs on.
            session = await session_of(request, touch=False)
            if session is None:
                return JSONResponse({"error": "unauthenticated"}, status_code=401)
            document = await view(request, Visit(request, session))
        except (ProblemError, StoreError) as error:
            status, code, _ = _problem(error)
            return JSONResponse({"error": code}, status_code=status)
        return JSONResponse(document, headers={"Cache-Control": "no-store"})

    return endpoint
