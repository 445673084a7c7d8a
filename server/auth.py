"""Bearer tokens: who is calling, and whether they may act on a resource.

A token's permissions name a resource kind (``stream``, ``queue``, ``message``, ``url_group``,
``schedule`` or ``*``), a glob over names and the actions allowed (``publish``, ``consume``, ``admin``); no action
implies another. For ``message`` resources the glob is matched against the destination URL, or the
URL group's name when a message is published to a group; URLs are matched part by part (see
:mod:`server.globs`), so a ``*`` never reaches across a ``/``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac

from .config import Action, Permission, RateLimit, Resource, TokenConfig
from .globs import glob_matches
from .problems import ProblemError

__all__ = ["Principal", "TokenRegistry"]

_UNAUTHENTICATED_HEADERS = {"WWW-Authenticate": 'Bearer realm="spool"'}


@dataclasses.dataclass(frozen=True, slots=True)
class Principal:
    """The authenticated caller: a token's id, permissions and limits (never its secret)."""

    token_id: str
    permissions: tuple[Permission, ...]
    quota: int | None = None
    rate_limit: RateLimit | None = None

    def allows(self, resource: Resource, name: str, action: Action) -> bool:
        """Whether some permission grants ``action`` on the resource ``name`` of this kind."""
        return any(
            action in rule.actions and _covers(rule, resource) and glob_matches(rule.name, name)
            for rule in self.permissions
        )

    def allows_any_action(self, resource: Resource, name: str) -> bool:
        """Whether some permission grants any action at all on the resource ``name``."""
        return any(
            _covers(rule, resource) and glob_matches(rule.name, name) for rule in self.permissions
        )

    def may_act_on_kind(self, resource: Resource, action: Action | None = None) -> bool:
        """Whether some permission grants ``action`` (any action when None) on some resource of
        this kind, whatever its name.
        """
        return any(
            _covers(rule, resource) and (action is None or action in rule.actions)
            for rule in self.permissions
        )

    def allows_every_name(self, resource: Resource, action: Action) -> bool:
        """Whether ``action`` is granted on every resource of this kind: by one permission named
        exactly ``*``. Globs that cover many names, even all of them together, are not enough: no
        URL glob covers a message to a URL group, and what needs every name (the signing keys) is
        granted only when a token's configuration says so in so many words.
        """
        return any(
            action in rule.actions and _covers(rule, resource) and rule.name == "*"
            for rule in self.permissions
        )


def _covers(rule: Permission, resource: Resource) -> bool:
    return rule.resource == "*" or rule.resource == resource


class TokenRegistry:
    """Finds the token a request presents, comparing secrets in constant time."""

    def __init__(self, tokens: tuple[TokenConfig, ...]) -> None:
        # Comparing fixed-length digests keeps the time independent of the secrets' lengths. Each
        # token's principal is made once: it is immutable, and making it (a frozen dataclass) cost
        # a third of authenticating a request.
        self._tokens = [
            (hashlib.sha256(token.secret.encode()).digest(), _principal(token)) for token in tokens
        ]

    def authenticate(self, authorization: str | None) -> Principal:
        """The caller named by an ``Authorization`` header; 401 ``unauthenticated`` otherwise."""
        if not authorization:
            raise ProblemError(
                401, "unauthenticated", "missing bearer token", headers=_UNAUTHENTICATED_HEADERS
            )
        scheme, _, presented = authorization.partition(" ")
        presented = presented.strip()
        if scheme.lower() != "bearer" or not presented:
            raise ProblemError(
                401,
                "unauthenticated",
                "the Authorization header must be `Bearer <token>`",
                headers=_UNAUTHENTICATED_HEADERS,
            )
        digest = hashlib.sha256(presented.encode()).digest()
        found: Principal | None = None
        # Every token is compared, without stopping early, so timing does not tell which matched.
        for known_digest, principal in self._tokens:
            if hmac.compare_digest(known_digest, digest):
                found = principal
        if found is None:
            raise ProblemError(
                401, "unauthenticated", "unknown bearer token", headers=_UNAUTHENTICATED_HEADERS
            )
        return found


def _principal(token: TokenConfig) -> Principal:
    return Principal(
        token_id=token.id,
        permissions=token.permissions,
        quota=token.quota,
        rate_limit=token.rate_limit,
    )
