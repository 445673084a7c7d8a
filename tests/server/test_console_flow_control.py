"""The console's flow control page (server/console/_flow_control.py) on both stores: every key
with its limits and state, and pausing, resuming and resetting.
"""

from __future__ import annotations

from tests.server._console import ADMIN_TOKEN, BILLING_TOKEN, console_app, sign_in


async def test_the_page_lists_keys_and_pauses_resumes_and_resets_them(store_url: str) -> None:
    """Each key shows its limits and counts; its buttons pause, resume and reset it. A token
    without consume on every message is refused the page, as listFlowControlKeys would be.
    """
    async with console_app(store_url) as running:
        for _ in range(3):
            published = await running.api.post(
                "/v1/messages",
                json={
                    "url": "https://example.com/hooks/flow",
                    "body": "x",
                    "delay": 3600,
                    "flow_control": {"key": "acme", "rate": 5, "period": "1m", "parallelism": 2},
                },
            )
            assert published.status_code == 202, published.text
        csrf = await sign_in(running.console, ADMIN_TOKEN)
        page = await running.console.get("/console/flow-control")
        assert page.status_code == 200
        text = page.text
        assert 'href="/console/flow-control" aria-current="page"' in text
        assert 'data-flow-key="acme"' in text and "5 per 60 s" in text
        assert '<td data-label="Waiting" class="count-waiting">3</td>' in text
        assert "running" in text and "Pause" in text and "Reset" in text
        paused = await running.console.post("/console/flow-control/acme/pause", data={"csrf": csrf})
        assert paused.status_code == 303
        assert (await running.store.get_flow_control("acme")).paused
        assert "Resume" in (await running.console.get("/console/flow-control")).text
        await running.console.post("/console/flow-control/acme/resume", data={"csrf": csrf})
        assert not (await running.store.get_flow_control("acme")).paused
        reset = await running.console.post("/console/flow-control/acme/reset", data={"csrf": csrf})
        assert reset.status_code == 303
        await sign_in(running.console, BILLING_TOKEN)
        refused = await running.console.get("/console/flow-control")
        assert refused.status_code == 403 and "every message" in refused.text


async def test_an_empty_page_says_how_keys_come_about(store_url: str) -> None:
    async with console_app(store_url) as running:
        await sign_in(running.console, ADMIN_TOKEN)
        page = await running.console.get("/console/flow-control")
        assert page.status_code == 200 and "No flow control keys yet" in page.text
