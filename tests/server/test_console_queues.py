"""The console's queue pages (server/console/_queues.py) on both stores: counts, jobs by state
with attempts and errors, a scoped token's view, retrying or deleting a dead job, and one job's
page with its payload and why it died.
"""

from __future__ import annotations

import asyncio

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
    """Ready, leased, delayed and dead counts; the dead job with its attempts and error."""
    async with console_app(store_url) as running:
        job_id = await _dead_job(running.api, "billing-jobs")
        await sign_in(running.console, ADMIN_TOKEN)
        live = (await running.console.get("/console/live/queues")).json()
        assert live == {
            "ready/billing-jobs": 1,
            "leased/billing-jobs": 0,
            "delayed/billing-jobs": 1,
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
            "delayed/billing-jobs",
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
        assert live == {"ready": 2, "leased": 0, "delayed": 1, "dead": 0}


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


async def test_the_job_page_shows_payload_attempts_and_why_it_died(store_url: str) -> None:
    """A dead job's page: its payload pretty-printed, attempts of the allowed, the error it died
    of and its actions; the table links to it; another namespace's job is 403, an unknown one 404.
    """
    async with console_app(store_url) as running:
        job_id = await _dead_job(running.api, "billing-jobs")
        other = await _dead_job(running.api, "payroll")
        await sign_in(running.console, BILLING_TOKEN)
        listing = await running.console.get("/console/queues/billing-jobs")
        path = f"/console/queues/billing-jobs/jobs/{job_id}"
        assert f'href="{path}"' in listing.text and f'data-copy="{job_id}"' in listing.text
        page = await running.console.get(path)
        assert page.status_code == 200
        assert 'id="job-attempts">1 of 1<' in page.text
        assert "disk &lt;full&gt;" in page.text and "Why it is dead" in page.text
        assert "<pre" in page.text and ">1</pre>" in page.text
        assert f"{path}/retry" in page.text and f"{path}/delete" in page.text
        assert (
            await running.console.get(f"/console/queues/payroll/jobs/{other}")
        ).status_code == 403
        missing = await running.console.get("/console/queues/billing-jobs/jobs/job_0000")
        assert missing.status_code == 404 and "job_not_found" in missing.text


async def test_a_job_whose_lease_ran_out_says_so_on_its_page(store_url: str) -> None:
    """A worker that never answers: the job's page and the dead tab give the lease's end as the
    reason, not an empty error.
    """
    async with console_app(store_url) as running:
        api = running.api
        await api.put("/v1/queues/billing-jobs", json={"max_attempts": 1})
        receipt = await api.post(
            "/v1/queues/billing-jobs/jobs", json={"topic": "t", "payload": {"to": "a@b.c"}}
        )
        job_id = receipt.json()["job_id"]
        leased = await api.post(
            "/v1/queues/billing-jobs/leases", json={"consumer": "w-7", "lease_seconds": 1}
        )
        assert leased.json()["jobs"][0]["job_id"] == job_id
        await sign_in(running.console, ADMIN_TOKEN)
        path = f"/console/queues/billing-jobs/jobs/{job_id}"
        held = await running.console.get(path)
        assert "w-7" in held.text and "Why it is dead" not in held.text
        await asyncio.sleep(1.1)
        page = await running.console.get(path)
        assert "lease expired after 1 s, attempt 1 of 1" in page.text
        assert "&#34;to&#34;: &#34;a@b.c&#34;" in page.text
        dead = await running.console.get("/console/queues/billing-jobs?state=dead")
        assert "lease expired after 1 s, attempt 1 of 1" in dead.text
        job = (await api.get(f"/v1/queues/billing-jobs/jobs/{job_id}")).json()
        assert job["last_error"] == "lease expired after 1 s, attempt 1 of 1"


async def test_tabs_and_cards_use_the_same_words(store_url: str) -> None:
    """Every counted state is a tab with the card's word and count; "scheduled" is not a job's."""
    async with console_app(store_url) as running:
        await _dead_job(running.api, "billing-jobs")
        await sign_in(running.console, ADMIN_TOKEN)
        page = await running.console.get("/console/queues/billing-jobs")
        for state in ("ready", "leased", "delayed", "dead"):
            assert f'href="?state={state}"' in page.text
            assert f"<dt>{state.capitalize()}</dt>" in page.text
        assert "cheduled" not in page.text
        listing = await running.console.get("/console/queues")
        assert '<th class="num">Delayed</th>' in listing.text and "cheduled" not in listing.text
