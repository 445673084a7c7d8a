"""The console's dashboard: publishes, HTTP deliveries and jobs' outcomes per minute over the last
hour.

The counts are the ones this process keeps beside its metrics (server/rates.py), so they are there
when metrics are on (``--metrics``; on in development mode) and cover what this process did. A
series is shown only to a token that may consume every name of its kind, as the counts add up
every stream, queue or message alike.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..config import Resource
from ..rates import RateSeries
from ..routes._context import context_of
from ._charts import CHART_HEIGHT, CHART_WIDTH, Chart, chart
from ._pages import PREFIX, Visit, page, render

__all__ = ["routes"]

_PUBLISHED: tuple[tuple[RateSeries, str, Resource], ...] = (
    ("entries", "Stream entries", "stream"),
    ("jobs", "Jobs", "queue"),
    ("messages", "Messages", "message"),
)
_DELIVERIES: tuple[tuple[RateSeries, str, Resource], ...] = (
    ("delivered", "Attempts delivered", "message"),
    ("failed", "Attempts failed", "message"),
    ("dead_letters", "Dead letters", "message"),
)
_JOBS: tuple[tuple[RateSeries, str, Resource], ...] = (
    ("jobs_acked", "Acked", "queue"),
    ("jobs_nacked", "Nacked", "queue"),
    ("jobs_dead", "Dead (failed or lease ran out)", "queue"),
)


async def dashboard_page(request: Request, visit: Visit) -> Response:
    """The rate charts this token may see, or why there are none."""
    metrics = context_of(request).metrics
    principal = visit.session.principal
    charts: list[Chart] = []
    hidden = False
    if metrics is not None:
        counts = metrics.rates.last_hour()
        for key, title, members in (
            ("published", "Published", _PUBLISHED),
            ("deliveries", "HTTP deliveries", _DELIVERIES),
            ("jobs", "Jobs", _JOBS),
        ):
            shown = [
                (series, label, counts[series])
                for series, label, resource in members
                if principal.allows_every_name(resource, "consume")
            ]
            hidden = hidden or len(shown) < len(members)
            if shown:
                charts.append(chart(key, title, shown))
    return render(
        request,
        "dashboard.html",
        session=visit.session,
        counting=metrics is not None,
        charts=charts,
        hidden=hidden,
        width=CHART_WIDTH,
        height=CHART_HEIGHT,
    )


routes = [Route(f"{PREFIX}/dashboard", page(dashboard_page), methods=["GET"])]
