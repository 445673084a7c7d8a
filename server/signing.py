"""Signatures on deliveries and callbacks: HS256 JWTs made with the standard library.

Each request the delivery engine sends carries ``Spool-Signature: <JWT>``. The token's claims bind
the SHA-256 of the exact body bytes (``body``), the destination URL (``sub``), and a short validity
window (``iat``/``nbf``/``exp``), so a receiver holding the signing key knows the request came from
this service, was meant for it, and was not altered or replayed long after. The service holds a
current and a next key: it signs with the current one, receivers accept either, so an operator can
rotate keys (next becomes current, a fresh next is made) without rejecting a delivery in flight.

``sdk.Receiver`` verifies these tokens; the two sides share only this wire format.

A message published with ``signature_scheme: standard_webhooks`` is signed the Standard Webhooks
way instead (https://www.standardwebhooks.com): ``webhook-id``, ``webhook-timestamp`` and
``webhook-signature``, an HMAC-SHA256 of ``{id}.{timestamp}.{body}``. Its secret is the same key:
``whsec_`` and the base64 of the key's UTF-8 bytes (:func:`standard_webhooks_secret`). The
header lists a signature by each of the two keys, which the scheme allows for rotation, so a
receiver configured with either one accepts the delivery.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import math
import secrets

from .ids import new_id

__all__ = [
    "DEFAULT_TTL_SECONDS",
    "ISSUER",
    "SIGNATURE_HEADER",
    "SigningKeys",
    "STANDARD_WEBHOOKS_HEADERS",
    "body_hash",
    "sign",
    "standard_webhooks_headers",
    "standard_webhooks_secret",
]

ISSUER = "Spool"
SIGNATURE_HEADER = "Spool-Signature"
DEFAULT_TTL_SECONDS = 300.0
STANDARD_WEBHOOKS_HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")
_STANDARD_WEBHOOKS_SECRET_PREFIX = "whsec_"

_HEADER = {"alg": "HS256", "typ": "JWT"}


def _base64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _json_segment(value: object) -> str:
    return _base64url(json.dumps(value, separators=(",", ":"), sort_keys=True).encode("utf-8"))


_HEADER_SEGMENT = _json_segment(_HEADER)


def body_hash(body: bytes) -> str:
    """The ``body`` claim: unpadded base64url of the SHA-256 of the exact body bytes."""
    return _base64url(hashlib.sha256(body).digest())


def sign(
    key: str,
    *,
    url: str,
    body: bytes,
    now: float,
    ttl: float = DEFAULT_TTL_SECONDS,
    issuer: str = ISSUER,
) -> str:
    """An HS256 JWT for a request of ``body`` to ``url``, valid from ``now`` for ``ttl`` seconds."""
    if not key:
        raise ValueError("a signing key must not be empty")
    if not (math.isfinite(ttl) and ttl > 0):
        raise ValueError(f"ttl must be a positive number of seconds, not {ttl!r}")
    issued_at = math.floor(now)
    claims = {
        "iss": issuer,
        "sub": url,
        "body": body_hash(bytes(body)),
        "iat": issued_at,
        "nbf": issued_at,
        "exp": math.ceil(now + ttl),
        "jti": new_id("jwt", now=now),
    }
    signing_input = f"{_HEADER_SEGMENT}.{_json_segment(claims)}"
    signature = hmac.new(key.encode("utf-8"), signing_input.encode("ascii"), hashlib.sha256)
    return f"{signing_input}.{_base64url(signature.digest())}"


def standard_webhooks_secret(key: str) -> str:
    """``key`` as a Standard Webhooks secret: ``whsec_`` and the base64 of its UTF-8 bytes."""
    return _STANDARD_WEBHOOKS_SECRET_PREFIX + base64.b64encode(key.encode("utf-8")).decode("ascii")


def standard_webhooks_headers(
    keys: SigningKeys, *, message_id: str, body: bytes, now: float
) -> dict[str, str]:
    """The Standard Webhooks headers of a delivery of ``body``, signed by both ``keys``."""
    timestamp = str(math.floor(now))
    signed = f"{message_id}.{timestamp}.".encode() + bytes(body)
    signatures = " ".join(
        "v1," + base64.b64encode(hmac.digest(key.encode("utf-8"), signed, "sha256")).decode()
        for key in (keys.current, keys.next)
    )
    webhook_id, webhook_timestamp, webhook_signature = STANDARD_WEBHOOKS_HEADERS
    return {webhook_id: message_id, webhook_timestamp: timestamp, webhook_signature: signatures}


@dataclasses.dataclass(frozen=True, slots=True)
class SigningKeys:
    """The current key (signs everything) and the next one (accepted by receivers, for rotation)."""

    current: str = dataclasses.field(repr=False)
    next: str = dataclasses.field(repr=False)

    def __post_init__(self) -> None:
        for name in ("current", "next"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"the {name} signing key must be a non-empty string")

    @classmethod
    def generate(cls) -> SigningKeys:
        """A fresh random pair, for a deployment that configured none."""
        return cls(
            current=f"sig_{secrets.token_urlsafe(32)}", next=f"sig_{secrets.token_urlsafe(32)}"
        )
