"""A job's attempt history over the API (getJob, listJobs, the Job of ack and nack), on the job's
console page, and the dashboard's job rates (server/rates.py), on both stores.
"""

from __future__ import annotations

import re
import time

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.server._console import ADMIN_TOKEN, console_app, sign_in
from tests.server.stores._support import FakeClock


async def _worked_job(api: httpx.AsyncClient, queue: str) -> str:
    """A job that failed once, was released once and then succeeded; its id."""
    await api.put(f"/v1/queues/{queue}", json={"max_attempts": 5})
    receipt = (await api.post(f"/v1/queues/{queue}/jobs", json={"topic": "t", "payload": 1})).json()
    job_id: str = receipt["job_id"]
    for consumer, ending in (("w-1", "nack"), ("w-2", "release")):
        [leased] = (
            await api.post(f"/v1/queues/{queue}/leases", json={"consumer": consumer})
        ).json()["jobs"]
        body = {
            "lease_id": leased["lease_id"],
            **({"error": "disk <full>"} if ending == "nack" else {}),
        }
        ended = await api.post(f"/v1/queues/{queue}/jobs/{job_id}/{ending}", json=body)
        assert ended.status_code == 200
    [leased] = (await api.post(f"/v1/queues/{queue}/leases", json={})).json()["jobs"]
    acked = await api.post(
        f"/v1/queues/{queue}/jobs/{job_id}/ack", json={"lease_id": leased["lease_id"]}
    )
    assert acked.json()["attempt_history"][-1]["outcome"] == "succeeded"
    return job_id


async def test_get_and_list_jobs_give_the_attempts_and_the_times(store_url: str) -> None:
    async with console_app(store_url) as running:
        api = running.api
        job_id = await _worked_job(api, "billing-jobs")
        job = (await api.get(f"/v1/queues/billing-jobs/jobs/{job_id}")).json()
        assert [
            {key: attempt.get(key) for key in ("number", "outcome", "error", "consumer")}
            for attempt in job["attempt_history"]
        ] == [
            {"number": 1, "outcome": "failed", "error": "disk <full>", "consumer": "w-1"},
            {"number": 2, "outcome": "released", "error": None, "consumer": "w-2"},
            {"number": 2, "outcome": "succeeded", "error": None, "consumer": None},
        ]
        assert all("ended_at" in attempt for attempt in job["attempt_history"])
        assert job["leased_at"] == job["attempt_history"][-1]["leased_at"]
        assert job["finished_at"] == job["attempt_history"][-1]["ended_at"]
        [listed] = (await api.get("/v1/queues/billing-jobs/jobs?state=succeeded")).json()["jobs"]
        assert listed == job
        fresh = (
            await api.post("/v1/queues/billing-jobs/jobs", json={"topic": "t", "payload": 2})
        ).json()
        untouched = (await api.get(f"/v1/queues/billing-jobs/jobs/{fresh['job_id']}")).json()
        assert {"attempt_history", "leased_at", "finished_at"}.isdisjoint(untouched)


async def test_the_job_page_tells_each_attempt(store_url: str) -> None:
    """Who leased it, how each lease ended and with what error, and when it succeeded."""
    async with console_app(store_url) as running:
        job_id = await _worked_job(running.api, "billing-jobs")
        await sign_in(running.console, ADMIN_TOKEN)
        page = await running.console.get(f"/console/queues/billing-jobs/jobs/{job_id}")
        assert page.status_code == 200
        timeline = page.text.split('id="job-timeline"', 1)[1].split("</ol>", 1)[0]
        attempts = re.findall(
            r'<li class="attempt" data-attempt="\d" data-outcome="(\w+)"', timeline
        )
        assert attempts == ["failed", "released", "succeeded"]
        assert "attempt 1 leased by" in timeline and "w-1" in timeline
        assert "disk &lt;full&gt;" in timeline
        assert "succeeded on attempt 2" in timeline
        assert "given back untried" in timeline


async def test_the_dashboard_and_metrics_count_jobs_acked_nacked_and_dead(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dead counts the job a nack left dead and the one whose last lease ran out, once, on the
    dashboard and in ``spool_job_outcomes`` by what ended each lease.
    """
    async with console_app(store_url, metrics=True) as running:
        clock = FakeClock(time.time())
        monkeypatch.setattr(running.store, "clock", clock)
        api = running.api
        await _worked_job(api, "billing-jobs")
        await api.put("/v1/queues/payroll", json={"max_attempts": 1})
        for payload in (1, 2):
            await api.post("/v1/queues/payroll/jobs", json={"topic": "t", "payload": payload})
        [leased, expiring] = (
            await api.post("/v1/queues/payroll/leases", json={"max_jobs": 2, "lease_seconds": 10})
        ).json()["jobs"]
        await api.post(
            f"/v1/queues/payroll/jobs/{leased['job_id']}/nack",
            json={"lease_id": leased["lease_id"], "error": "no"},
        )
        clock.advance(11)
        for _ in range(2):
            assert (await api.post("/v1/queues/payroll/leases", json={})).json()["jobs"] == []
        job = (await api.get(f"/v1/queues/payroll/jobs/{expiring['job_id']}")).json()
        assert job["state"] == "dead"
        await api.post("/v1/queues/billing-jobs/jobs", json={"topic": "t", "payload": 3})
        [leased] = (await api.post("/v1/queues/billing-jobs/leases", json={})).json()["jobs"]
        lease = {"job_id": leased["job_id"], "lease_id": leased["lease_id"]}
        acked = await api.post("/v1/queues/billing-jobs/acks", json={"jobs": [lease, lease]})
        assert [result["acked"] for result in acked.json()["results"]] == [True, False]
        await sign_in(running.console, ADMIN_TOKEN)
        page = await running.console.get("/console/dashboard")
        assert 'id="chart-jobs"' in page.text
        for series, total in (("jobs_acked", 2), ("jobs_nacked", 2), ("jobs_dead", 2)):
            legend = re.search(rf'<li data-series="{series}">.*?</li>', page.text, re.S)
            assert legend is not None and f"<strong>{total}</strong> in the hour" in legend.group()
        exposition = (await api.get("/metrics")).text
    outcomes = {
        sample.labels["outcome"]: sample.value
        for family in text_string_to_metric_families(exposition)
        for sample in family.samples
        if sample.name == "spool_job_outcomes_total"
    }
    assert outcomes == {"acked": 2, "retried": 1, "failed": 1, "lease_expired": 1}
