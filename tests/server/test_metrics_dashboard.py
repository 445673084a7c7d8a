"""The Grafana dashboard shipped with the service (server/metrics_dashboard/spool.json): a
dashboard Grafana can import, whose every query names only series a real app's ``/metrics``
exports.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from server.app import create_app, lifespan
from server.config import Settings
from server.metrics import DASHBOARD_PATH
from tests.conftest import DEV_TOKEN

# PromQL's aggregations and keywords, which read like metric names where they stand bare.
_KEYWORDS = frozenset(
    {
        "and",
        "avg",
        "bool",
        "bottomk",
        "count",
        "count_values",
        "group",
        "inf",
        "max",
        "min",
        "nan",
        "offset",
        "or",
        "quantile",
        "stddev",
        "stdvar",
        "sum",
        "topk",
        "unless",
    }
)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_MATCHERS = re.compile(r"\{[^}]*\}")
_RANGES = re.compile(r"\[[^\]]*\]")
_GROUPING = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
_LABEL_VALUES = re.compile(
    r"^label_values\(\s*(?:([A-Za-z_:][\w:]*)\s*(?:\{[^}]*\})?\s*,)?\s*\w+\s*\)$"
)
# A whole name, not preceded by a digit or a dot (so not a number's exponent or a duration's unit)
# nor followed by an opening parenthesis (so not a function).
_NAME = re.compile(r"(?<![\w.$:])([A-Za-z_:][\w:]*)(?![\w:])(?!\s*\()")


def metric_names(expression: str) -> set[str]:
    """The metric names a PromQL expression selects."""
    bare = _STRING.sub('""', expression)
    bare = _MATCHERS.sub("", bare)
    bare = _RANGES.sub("", bare)
    bare = _GROUPING.sub("", bare)
    return {name for name in _NAME.findall(bare) if name not in _KEYWORDS}


def _panels(panels: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for panel in panels:
        yield panel
        yield from _panels(panel.get("panels", []))


def _dashboard() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(DASHBOARD_PATH.read_text(encoding="utf-8"))
    return document


def _queries(dashboard: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Every PromQL query of the dashboard, with where it is: the panels' targets and the
    template variables' queries (``label_values(metric, label)``).
    """
    for panel in _panels(dashboard["panels"]):
        for target in panel.get("targets", []):
            yield f"panel {panel['title']!r} {target['refId']}", target["expr"]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            query = variable["query"]["query"]
            matched = _LABEL_VALUES.match(query)
            assert matched, f"variable {variable['name']}: {query}"
            if matched.group(1):
                yield f"variable {variable['name']}", matched.group(1)


def test_the_name_reader_reads_promql() -> None:
    """Functions, aggregations, label names, strings, durations, numbers and Grafana's variables
    are not metric names.
    """
    expression = (
        'histogram_quantile(0.95, sum by (le, operation) (rate(a_seconds_bucket{job=~"$job", '
        'x="b_total"}[$__rate_interval] offset 5m))) / on (job) group_left (version) '
        "max without (instance) (b_info) * 1e3 > bool 2^10 or c_total"
    )
    assert metric_names(expression) == {"a_seconds_bucket", "b_info", "c_total"}


def test_the_dashboard_is_one_grafana_can_import() -> None:
    """Every panel has a unique id and a place; every query panel reads the chosen data source
    with targets of unique refIds.
    """
    dashboard = _dashboard()
    assert dashboard["uid"] and dashboard["title"]
    panels = list(_panels(dashboard["panels"]))
    assert len({panel["id"] for panel in panels}) == len(panels)
    variables = {variable["name"] for variable in dashboard["templating"]["list"]}
    assert {"datasource", "job", "operation"} <= variables
    for panel in panels:
        assert set(panel["gridPos"]) == {"h", "w", "x", "y"}, panel["title"]
        if panel["type"] == "row":
            continue
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        refs = [target["refId"] for target in panel["targets"]]
        assert refs and len(set(refs)) == len(refs), panel["title"]


@pytest.fixture
async def scraped(sqlite_store_url: str) -> AsyncIterator[str]:
    """A real development-mode app's exposition, after a publish, a read and a queue."""
    app = create_app(Settings.development_mode(store_url=sqlite_store_url))
    async with lifespan(app):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://spool.test",
            headers={"Authorization": f"Bearer {DEV_TOKEN}"},
        ) as client:
            await client.post("/v1/streams/events/entries", json={"body": 1})
            await client.post("/v1/streams/events/groups", json={"group": "g", "start_id": "0"})
            await client.put("/v1/queues/work", json={})
            response = await client.get("/metrics")
            assert response.status_code == 200
            yield response.text


def _exported(text: str) -> set[str]:
    """Every series name the exposition's families can have, samples or not yet."""
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count")}
    return {
        family.name + suffix
        for family in text_string_to_metric_families(text)
        for suffix in suffixes.get(family.type, ("",))
    }


def test_every_query_names_only_series_the_service_exports(scraped: str) -> None:
    """Each panel's and variable's query selects series of the service's own exposition."""
    exported = _exported(scraped)
    queries = list(_queries(_dashboard()))
    assert len(queries) > 10
    for where, query in queries:
        names = metric_names(query)
        assert names, f"{where} selects no series: {query}"
        assert names <= exported, f"{where} names {sorted(names - exported)}: {query}"


def test_the_dashboard_shows_what_an_operator_watches(scraped: str) -> None:
    """Publishes, deliveries, failures, dead letters, latency quantiles, depth and lag each
    have a query.
    """
    expressions = [query for _, query in _queries(_dashboard())]
    wanted = {
        "spool_published_items_total",
        "spool_delivery_attempts_total",
        "spool_http_requests_total",
        "spool_http_request_duration_seconds_bucket",
        "spool_queue_jobs",
        "spool_stream_entries",
        "spool_stream_group_lag_entries",
        "spool_stream_group_pending_entries",
    }
    named = set().union(*(metric_names(expression) for expression in expressions))
    assert wanted <= named
    assert any('status_class="5xx"' in expression for expression in expressions)
    assert any('outcome="dead"' in expression for expression in expressions)
    for quantile in ("0.5", "0.95"):
        assert any(
            f"histogram_quantile({quantile}, " in expression
            and "spool_http_request_duration_seconds_bucket" in expression
            for expression in expressions
        )
    assert "spool_stream_group_lag_entries" in scraped
