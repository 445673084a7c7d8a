"""Message options (sdk/_message_options.py): their names, their help and their checks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import respx

import sdk
from tests.sdk._support import resolve, sent_json


async def test_not_before_and_a_timedelta_retry_delay(
    client: sdk.Client | sdk.AsyncClient, publish: respx.Route
) -> None:
    """not_before is sent as an RFC 3339 time; a duration retry_delay is fixed milliseconds."""
    await resolve(
        client.messages.publish_json(
            url="https://my-api.test/hook",
            body={},
            not_before=datetime(2026, 11, 29, 13, tzinfo=UTC),
            retry_delay=timedelta(seconds=2),
        )
    )
    sent = sent_json(publish.calls.last)
    assert datetime.fromisoformat(sent["not_before"]) == datetime(2026, 11, 29, 13, tzinfo=UTC)
    assert sent["retry_delay"] == "2000"
    await resolve(
        client.messages.publish_json(url="https://my-api.test/hook", body={}, retry_delay="5s")
    )
    assert sent_json(publish.calls.last)["retry_delay"] == "5000"


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"url": "https://a.test", "url_group": "partners"},
        {"url": "ftp://a.test"},
        {"url": "https://"},
        {"url": "https://a.test/\n"},
        {"url_group": "bad name"},
        {"url": "https://a.test", "delay": 1, "not_before": 0},
        {"url": "https://a.test", "delay": "8d"},
        {"url": "https://a.test", "timeout": 0},
        {"url": "https://a.test", "timeout": "16m"},
        {"url": "https://a.test", "retries": 21},
        {"url": "https://a.test", "method": "TRACE"},
        {"url": "https://a.test", "headers": {"X": 1}},
        {"url": "https://a.test", "callback": "not-a-url"},
        {"url": "https://a.test", "not_before": datetime(2026, 11, 29)},
        {"url": "https://a.test", "idempotency_key": "has space"},
    ],
)
async def test_bad_options_raise_before_any_request(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, options: dict[str, Any]
) -> None:
    """Destinations, durations, retries, methods and headers are checked client-side."""
    with pytest.raises(sdk.InvalidArgumentError):
        await resolve(client.messages.publish_json(body={}, **options))
    assert api.calls.call_count == 0


@pytest.mark.parametrize("method", ["publish", "publish_json"])
async def test_a_misspelled_option_is_a_type_error(client: Any, method: str) -> None:
    """An unknown keyword is refused before anything is sent, naming the likely intent."""
    with pytest.raises(
        TypeError, match=r"unexpected keyword argument 'dealy'; did you mean 'delay'"
    ):
        await resolve(
            getattr(client.messages, method)(url="https://example.com/hook", body="x", dealy="1h")
        )


@pytest.mark.parametrize("resource", [sdk.Messages, sdk.AsyncMessages])
def test_help_shows_the_message_options(
    resource: type[sdk.Messages] | type[sdk.AsyncMessages],
) -> None:
    """help() lists every option, which `**options` alone would hide."""
    for method in (resource.publish, resource.publish_json):
        for option in ("delay", "retries", "headers", "content_based_deduplication"):
            assert f"`{option}`" in (method.__doc__ or "")
