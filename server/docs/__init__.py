"""Pages for people: the service's front page at ``/`` and the API reference at ``/docs``.

The reference renders openapi.yaml (read from ``/openapi.yaml``) with Swagger UI, whose release
files the service keeps in ``assets/swagger-ui/`` (their version and licence in the README.md
there) and serves itself under ``/docs/assets/``; the page's Content-Security-Policy lets the
browser load nothing from anywhere else. ``GET /docs`` is the document's getApiReference, served by
server/routes/system.py; the front page and the assets are no operations of the API.

On unless the settings turn it off (``Settings.docs``: the config file's ``docs.enabled``,
``$SPOOL_DOCS=0``); then ``/docs`` and its assets are 404 and neither the front page nor the
console links to it.
"""

from __future__ import annotations

from ._pages import (
    ASSETS_DIRECTORY,
    ASSETS_PATH,
    DOCS_PATH,
    SWAGGER_UI_VERSION,
    docs_routes,
    reference_page,
)

__all__ = [
    "ASSETS_DIRECTORY",
    "ASSETS_PATH",
    "DOCS_PATH",
    "SWAGGER_UI_VERSION",
    "docs_routes",
    "reference_page",
]
