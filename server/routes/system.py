"""System: health, the API document itself and its rendered reference (none needs a token), and
the calling token (any token may read itself).
"""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import Response

from .. import __version__
from ..config import DEV_TOKEN_ID
from ..docs import DOCS_PATH, reference_page
from ..problems import ProblemError
from . import _documents as documents
from ._context import context_of
from ._operations import Access, operations, public_operations
from ._responses import json_response

__all__ = ["routes"]

logger = logging.getLogger("spool.server")


async def get_health(request: Request) -> Response:
    """getHealth: 200 when the store answers, 503 ``unavailable`` otherwise."""
    store = context_of(request).store
    try:
        answers = await store.ping()
    except Exception:
        logger.warning("the store failed its health check", exc_info=True)
        answers = False
    if not answers:
        raise ProblemError(
            503, "unavailable", "store does not answer", headers={"Retry-After": "1"}
        )
    return json_response(documents.health(store.kind, __version__))


async def get_openapi_document(request: Request) -> Response:
    """getOpenapiDocument: the exact bytes of openapi.yaml."""
    return Response(context_of(request).spec.document, media_type="application/yaml")


async def get_api_reference(_request: Request) -> Response:
    """getApiReference: the document rendered by Swagger UI (server/docs/). When the settings
    turn it off, the app leaves this route out (so it is 404 like any unserved path).
    """
    return reference_page()


async def get_token(request: Request, access: Access) -> Response:
    """getToken: the token's id, permissions and limits, never its secret."""
    principal = access.principal
    development = context_of(request).settings.development and principal.token_id == DEV_TOKEN_ID
    return json_response(documents.token_info(principal, development=development))


routes = [
    public_operations("/v1/health", GET=get_health),
    public_operations("/openapi.yaml", GET=get_openapi_document),
    public_operations(DOCS_PATH, GET=get_api_reference),
    operations("/v1/token", GET=get_token),
]
