"""The checks of the store contract (server/stores/checks.py): how the JSON values the stores keep
are written.
"""

from __future__ import annotations

import json
import math

import pytest

from server.stores.checks import dump_json
from server.stores.errors import StoreError


@pytest.mark.parametrize(
    "value",
    [
        {"n": 1, "kind": "bench"},
        [1, 2.5, -0.0, True, False, 'tab\tquote"back\\slash', {"nested": []}],
        {"none": None, "word": "nullable"},
        "caf\u00e9 \u2028",
        "\ud800",
        2**64,
        -(2**63) - 1,
        0.1,
        1e-7,
        1e16,
        1.7976931348623157e308,
    ],
)
def test_a_value_reads_back_as_itself_in_ascii_text(value: object) -> None:
    """Whichever encoder wrote it, the text is compact ASCII JSON that reads back equal."""
    text = dump_json(value, what="a body")
    assert text.isascii()
    assert json.loads(text) == value
    if not isinstance(value, float):
        assert text == json.dumps(value, separators=(",", ":"), ensure_ascii=True)


@pytest.mark.parametrize("value", [math.nan, [math.inf], {"x": -math.inf}])
def test_nan_and_the_infinities_are_refused_not_written_as_null(value: object) -> None:
    """orjson would write them as null; the store refuses them, naming what it was given."""
    with pytest.raises(StoreError, match="a body is not a JSON value") as refused:
        dump_json(value, what="a body")
    assert refused.value.code == "validation_failed"


def test_a_value_that_is_not_json_is_refused() -> None:
    """A set is no JSON value for either encoder."""
    with pytest.raises(StoreError, match="an entry body is not a JSON value"):
        dump_json({1, 2}, what="an entry body")
