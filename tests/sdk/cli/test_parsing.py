"""Command-line text into SDK arguments: durations, headers, JSON bodies."""

from __future__ import annotations

import pytest

from sdk._cli._errors import CliError
from sdk._cli._parsing import DURATION, json_body, parse_headers


@pytest.mark.parametrize(
    ("text", "value"), [("30", 30), ("0.5", 0.5), ("5m", "5m"), ("500ms", "500ms")]
)
def test_durations_are_numbers_or_the_sdks_text(text: str, value: object) -> None:
    """Plain numbers are seconds; the rest is left to the SDK, which checks it."""
    assert DURATION.convert(text, None, None) == value


def test_headers_split_at_the_first_colon() -> None:
    """`-H 'Name: value'`, values may hold colons; none at all is None."""
    assert parse_headers(("X-A: b", "X-Url: http://x")) == {"X-A": "b", "X-Url": "http://x"}
    assert parse_headers(()) is None
    with pytest.raises(CliError, match="Name: value"):
        parse_headers(("no colon",))


def test_json_bodies_and_their_errors() -> None:
    """A usage error says where the JSON breaks."""
    assert json_body('{"a": [1]}') == {"a": [1]}
    with pytest.raises(CliError, match="not JSON") as raised:
        json_body("{oops")
    assert raised.value.exit_code == 2
