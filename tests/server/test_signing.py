"""Delivery signatures: the JWT's shape, claims and HMAC, and the signing keys."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from server.signing import DEFAULT_TTL_SECONDS, ISSUER, SigningKeys, body_hash, sign


def _decode(segment: str) -> dict[str, object]:
    padded = segment + "=" * (-len(segment) % 4)
    value = json.loads(base64.urlsafe_b64decode(padded))
    assert isinstance(value, dict)
    return value


def test_token_is_an_hs256_jwt_with_every_claim() -> None:
    """The header says HS256 and the claims bind issuer, URL, body hash and validity window."""
    token = sign("key", url="https://example.com/hook", body=b'{"a":1}', now=1_000.25)
    header_segment, claims_segment, _ = token.split(".")
    assert _decode(header_segment) == {"alg": "HS256", "typ": "JWT"}
    claims = _decode(claims_segment)
    assert claims["iss"] == ISSUER == "Spool"
    assert claims["sub"] == "https://example.com/hook"
    assert claims["body"] == body_hash(b'{"a":1}')
    assert claims["iat"] == claims["nbf"] == 1_000
    assert claims["exp"] == 1_000 + DEFAULT_TTL_SECONDS + 1
    assert isinstance(claims["jti"], str) and claims["jti"].startswith("jwt_")


def test_signature_is_hmac_sha256_of_the_signing_input() -> None:
    """The third segment is HMAC-SHA256 over ``header.claims`` with the key's UTF-8 bytes."""
    token = sign("sëcret", url="http://h/", body=b"", now=5.0, ttl=60)
    signing_input, _, signature = token.rpartition(".")
    expected = hmac.new("sëcret".encode(), signing_input.encode(), hashlib.sha256).digest()
    assert signature == base64.urlsafe_b64encode(expected).rstrip(b"=").decode()
    assert "=" not in token


def test_body_hash_is_unpadded_base64url_sha256_of_the_exact_bytes() -> None:
    """Different bytes give different hashes; the encoding is URL-safe without padding."""
    digest = hashlib.sha256(b"hello").digest()
    assert body_hash(b"hello") == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert body_hash(b"hello") != body_hash(b"hello ")
    assert len(body_hash(b"")) == 43


def test_each_token_has_its_own_id_and_custom_ttl_and_issuer() -> None:
    """Two tokens for the same request differ by ``jti``; ttl and issuer are honoured."""
    first = _decode(sign("k", url="http://h/", body=b"x", now=10, ttl=30).split(".")[1])
    second = _decode(sign("k", url="http://h/", body=b"x", now=10, issuer="Other").split(".")[1])
    assert first["jti"] != second["jti"]
    assert first["exp"] == 40
    assert second["iss"] == "Other"


@pytest.mark.parametrize(
    ("key", "ttl", "message"),
    [("", 300.0, "must not be empty"), ("k", 0.0, "positive"), ("k", float("nan"), "positive")],
)
def test_bad_key_or_ttl_is_refused(key: str, ttl: float, message: str) -> None:
    """An empty key or a non-positive ttl is a ValueError, never an unverifiable token."""
    with pytest.raises(ValueError, match=message):
        sign(key, url="http://h/", body=b"", now=0.0, ttl=ttl)


def test_signing_keys_hide_their_values_and_validate() -> None:
    """The repr never shows keys; empty keys are refused; generate makes two distinct keys."""
    keys = SigningKeys(current="sig_current_secret", next="sig_next_secret")
    assert "secret" not in repr(keys)
    with pytest.raises(ValueError, match="next signing key"):
        SigningKeys(current="a", next=" ")
    generated = SigningKeys.generate()
    assert generated.current != generated.next
    assert generated.current.startswith("sig_")
