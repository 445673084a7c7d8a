"""URL groups (sdk/_url_groups.py)."""

from __future__ import annotations

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import resolve, sent_json

GROUP = {
    "name": "partners",
    "endpoints": [{"url": "https://one.test/hook", "name": "one"}, {"url": "https://two.test/h"}],
    "created_at": "2026-11-29T12:00:00Z",
    "updated_at": "2026-11-29T12:05:00Z",
}


async def test_url_groups(client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter) -> None:
    """upsert takes URLs or UrlEndpoints; get, list and delete round it off."""
    put = api.put("/v1/url-groups/partners").mock(return_value=httpx.Response(200, json=GROUP))
    api.get("/v1/url-groups/partners").mock(return_value=httpx.Response(200, json=GROUP))
    api.get("/v1/url-groups").mock(return_value=httpx.Response(200, json={"url_groups": [GROUP]}))
    delete = api.delete("/v1/url-groups/partners").mock(return_value=httpx.Response(204))
    group = await resolve(
        client.url_groups.upsert(
            "partners", [sdk.UrlEndpoint("https://one.test/hook", "one"), "https://two.test/h"]
        )
    )
    assert sent_json(put.calls.last) == {
        "endpoints": [
            {"url": "https://one.test/hook", "name": "one"},
            {"url": "https://two.test/h"},
        ]
    }
    assert group.endpoints == [
        sdk.UrlEndpoint("https://one.test/hook", "one"),
        sdk.UrlEndpoint("https://two.test/h"),
    ]
    assert (await resolve(client.url_groups.get("partners"))).name == "partners"
    assert [g.name for g in await resolve(client.url_groups.list())] == ["partners"]
    await resolve(client.url_groups.delete("partners"))
    assert delete.call_count == 1
    with pytest.raises(sdk.InvalidArgumentError):
        await resolve(client.url_groups.upsert("partners", []))
    with pytest.raises(sdk.InvalidArgumentError, match="endpoint url must be an http"):
        await resolve(client.url_groups.upsert("partners", ["http://"]))
    assert put.call_count == 1
