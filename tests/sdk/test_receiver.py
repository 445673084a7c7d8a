"""Receiver: verifying Spool-Signature tokens, and saying exactly why one is refused."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest

from sdk._receiver import Receiver, SignatureError
from server.signing import sign

CURRENT = "sig_current_key"
NEXT = "sig_next_key"
URL = "https://example.com/hooks/signup"
BODY = b'{"hello":"world","emoji":"\xf0\x9f\x93\xa8"}'


@pytest.fixture
def receiver() -> Receiver:
    """A receiver holding the test's current and next keys."""
    return Receiver(current_signing_key=CURRENT, next_signing_key=NEXT)


def _token(
    key: str = CURRENT, *, url: str = URL, body: bytes = BODY, age: float = 0.0, ttl: float = 300
) -> str:
    """A token signed ``age`` seconds ago (negative: in the future)."""
    return sign(key, url=url, body=body, now=time.time() - age, ttl=ttl)


def _forged(claims: dict[str, object], *, key: str = CURRENT, alg: str = "HS256") -> str:
    """A token with arbitrary claims, signed correctly with ``key``."""

    def segment(value: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    signing_input = f"{segment({'alg': alg, 'typ': 'JWT'})}.{segment(claims)}"
    mac = hmac.new(key.encode(), signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"


def _claims(**changes: object) -> dict[str, object]:
    now = int(time.time())
    body = base64.urlsafe_b64encode(hashlib.sha256(BODY).digest()).rstrip(b"=").decode()
    claims: dict[str, object] = {
        "iss": "Spool",
        "sub": URL,
        "body": body,
        "iat": now,
        "nbf": now,
        "exp": now + 300,
    }
    claims.update(changes)
    return {name: value for name, value in claims.items() if value is not None}


def test_valid_signature_verifies(receiver: Receiver) -> None:
    """A fresh token for this body and URL verifies, with or without the URL check."""
    token = _token()
    receiver.verify(token, BODY, url=URL)
    receiver.verify(token, BODY)
    receiver.verify(signature=token, body=BODY, url=URL, clock_tolerance=5)


def test_bytes_and_str_bodies_both_verify(receiver: Receiver) -> None:
    """A str body is its UTF-8 bytes, so both forms of the same body verify."""
    token = _token()
    receiver.verify(token, BODY.decode("utf-8"), url=URL)
    receiver.verify(token, bytearray(BODY), url=URL)
    receiver.verify(token, memoryview(BODY), url=URL)


def test_padded_body_claim_is_accepted(receiver: Receiver) -> None:
    """Signers that keep base64 padding on the body hash still verify."""
    padded = base64.urlsafe_b64encode(hashlib.sha256(BODY).digest()).decode()
    assert padded.endswith("=")
    receiver.verify(_forged(_claims(body=padded)), BODY, url=URL)


def test_tampered_body_is_a_body_mismatch(receiver: Receiver) -> None:
    """One changed byte of the body fails with ``body_mismatch`` and a hint about raw bytes."""
    with pytest.raises(SignatureError, match="raw body bytes") as caught:
        receiver.verify(_token(), BODY.replace(b"world", b"World"), url=URL)
    assert caught.value.reason == "body_mismatch"


def test_reserialised_json_body_is_a_body_mismatch(receiver: Receiver) -> None:
    """Verifying ``json.dumps(json.loads(body))`` instead of the raw body fails clearly."""
    with pytest.raises(SignatureError) as caught:
        receiver.verify(_token(), json.dumps(json.loads(BODY)), url=URL)
    assert caught.value.reason == "body_mismatch"


def test_wrong_url_is_a_url_mismatch(receiver: Receiver) -> None:
    """A token signed for another URL fails with ``url_mismatch`` naming both URLs."""
    with pytest.raises(SignatureError, match="signed for 'https://example.com/other'") as caught:
        receiver.verify(_token(url="https://example.com/other"), BODY, url=URL)
    assert caught.value.reason == "url_mismatch"
    assert URL in str(caught.value)


def test_expired_within_tolerance_verifies(receiver: Receiver) -> None:
    """A token expired 30 s ago verifies with 60 s of clock tolerance (qstash-py ignores it)."""
    receiver.verify(_token(age=330), BODY, url=URL, clock_tolerance=60)


def test_expired_beyond_tolerance_is_expired(receiver: Receiver) -> None:
    """A token expired 30 s ago fails with ``expired`` without tolerance, or with too little."""
    token = _token(age=330)
    for tolerance in (0, 10):
        with pytest.raises(SignatureError, match="expired") as caught:
            receiver.verify(token, BODY, url=URL, clock_tolerance=tolerance)
        assert caught.value.reason == "expired"


def test_not_yet_valid_within_and_beyond_tolerance(receiver: Receiver) -> None:
    """A token from 60 s in the future is ``not_yet_valid`` unless the tolerance covers it."""
    token = _token(age=-60)
    with pytest.raises(SignatureError, match="clock") as caught:
        receiver.verify(token, BODY, url=URL)
    assert caught.value.reason == "not_yet_valid"
    receiver.verify(token, BODY, url=URL, clock_tolerance=120)


def test_token_signed_with_the_next_key_verifies(receiver: Receiver) -> None:
    """After a rotation the service signs with what receivers know as next: still accepted."""
    receiver.verify(_token(NEXT), BODY, url=URL)


def test_unknown_key_is_a_bad_signature_for_both_keys(receiver: Receiver) -> None:
    """A token signed with neither key fails with ``bad_signature`` reported for each key."""
    with pytest.raises(SignatureError, match="current key: bad_signature.*next key") as caught:
        receiver.verify(_token("some_other_key"), BODY, url=URL)
    assert caught.value.reason == "bad_signature"
    assert [(name, reason) for name, reason, _ in caught.value.failures] == [
        ("current", "bad_signature"),
        ("next", "bad_signature"),
    ]


def test_expired_with_current_key_keeps_its_reason(receiver: Receiver) -> None:
    """The key fallback does not hide the cause: expired with current, bad signature with next."""
    with pytest.raises(SignatureError) as caught:
        receiver.verify(_token(age=400), BODY, url=URL)
    error = caught.value
    assert error.reason == "expired"
    assert [(name, reason) for name, reason, _ in error.failures] == [
        ("current", "expired"),
        ("next", "bad_signature"),
    ]
    assert "current key: expired" in str(error)
    assert "next key: bad_signature" in str(error)


def test_wrong_issuer_is_refused(receiver: Receiver) -> None:
    """A correctly signed token from another issuer fails with ``wrong_issuer``."""
    with pytest.raises(SignatureError, match="'Upstash'") as caught:
        receiver.verify(_forged(_claims(iss="Upstash")), BODY, url=URL)
    assert caught.value.reason == "wrong_issuer"


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("abc", "3 dot-separated parts, this one has 1"),
        ("a.b.c.d", "this one has 4"),
        ("!!!.e30.sig", "header is not base64url"),
        (f"{base64.urlsafe_b64encode(b'not json').decode()}.e30.c2ln", "header is not JSON"),
        (f"{base64.urlsafe_b64encode(b'[1]').decode()}.e30.c2ln", "header is not a JSON object"),
        (_forged(_claims(), alg="none"), "algorithm 'none' is not HS256"),
        (_forged(_claims(alg="x"), alg="HS512"), "algorithm 'HS512'"),
        (_forged(_claims(sub=None)), "'sub' claim is missing"),
        (_forged(_claims(body=12)), "'body' claim is missing or not a string"),
        (_forged(_claims(exp="soon")), "'exp' claim is missing or not a number"),
        (_forged(_claims(nbf=True)), "'nbf' claim"),
    ],
)
def test_malformed_tokens_are_refused(receiver: Receiver, token: str, message: str) -> None:
    """Tokens that are not well-formed HS256 JWTs fail with ``malformed`` and say what is wrong."""
    with pytest.raises(SignatureError, match=message) as caught:
        receiver.verify(token, BODY, url=URL)
    assert caught.value.reason == "malformed"


