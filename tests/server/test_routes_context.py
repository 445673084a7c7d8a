"""What a route reads of its request (server/routes/_context.py): headers as Starlette reads them."""

from __future__ import annotations

import pytest
from starlette.requests import Request

from server.routes._context import header

_HEADERS = [
    (b"host", b"api.example"),
    (b"idempotency-key", b"first"),
    (b"idempotency-key", b"second"),
    (b"x-latin", "caf\u00e9".encode("latin-1")),
]


@pytest.mark.parametrize("name", ["host", "idempotency-key", "x-latin", "traceparent"])
def test_a_header_is_what_starlette_answers(name: str) -> None:
    """The first of a repeated header, None for an absent one, latin-1 text, read twice alike."""
    request = Request({"type": "http", "headers": _HEADERS})
    expected = request.headers.get(name)
    assert header(request, name.encode("latin-1")) == expected
    assert header(request, name.encode("latin-1")) == expected
