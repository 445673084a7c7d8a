"""Response bodies from ``server/encoding.py``: compact UTF-8 JSON, whatever the values."""

from __future__ import annotations

import json

from server.encoding import json_bytes


def test_documents_are_compact_utf8_json() -> None:
    """No spaces, no ASCII escaping, and the same document when read back."""
    document = {"id": "1-0", "text": "naïve ☃", "n": [1, 2.5, None, True], "nested": {"a": {}}}
    written = json_bytes(document)
    assert (
        written == '{"id":"1-0","text":"naïve ☃","n":[1,2.5,null,true],"nested":{"a":{}}}'.encode()
    )
    assert json.loads(written) == document


def test_integers_beyond_64_bits_are_written_exactly() -> None:
    """An any-JSON body may hold a huge integer; it comes back out digit for digit."""
    document = {"body": [2**64, -(2**70), 10**30]}
    assert json.loads(json_bytes(document)) == document
