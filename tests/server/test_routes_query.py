"""Query parameters (server/routes/_query.py)."""

from __future__ import annotations

from tests.conftest import RunningApp


async def test_repeated_query_parameters_use_one_value(api: RunningApp) -> None:
    """A query parameter given twice is read once, not rejected or crashed on."""
    await api.client.post("/v1/streams/events/batch", json={"entries": [{"body": 1}, {"body": 2}]})
    response = await api.client.get("/v1/streams/events/entries?count=1&count=2")
    assert response.status_code == 200
    assert len(response.json()["entries"]) in (1, 2)
