"""The console's dashboard (server/console/_dashboard.py) and its charts (_charts.py): rates drawn
as inline SVG, only what the token may see, and a word when metrics are off.
"""

from __future__ import annotations

import re

from server.console._charts import CHART_HEIGHT, chart
from tests.server._console import ADMIN_TOKEN, BILLING_TOKEN, console_app, sign_in


async def test_the_dashboard_charts_this_process_rates(store_url: str) -> None:
    """Publishes appear at once in this minute's count, in an SVG that loads nothing; the page
    says whose counts they are.
    """
    async with console_app(store_url, metrics=True) as running:
        await running.api.put("/v1/queues/billing-jobs", json={})
        jobs = [{"topic": "t", "payload": n} for n in range(3)]
        await running.api.post("/v1/queues/billing-jobs/batch", json={"jobs": jobs})
        await sign_in(running.console, ADMIN_TOKEN)
        page = await running.console.get("/console/dashboard")
        assert page.status_code == 200
        assert "the process that answered this page" in page.text
        assert '<svg viewBox="0 0 600 180"' in page.text and "<polyline" in page.text
        jobs_legend = re.search(r'<li data-series="jobs">.*?</li>', page.text, re.S)
        assert jobs_legend is not None and "<strong>3</strong> in the hour" in jobs_legend.group()
        assert 'id="chart-deliveries"' in page.text
        assert "http://" not in page.text.split("<svg", 1)[1].split("</svg>", 1)[0]


async def test_a_scoped_token_sees_no_rates_that_add_up_other_names(store_url: str) -> None:
    """The billing token may not consume every stream, queue or message: no chart, and why."""
    async with console_app(store_url, metrics=True) as running:
        await sign_in(running.console, BILLING_TOKEN)
        page = await running.console.get("/console/dashboard")
        assert page.status_code == 200
        assert "<svg" not in page.text and 'id="rates-hidden"' in page.text


async def test_without_metrics_the_dashboard_says_how_to_count(store_url: str) -> None:
    """No metrics, no counts: the page says how to turn them on."""
    async with console_app(store_url) as running:
        await sign_in(running.console, ADMIN_TOKEN)
        page = await running.console.get("/console/dashboard")
        assert page.status_code == 200 and "--metrics" in page.text and "<svg" not in page.text


def test_a_chart_scales_to_its_peak_and_places_the_minutes() -> None:
    """The axis ends at a round number at or above the peak; the first minute is at the left,
    now at the right, a zero on the baseline.
    """
    drawn = chart("c", "Counts", [("a", "A", [0] * 58 + [7, 3])])
    assert [label for _, label in drawn.y_ticks] == ["0", "5", "10"]
    [line] = drawn.lines
    points = [tuple(map(float, point.split(","))) for point in line.points.split()]
    assert len(points) == 60
    assert points[0] == (drawn.left, drawn.bottom) and points[-1][0] == drawn.right
    assert drawn.top < points[-2][1] < drawn.bottom
    assert (line.total, line.last_minute, line.peak) == (10, 3, 7)
    assert drawn.bottom < CHART_HEIGHT and "A: 10 in the hour" in drawn.description
    quiet = chart("q", "Quiet", [("a", "A", [0] * 60)])
    assert [label for _, label in quiet.y_ticks] == ["0", "1"]