def test_missing_header_value_is_malformed(receiver: Receiver) -> None:
    """A None signature (header absent) is a SignatureError, not a TypeError."""
    with pytest.raises(SignatureError, match="header missing") as caught:
        receiver.verify(None, BODY)  # type: ignore[arg-type]
    assert caught.value.reason == "malformed"


def test_bad_arguments_are_type_and_value_errors(receiver: Receiver) -> None:
    """A body of another type or a negative tolerance is a programming error, said plainly."""
    with pytest.raises(TypeError, match="bytes or str, not dict"):
        receiver.verify(_token(), {"hello": "world"})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="clock_tolerance"):
        receiver.verify(_token(), BODY, clock_tolerance=-1)
    with pytest.raises(ValueError, match="next signing key"):
        Receiver(CURRENT, "")


def test_repr_never_shows_keys(receiver: Receiver) -> None:
    """Logging a receiver does not leak its keys."""
    assert CURRENT not in repr(receiver)
    assert NEXT not in repr(receiver)
    assert "hidden" in repr(receiver)


async def test_verify_works_unchanged_in_async_code(receiver: Receiver) -> None:
    """The receiver is pure, so an async handler calls the same method without awaiting."""
    receiver.verify(_token(), BODY, url=URL)


def test_signature_error_is_the_public_spool_error() -> None:
    """What the receiver raises is ``sdk.SignatureError``, under the SDK's ``SpoolError`` root."""
    import sdk

    assert sdk.Receiver is Receiver
    assert SignatureError is sdk.SignatureError
    error = SignatureError("why", reason="expired")
    assert isinstance(error, sdk.SpoolError)
    assert error.reason == "expired"
    assert error.failures == ()


def test_verify_request_finds_the_header_in_any_case_and_form(receiver: Receiver) -> None:
    """verify_request reads Spool-Signature from a mapping or from pairs, whatever its case."""
    token = _token()
    receiver.verify_request(body=BODY, headers={"spool-signature": token}, url=URL)
    receiver.verify_request(body=BODY, headers=[("SPOOL-SIGNATURE", token)], url=URL)
    receiver.verify_request(
        body=BODY, headers=[("Content-Type", "text/plain"), ("Spool-Signature", token)], url=URL
    )


def test_verify_request_refuses_a_missing_header_a_wrong_url_and_a_changed_body(
    receiver: Receiver,
) -> None:
    """verify_request fails as verify does: each reason names what is wrong."""
    token = _token()
    cases = [
        ({"Content-Type": "application/json"}, BODY, URL, "malformed"),
        ({"Spool-Signature": token}, BODY, "https://example.com/elsewhere", "url_mismatch"),
        ({"Spool-Signature": token}, BODY + b" ", URL, "body_mismatch"),
    ]
    for headers, body, url, reason in cases:
        with pytest.raises(SignatureError) as caught:
            receiver.verify_request(body=body, headers=headers, url=url)
        assert caught.value.reason == reason


def test_verify_request_passes_the_clock_tolerance_on(receiver: Receiver) -> None:
    """A token a little past its expiry verifies within the tolerance given."""
    token = _token(age=310)
    with pytest.raises(SignatureError):
        receiver.verify_request(body=BODY, headers={"Spool-Signature": token}, url=URL)
    receiver.verify_request(
        body=BODY, headers={"Spool-Signature": token}, url=URL, clock_tolerance=30
    )
