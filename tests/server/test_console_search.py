"""The console's search box (server/console/_search.py) on both stores: every kind of id and name
taken to its page, what a scoped token may find, and "not found".
"""

from __future__ import annotations

import httpx

from tests.server._console import ADMIN_TOKEN, BILLING_TOKEN, console_app, sign_in


async def _find(console: httpx.AsyncClient, query: str) -> httpx.Response:
    return await console.get("/console/search", params={"q": query})


async def _seed(api: httpx.AsyncClient) -> dict[str, str]:
    """A job, a message, an entry, and a queue, stream, URL group and schedule of one name each;
    their ids.
    """
    for queue in ("billing-jobs", "payroll"):
        await api.put(f"/v1/queues/{queue}", json={})
    job = await api.post("/v1/queues/billing-jobs/jobs", json={"topic": "t", "payload": 1})
    other_job = await api.post("/v1/queues/payroll/jobs", json={"topic": "t", "payload": 1})
    message = await api.post(
        "/v1/messages", json={"url": "https://billing.example.com/hook", "body": {}, "delay": 600}
    )
    entry = await api.post("/v1/streams/billing-events/entries", json={"body": {"n": 1}})
    await api.put(
        "/v1/url-groups/billing-hooks",
        json={"endpoints": [{"url": "https://billing.example.com/a"}]},
    )
    schedule = await api.put(
        "/v1/schedules/billing-nightly",
        json={
            "cron": "0 0 * * *",
            "destination": {"kind": "stream", "stream": "billing-events", "entry": {"body": {}}},
        },
    )
    assert schedule.status_code in (200, 201), schedule.text
    await api.post("/v1/streams/billing-jobs/entries", json={"body": {"n": 2}})
    return {
        "job": job.json()["job_id"],
        "other_job": other_job.json()["job_id"],
        "message": message.json()["messages"][0]["message_id"],
        "entry": entry.json()["id"],
    }


async def test_every_kind_of_id_and_name_goes_to_its_page(store_url: str) -> None:
    """A job id, a message id, an entry id after its stream (either way) and alone, and each
    name, are each taken (303) to their page; a name two things share lists both.
    """
    async with console_app(store_url) as running:
        ids = await _seed(running.api)
        await sign_in(running.console, ADMIN_TOKEN)
        expected = {
            ids["job"]: f"/console/queues/billing-jobs/jobs/{ids['job']}",
            ids["other_job"]: f"/console/queues/payroll/jobs/{ids['other_job']}",
            ids["message"]: f"/console/messages/{ids['message']}",
            f"billing-events {ids['entry']}": f"/console/streams/billing-events/entries/{ids['entry']}",
            f"billing-events/{ids['entry']}": f"/console/streams/billing-events/entries/{ids['entry']}",
            ids["entry"]: f"/console/streams/billing-events/entries/{ids['entry']}",
            "billing-events": "/console/streams/billing-events",
            "billing-hooks": "/console/messages#url-group-billing-hooks",
            "  billing-nightly ": "/console/schedules#schedule-billing-nightly",
        }
        for query, path in expected.items():
            found = await _find(running.console, query)
            assert (found.status_code, found.headers.get("location")) == (303, path), query
        both = await _find(running.console, "billing-jobs")
        assert both.status_code == 200
        assert 'href="/console/queues/billing-jobs"' in both.text
        assert 'href="/console/streams/billing-jobs"' in both.text
        followed = await running.console.get(expected[ids["job"]])
        assert followed.status_code == 200 and ids["job"] in followed.text


async def test_what_is_not_there_or_not_visible_is_not_found(store_url: str) -> None:
    """Unknown ids and names, and what the token may not see, are all "not found" (404) alike;
    an empty query shows what the box takes.
    """
    async with console_app(store_url) as running:
        ids = await _seed(running.api)
        await sign_in(running.console, BILLING_TOKEN)
        assert (await _find(running.console, ids["job"])).status_code == 303
        for query in (
            ids["other_job"],
            "payroll",
            "job_0000",
            "msg_0000",
            "billing-events 1-0",
            "nothing-by-this-name",
            "no such/thing at all!",
            "x" * 1000,
        ):
            found = await _find(running.console, query)
            assert found.status_code == 404, query
            assert "Not found" in found.text
        empty = await _find(running.console, "")
        assert empty.status_code == 200 and "job_…" in empty.text
        page = await running.console.get("/console/streams")
        assert 'action="/console/search"' in page.text
