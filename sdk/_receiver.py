"""Verifying that a request really comes from Spool: ``Receiver`` and ``SignatureError``.

Every delivery and callback carries a ``Spool-Signature`` header: an HS256 JWT whose claims bind
the SHA-256 of the exact body bytes, the destination URL, and a validity window. ``Receiver`` checks
it with the service's current signing key and then its next one (so keys can rotate without a
rejected delivery), and when it refuses, ``SignatureError.reason`` says why and the message says
what each key gave: an operator can tell a stale clock from a wrong key from a proxy that rewrote
the body.

Verification is pure computation (no I/O), so the same ``Receiver`` serves sync and async apps
alike: call ``verify`` directly from an ``async def`` handler; there is nothing to await.

Verifying needs only the standard library and the SDK itself: no JWT package is involved.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import math
import time
from collections.abc import Iterable, Mapping
from typing import Any

from ._exceptions import SignatureError, SignatureFailure

__all__ = [
    "SIGNATURE_HEADER",
    "Receiver",
    "SignatureError",
    "SignatureFailure",
    "signature_header",
]

SIGNATURE_HEADER = "Spool-Signature"

_ISSUER = "Spool"
_ALGORITHM = "HS256"


def _decode_segment(segment: str, what: str) -> bytes:
    try:
        # validate=True: the lenient default silently drops characters outside the alphabet.
        return base64.b64decode(segment + "=" * (-len(segment) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise SignatureError(
            f"malformed signature: the {what} is not base64url", reason="malformed"
        ) from None


def _decode_json(segment: str, what: str) -> dict[str, Any]:
    try:
        value = json.loads(_decode_segment(segment, what))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise SignatureError(
            f"malformed signature: the {what} is not JSON", reason="malformed"
        ) from None
    if not isinstance(value, dict):
        raise SignatureError(
            f"malformed signature: the {what} is not a JSON object", reason="malformed"
        )
    return value


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


class _Token:
    """A JWT split and decoded, with its claims checked for shape (not yet for validity)."""

    __slots__ = ("claims", "signature", "signing_input")

    def __init__(self, token: object) -> None:
        if not isinstance(token, str) or not token.strip():
            raise SignatureError(
                "malformed signature: it is empty (is the Spool-Signature header missing?)",
                reason="malformed",
            )
        parts = token.strip().split(".")
        if len(parts) != 3:
            raise SignatureError(
                f"malformed signature: a JWT has 3 dot-separated parts, this one has {len(parts)}",
                reason="malformed",
            )
        header = _decode_json(parts[0], "header")
        if header.get("alg") != _ALGORITHM:
            raise SignatureError(
                f"malformed signature: algorithm {header.get('alg')!r} is not {_ALGORITHM}",
                reason="malformed",
            )
        self.claims = _decode_json(parts[1], "claims")
        for name in ("iss", "sub", "body"):
            if not isinstance(self.claims.get(name), str):
                raise SignatureError(
                    f"malformed signature: the {name!r} claim is missing or not a string",
                    reason="malformed",
                )
        for name in ("exp", "nbf"):
            if not _is_number(self.claims.get(name)):
                raise SignatureError(
                    f"malformed signature: the {name!r} claim is missing or not a number",
                    reason="malformed",
                )
        self.signing_input = f"{parts[0]}.{parts[1]}".encode("ascii", errors="replace")
        self.signature = _decode_segment(parts[2], "signature")


class Receiver:
    """Verifies ``Spool-Signature`` headers with the service's current and next signing keys.

    The keys are those ``GET /v1/signing-keys`` shows (``client.messages.signing_keys()``).
    ``verify`` is pure, so one instance serves sync and async handlers and many threads at once.

    Raises:
        ValueError: a key is not a non-empty string.
    """

    __slots__ = ("_keys",)

    def __init__(self, current_signing_key: str, next_signing_key: str) -> None:
        for name, key in (("current", current_signing_key), ("next", next_signing_key)):
            if not isinstance(key, str) or not key:
                raise ValueError(f"the {name} signing key must be a non-empty string")
        self._keys = (("current", current_signing_key), ("next", next_signing_key))

    def __repr__(self) -> str:
        return "Receiver(current_signing_key=<hidden>, next_signing_key=<hidden>)"

    def verify(
        self,
        signature: str,
        body: bytes | bytearray | memoryview | str,
        url: str | None = None,
        clock_tolerance: float = 0,
    ) -> None:
        """Return when ``signature`` is valid for ``body`` (and ``url``, when given); else raise
        ``SignatureError``.

        ``body`` must be the raw request body, exactly as received (bytes, or a str, which is
        encoded as UTF-8): re-serialised JSON has other bytes and fails with ``body_mismatch``.
        ``url`` is compared with the URL the message was sent to. ``clock_tolerance`` is how many
        seconds the expiry and not-before times may be off, for clocks that drift.

        Raises:
            SignatureError: the signature does not verify with either key; ``reason`` says why
                (``malformed``, ``bad_signature``, ``expired``, ``not_yet_valid``,
                ``body_mismatch``, ``url_mismatch``, ``wrong_issuer``).
            TypeError: ``body`` is neither bytes nor str.
            ValueError: ``clock_tolerance`` is not a number of seconds >= 0.
        """
        body_bytes = _body_bytes(body)
        if not _is_number(clock_tolerance) or clock_tolerance < 0:
            raise ValueError(
                f"clock_tolerance must be a number of seconds >= 0, not {clock_tolerance!r}"
            )
        token = _Token(signature)
        failures: list[tuple[str, SignatureFailure, str]] = []
        for name, key in self._keys:
            failure = _check(token, key, body_bytes, url, float(clock_tolerance), time.time())
            if failure is None:
                return
            failures.append((name, failure[0], failure[1]))
        raise _combined_error(failures)

    def verify_request(
        self,
        *,
        body: bytes | bytearray | memoryview | str,
        headers: Mapping[str, str] | Iterable[tuple[str, str]],
        url: str,
        clock_tolerance: float = 0,
    ) -> None:
        """Verify a whole request: its ``Spool-Signature`` header (any case) against its raw
        ``body`` and the public ``url`` the service delivered to; else raise ``SignatureError``.

        The framework-agnostic core of ``sdk.starlette`` and ``sdk.flask``: ``headers`` is any
        mapping or list of (name, value) pairs, as a framework gives them.

        Raises:
            SignatureError: as for ``verify``; ``malformed`` when the header is missing.
            TypeError: ``body`` is neither bytes nor str.
            ValueError: ``clock_tolerance`` is not a number of seconds >= 0.
        """
        self.verify(signature_header(headers), body, url=url, clock_tolerance=clock_tolerance)


def signature_header(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> str:
    """The ``Spool-Signature`` value among ``headers``, whatever their case; "" when absent."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    wanted = SIGNATURE_HEADER.lower()
    for name, value in pairs:
        if name.lower() == wanted:
            return value
    return ""


