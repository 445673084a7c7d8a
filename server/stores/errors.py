"""The errors a store raises: a refusal with an ``ErrorCode`` of openapi.yaml, an outage, and a
backend out of room.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "ConflictError",
    "NotFoundError",
    "StoreError",
    "StoreFullError",
    "StoreUnavailableError",
]


class StoreError(Exception):
    """A request the store refuses; ``code`` is an ``ErrorCode`` of openapi.yaml."""

    status: ClassVar[int] = 400

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class NotFoundError(StoreError):
    """The named stream, group, queue, job, message, URL group or dead letter does not exist."""

    status = 404


class ConflictError(StoreError):
    """The request conflicts with the resource's state (``group_exists``, ``lease_expired``, …)."""

    status = 409


class StoreUnavailableError(StoreError):
    """The backend does not answer or cannot be used now; the code is ``unavailable``."""

    status = 503
    reason: ClassVar[str] = "unavailable"

    def __init__(self, detail: str) -> None:
        super().__init__(self.reason, detail)


class StoreFullError(StoreUnavailableError):
    """The backend has no room left (SQLite's disk is full, Redis is at ``maxmemory`` with
    ``noeviction``) and refused the call, which changed nothing; the code is ``store_full``.

    An outage too, so that whatever waits out an outage (a delivery poll, a client's retry)
    waits this out the same way: it passes once room is made, with no change to the request.
    """

    reason = "store_full"
