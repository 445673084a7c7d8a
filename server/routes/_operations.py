"""Routes bound to openapi.yaml's operations, so that each request is authorized as the document
says.

The route modules declare their handlers by path and method (:func:`operations`,
:func:`public_operations`); when the app is built, :func:`bind_routes` finds each handler's
operation in the document and refuses to build an app whose routes and document disagree. Before a
handler of a secured operation runs, its request passes, in this order: the bearer token (401),
every name in the path against its pattern (400), the operation's ``x-spool-permission`` (403),
and the name of every query parameter against the operation's (400: a misspelt one is never
ignored).
Scopes ``path`` and ``every`` are checked there in full, and scope ``token`` (the caller's own
token) lets every token through. Scopes ``destination``, ``message`` and
``listed`` name resources that only the body or the store knows, so there the token must hold the
stated action on some resource of the kind, and the handler checks the rest through its
:class:`Access`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, compile_path

from ..auth import Principal
from ..problems import ProblemError
from ._context import authenticate, path_name
from ._query import check_query_names
from ._spec import RequiredPermission, SpecError, SpecFacts, SpecOperation

__all__ = [
    "Access",
    "Handler",
    "PathOperations",
    "PublicHandler",
    "authorize",
    "bind_routes",
    "operations",
    "public_operations",
]

# How a refusal names all the resources of a kind.
_KIND_NAMES = {
    "stream": "streams",
    "queue": "queues",
    "message": "messages",
    "url_group": "URL groups",
    "schedule": "schedules",
}
_WORD_START = re.compile(r"(?<!^)(?=[A-Z])")


# Not frozen: one is made for every request, and a frozen dataclass costs more to make.
@dataclasses.dataclass(slots=True)
class Access:
    """A request that passed its operation's checks: who sent it, the names in its path (each
    matching its pattern), and the permission the document states for the operation, which the
    handler applies to what the body or the store names.
    """

    principal: Principal
    names: dict[str, str]
    permission: RequiredPermission

    def covers(self, name: str) -> bool:
        """Whether the token holds the stated permission on the resource ``name``."""
        resource, action = self.permission.resource, self.permission.action
        if action is None:
            return self.principal.allows_any_action(resource, name)
        return self.principal.allows(resource, name, action)

    def check(self, name: str) -> None:
        """403 ``permission_denied`` unless the token holds the stated permission on ``name``."""
        if not self.covers(name):
            raise self.refusal(f"{self.permission.resource} {name!r}")

    def refusal(self, what: str) -> ProblemError:
        """The 403 ``permission_denied`` saying the token lacks the stated permission on ``what``."""
        action = self.permission.action
        lacks = "has no permission" if action is None else f"may not {action}"
        return ProblemError(
            403, "permission_denied", f"token {self.principal.token_id!r} {lacks} on {what}"
        )


Handler = Callable[[Request, Access], Awaitable[Response]]
PublicHandler = Callable[[Request], Awaitable[Response]]
# What a route calls for a method: a public handler, or a handler behind its operation's checks.
_Endpoint = PublicHandler


@dataclasses.dataclass(frozen=True, slots=True)
class PathOperations:
    """The handlers served on one path, by method, before they are bound to the document."""

    path: str
    handlers: Mapping[str, Handler]
    public_handlers: Mapping[str, PublicHandler]
    purpose: str | None


def operations(path: str, *, purpose: str | None = None, **by_method: Handler) -> PathOperations:
    """The handlers of the operations on ``path`` that need a token, by method. ``purpose`` ends
    the refusal of an operation whose scope is ``every``: what it needs every name for.
    """
    return PathOperations(path, by_method, {}, purpose)


def public_operations(path: str, **by_method: PublicHandler) -> PathOperations:
    """The handlers of the operations on ``path`` that the document lets anyone call."""
    return PathOperations(path, {}, by_method, None)


def bind_routes(
    declared: Sequence[PathOperations],
    spec: SpecFacts,
    *,
    instrument: Callable[[str, _Endpoint], _Endpoint] | None = None,
) -> list[Route]:
    """One route per path, each handler behind its operation's checks, so that a wrong method's
    405 lists all of the path's methods. ``instrument`` wraps each operation's endpoint, checks
    included, given the operation's id (the metrics count requests so).

    SpecError for a handler the document has no operation for, one whose operation has another
    id (``getStream`` is served by ``get_stream``), and one whose operation needs a token when
    the handler is public or the other way round.
    """
    routes: list[Route] = []
    for served in declared:
        _, template, convertors = compile_path(served.path)
        endpoints: dict[str, _Endpoint] = {}
        for method, handler in served.handlers.items():
            operation = _operation(spec, method, template, handler.__name__)
            if operation.permission is None:
                raise SpecError(
                    f"{spec.source}: {operation.operation_id} ({method} {template}) needs no "
                    "token, but the service serves it to token holders only"
                )
            endpoint = _authorized(handler, operation, tuple(convertors), served.purpose)
            endpoints[method] = (
                endpoint if instrument is None else instrument(operation.operation_id, endpoint)
            )
        for method, public_handler in served.public_handlers.items():
            operation = _operation(spec, method, template, public_handler.__name__)
            if operation.permission is not None:
                raise SpecError(
                    f"{spec.source}: {operation.operation_id} ({method} {template}) needs a "
                    "token, but the service serves it to anyone"
                )
            endpoints[method] = (
                public_handler
                if instrument is None
                else instrument(operation.operation_id, public_handler)
            )
        routes.append(_route(served.path, endpoints))
    return routes


def _operation(spec: SpecFacts, method: str, template: str, handler_name: str) -> SpecOperation:
    operation = spec.operations.get((method, template))
    if operation is None:
        raise SpecError(
            f"{spec.source} has no operation {method} {template}, which the service serves with "
            f"{handler_name}"
        )
    if _WORD_START.sub("_", operation.operation_id).lower() != handler_name:
        raise SpecError(
            f"{spec.source}: {method} {template} is {operation.operation_id}, but the service "
            f"serves it with {handler_name}"
        )
    return operation


def _authorized(
    handler: Handler,
    operation: SpecOperation,
    parameters: tuple[str, ...],
    purpose: str | None,
) -> _Endpoint:
    permission = operation.permission
    # bind_routes refuses a handler whose operation needs no token.
    assert permission is not None
    query_names = operation.query_names

    async def endpoint(request: Request) -> Response:
        principal = authenticate(request)
        names = {parameter: path_name(request, parameter) for parameter in parameters}
        access = Access(principal, names, permission)
        _check_operation(access, purpose)
        # Most requests have no query string, and parsing an empty one would cost every publish.
        if request.scope["query_string"]:
            check_query_names(request, query_names)
        return await handler(request, access)

    return endpoint


def authorize(
    principal: Principal,
    operation: SpecOperation,
    names: dict[str, str],
    *,
    purpose: str | None = None,
) -> Access:
    """The access a caller other than a bound route (the web console) has to ``operation``, after
    the same checks a bound route makes once the token and the names have passed (403
    ``permission_denied``); ``names`` must already match their patterns.
    """
    if operation.permission is None:
        raise SpecError(f"{operation.operation_id} needs no token, so it has no access to check")
    access = Access(principal, names, operation.permission)
    _check_operation(access, purpose)
    return access


def _check_operation(access: Access, purpose: str | None) -> None:
    """403 ``permission_denied`` before anything is looked up, unless the token may go on."""
    permission = access.permission
    if permission.scope == "token":
        return
    if permission.scope == "path":
        access.check(access.names[permission.resource])
    elif permission.scope == "every":
        # load_spec_facts refuses scope every with action any.
        assert permission.action is not None
        if not access.principal.allows_every_name(permission.resource, permission.action):
            for_what = "" if purpose is None else f" {purpose}"
            raise ProblemError(
                403,
                "permission_denied",
                f"token {access.principal.token_id!r} needs {permission.action} on every "
                f"{permission.resource} (name '*'){for_what}",
            )
    elif not access.principal.may_act_on_kind(permission.resource, permission.action):
        # The names are in the body or the store: a token with no such permission at all is
        # refused before they are looked at, so it learns nothing about what exists.
        raise access.refusal(_KIND_NAMES[permission.resource])


def _route(path: str, endpoints: Mapping[str, _Endpoint]) -> Route:
    async def dispatch(request: Request) -> Response:
        # Starlette answers HEAD with the GET endpoint and drops the body itself.
        method = "GET" if request.method == "HEAD" else request.method
        return await endpoints[method](request)

    return Route(path, dispatch, methods=list(endpoints))