def _body_bytes(body: object) -> bytes:
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, bytes | bytearray | memoryview):
        return bytes(body)
    raise TypeError(f"body must be bytes or str, not {type(body).__name__}")


def _check(
    token: _Token, key: str, body: bytes, url: str | None, tolerance: float, now: float
) -> tuple[SignatureFailure, str] | None:
    expected = hmac.new(key.encode("utf-8"), token.signing_input, hashlib.sha256).digest()
    if not hmac.compare_digest(expected, token.signature):
        return "bad_signature", "the signature does not match this key"
    claims = token.claims
    if claims["iss"] != _ISSUER:
        return "wrong_issuer", f"the issuer is {claims['iss']!r}, not {_ISSUER!r}"
    if now >= claims["exp"] + tolerance:
        return "expired", (
            f"it expired {now - claims['exp']:.0f} s ago (clock tolerance {tolerance:g} s)"
        )
    if now < claims["nbf"] - tolerance:
        return "not_yet_valid", (
            f"it is valid only in {claims['nbf'] - now:.0f} s (clock tolerance {tolerance:g} s); "
            "is a clock wrong?"
        )
    if url is not None and claims["sub"] != url:
        return "url_mismatch", f"it was signed for {claims['sub']!r}, not {url!r}"
    digest = base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode()
    if not hmac.compare_digest(claims["body"].rstrip("="), digest):
        return "body_mismatch", (
            "the body's SHA-256 differs from the signed one; verify the raw body bytes, "
            "not re-serialised JSON"
        )
    return None


def _combined_error(failures: list[tuple[str, SignatureFailure, str]]) -> SignatureError:
    # A key whose HMAC matched knows the real problem; the other key's mismatch is just noise.
    telling = [failure for failure in failures if failure[1] != "bad_signature"]
    reason = telling[0][1] if telling else "bad_signature"
    details = "; ".join(f"{name} key: {kind}, {detail}" for name, kind, detail in failures)
    return SignatureError(
        f"signature verification failed ({reason}): {details}",
        reason=reason,
        failures=tuple(failures),
    )
