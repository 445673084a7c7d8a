"""The API reference page, its assets, and the front page that links to it."""

from __future__ import annotations

from pathlib import Path

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

__all__ = [
    "ASSETS_DIRECTORY",
    "ASSETS_PATH",
    "DOCS_PATH",
    "SWAGGER_UI_VERSION",
    "docs_routes",
    "reference_page",
]

DOCS_PATH = "/docs"
ASSETS_PATH = f"{DOCS_PATH}/assets"
# The release of swagger-ui-dist kept in assets/swagger-ui/ (its README.md says how to change it).
SWAGGER_UI_VERSION = "5.35.0"
_HERE = Path(__file__).resolve().parent
ASSETS_DIRECTORY = _HERE / "assets"
# Paths of the API, named here rather than imported: server.routes imports this package.
_DOCUMENT_PATH = "/openapi.yaml"
_HEALTH_PATH = "/v1/health"

# Everything the reference uses is served from here; the policy makes the browser hold it to that.
# Swagger UI's stylesheet draws a few icons as data: images, which fetch nothing.
_REFERENCE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
# The front page is links and nothing else.
_FRONT_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}

_environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(_HERE / "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
# The page is the same for every request.
_REFERENCE = _environment.get_template("reference.html").render(
    assets=ASSETS_PATH, document=_DOCUMENT_PATH
)


def reference_page() -> HTMLResponse:
    """The API reference: Swagger UI over the service's own ``/openapi.yaml``."""
    return HTMLResponse(_REFERENCE, headers=_REFERENCE_HEADERS)


def docs_routes(*, version: str, docs: bool, console_path: str | None) -> list[BaseRoute]:
    """The front page at ``/``, linking to the API reference when ``docs`` is on and to the
    console at ``console_path`` when it is served, and, when ``docs`` is on, the reference's
    assets under ``/docs/assets``. ``/docs`` itself is an operation of the document, bound with
    the others.
    """
    front = _environment.get_template("front.html").render(
        version=version,
        docs_path=DOCS_PATH if docs else None,
        document=_DOCUMENT_PATH,
        console_path=console_path,
        health=_HEALTH_PATH,
    )

    async def front_page(_request: Request) -> Response:
        return HTMLResponse(front, headers=_FRONT_HEADERS)

    routes: list[BaseRoute] = [Route("/", front_page, methods=["GET"])]
    if docs:
        assets = StaticFiles(directory=ASSETS_DIRECTORY)
        routes.append(Mount(ASSETS_PATH, app=assets, name="docs-assets"))
    return routes
