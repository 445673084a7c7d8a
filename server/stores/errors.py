"""The errors a store raises: a refusal with an ``ErrorCode`` of openapi.yaml, and an outage."""

from __future__ import annotations

from typing import ClassVar

__all__ = ["ConflictError", "NotFoundError", "StoreError", "StoreUnavailableError"]


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
    """The backend does not answer or cannot be used now; the code is always ``unavailable``."""

    status = 503

    def __init__(self, detail: str) -> None:
        super().__init__("unavailable", detail)
