"""The console's schedules page (server/console/_schedules.py) on both stores: every visible
schedule with its timetable, destination, state, runs and outcomes, and pausing and resuming.
"""

from __future__ import annotations

import httpx

from server.stores.base import ScheduleRun
from tests.server._console import ADMIN_TOKEN, BILLING_TOKEN, console_app, sign_in


async def _schedule(api: httpx.AsyncClient, name: str, queue: str) -> None:
    await api.put(f"/v1/queues/{queue}", json={})
    destination = {"kind": "job", "queue": queue, "job": {"topic": "nightly", "payload": 1}}
    response = await api.put(
        f"/v1/schedules/{name}",
        json={"cron": "0 3 * * *", "timezone": "Europe/Berlin", "destination": destination},
    )
    assert response.status_code == 201, response.text


async def test_the_schedules_page_lists_timetables_and_outcomes(store_url: str) -> None:
    """Each schedule shows its cron and zone, what it publishes, its state, its next run and
    its recent outcomes, a failed one with its code; the page is linked from the navigation.
    """
    async with console_app(store_url) as running:
        await _schedule(running.api, "billing-nightly", "billing-jobs")
        tick = (await running.store.get_schedule("billing-nightly")).next_run_at
        assert tick is not None
        [claimed] = await running.store.claim_due_schedules(now=tick, limit=1, lease_seconds=30)
        failed = ScheduleRun(
            tick, tick + 0.01, "failed", error_code="queue_not_found", error_detail="gone"
        )
        await running.store.complete_schedule_tick(
            "billing-nightly", lease_id=claimed.lease_id, run=failed, next_run_at=tick + 86400
        )
        await sign_in(running.console, ADMIN_TOKEN)
        page = await running.console.get("/console/schedules")
        assert page.status_code == 200
        text = page.text
        assert 'href="/console/schedules" aria-current="page"' in text
        assert "billing-nightly" in text and "0 3 * * *" in text and "Europe/Berlin" in text
        assert "job nightly on queue billing-jobs" in text
        assert "running" in text and "queue_not_found" in text and "failed" in text
        assert "Pause" in text


async def test_pause_and_resume_from_the_page(store_url: str) -> None:
    """The Pause button pauses the schedule and the Resume button resumes it from now; a token
    may only see and act on the schedules its permissions name.
    """
    async with console_app(store_url) as running:
        await _schedule(running.api, "billing-nightly", "billing-jobs")
        await _schedule(running.api, "payroll", "payroll")
        csrf = await sign_in(running.console, ADMIN_TOKEN)
        store = running.store
        paused = await running.console.post(
            "/console/schedules/billing-nightly/pause", data={"csrf": csrf}
        )
        assert paused.status_code == 303
        assert (await store.get_schedule("billing-nightly")).paused is True
        page = (await running.console.get("/console/schedules")).text
        assert "paused" in page and "Resume" in page
        await running.console.post("/console/schedules/billing-nightly/resume", data={"csrf": csrf})
        resumed = await store.get_schedule("billing-nightly")
        assert resumed.paused is False and resumed.next_run_at is not None
        await sign_in(running.console, BILLING_TOKEN)
        refused = await running.console.get("/console/schedules")
        assert refused.status_code == 403 and "has no permission on schedules" in refused.text
