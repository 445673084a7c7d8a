"""The console's queue pages (server/console/_queues.py) on both stores: counts, jobs by state
with attempts and errors, a scoped token's view, and retrying or deleting a dead job.
"""

from __future__ import annotations

import httpx

from tests.server._console import ADMIN_TOKEN, BILLING_TOKEN, console_app, csrf_of, sign_in


async def _dead_job(api: httpx.AsyncClient, queue: str) -> str:
    """A job in ``queue`` (created with one attempt) that died with an error; its id."""
    await api.put(f"/v1/queues/{queue}", json={"max_attempts": 1})
    receipt = (await api.post(f"/v1/queues/{queue}/jobs", json={"topic": "t", "payload": 1})).json()
    [leased] = (await api.post(f"/v1/queues/{queue}/leases", json={"consumer": "w"})).json()["jobs"]
    await api.post(
        f"/v1/queues/{queue}/jobs/{leased['job_id']}/nack",
        json={"lease_id": leased["lease_id"], "error": "disk <full>"},
    )
    await api.post(f"/v1/queues/{queue}/jobs", json={"topic": "t", "payload": 2, "delay": 600})
    await api.post(f"/v1/queues/{queue}/jobs", json={"topic": "t", "payload": 1})
    job_id: str = receipt["job_id"]
    return job_id


async def test_queue_pages_count_jobs_and_show_dead_ones(store_url: str) -> None:
    """Ready, leased, scheduled and dead counts; the dead job with its attempts and error."""
    async with console_app(store_url) as running:
        job_id = await _dead_job(running.api, "billing-jobs")
        await sign_in(running.console, ADMIN_TOKEN)
        live = (await running.console.get("/console/live/queues")).json()
        assert live == {
            "ready/billing-jobs": 1,
            "leased/billing-jobs": 0,
            "scheduled/billing-jobs": 1,
            "dead/billing-jobs": 1,
        }
        page = await running.console.get("/console/queues/billing-jobs")
        assert job_id in page.text and "disk &lt;full&gt;" in page.text and "1/1" in page.text
        ready = await running.console.get("/console/queues/billing-jobs?state=ready")
        assert job_id not in ready.text and "Retry" not in ready.text
        bad = await running.console.get("/console/queues/billing-jobs?state=gone")
        assert bad.status_code == 422


async def test_a_scoped_token_sees_only_its_queues(store_url: str) -> None:
    """The billing token lists billing-* queues only; another queue's page and retry are 403."""
    async with console_app(store_url) as running:
        await _dead_job(running.api, "billing-jobs")
        other = await _dead_job(running.api, "payroll")
        await sign_in(running.console, BILLING_TOKEN)
        listing = await running.console.get("/console/queues")
        assert "billing-jobs" in listing.text and "payroll" not in listing.text
        assert set((await running.console.get("/console/live/queues")).json()) == {
            "ready/billing-jobs",
            "leased/billing-jobs",
            "scheduled/billing-jobs",
            "dead/billing-jobs",
        }
        assert (await running.console.get("/console/queues/payroll")).status_code == 403
        assert (await running.console.get("/console/live/queues/payroll")).status_code == 403
        retry = await running.console.post(
            f"/console/queues/payroll/jobs/{other}/retry", data={"csrf": csrf_of(listing)}
        )
        assert retry.status_code == 403
        job = (await running.api.get(f"/v1/queues/payroll/jobs/{other}")).json()
        assert job["state"] == "dead"


async def test_retrying_a_dead_job_makes_it_ready(store_url: str) -> None:
    """Retry: the job is ready again with fresh attempts; a job that is not dead is the API's 409."""
    async with console_app(store_url) as running:
        job_id = await _dead_job(running.api, "billing-jobs")
        csrf = await sign_in(running.console, BILLING_TOKEN)
        done = await running.console.post(
            f"/console/queues/billing-jobs/jobs/{job_id}/retry", data={"csrf": csrf}
        )
        assert done.status_code == 303
        assert "is+ready+again" in done.headers["location"]
        job = (await running.api.get(f"/v1/queues/billing-jobs/jobs/{job_id}")).json()
        assert (job["state"], job["attempts"]) == ("ready", 0)
        again = await running.console.post(
            f"/console/queues/billing-jobs/jobs/{job_id}/retry", data={"csrf": csrf}
        )
        assert again.status_code == 409 and "invalid_state" in again.text
        live = (await running.console.get("/console/live/queues/billing-jobs")).json()
        assert live == {"ready": 2, "leased": 0, "scheduled": 1, "dead": 0}


async def test_deleting_a_dead_job_removes_it(store_url: str) -> None:
    """Delete: the dead job is gone; one that is not dead is the API's 409; another namespace's
    is 403.
    """
    async with console_app(store_url) as running:
        job_id = await _dead_job(running.api, "billing-jobs")
        other = await _dead_job(running.api, "payroll")
        csrf = await sign_in(running.console, BILLING_TOKEN)
        page = await running.console.get("/console/queues/billing-jobs")
        assert f"/console/queues/billing-jobs/jobs/{job_id}/delete" in page.text
        done = await running.console.post(
            f"/console/queues/billing-jobs/jobs/{job_id}/delete", data={"csrf": csrf}
        )
        assert done.status_code == 303 and "deleted" in done.headers["location"]
        gone = await running.api.get(f"/v1/queues/billing-jobs/jobs/{job_id}")
        assert gone.status_code == 404
        [ready] = (
            await running.api.get("/v1/queues/billing-jobs/jobs", params={"state": "ready"})
        ).json()["jobs"]
        conflict = await running.console.post(
            f"/console/queues/billing-jobs/jobs/{ready['job_id']}/delete", data={"csrf": csrf}
        )
        assert conflict.status_code == 409 and "invalid_state" in conflict.text
        refused = await running.console.post(
            f"/console/queues/payroll/jobs/{other}/delete", data={"csrf": csrf}
        )
        assert refused.status_code == 403
        assert (await running.api.get(f"/v1/queues/payroll/jobs/{other}")).status_code == 200
