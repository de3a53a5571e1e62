"""POST /api/v1/query with Search Console's metrics: the imported rows, by search:query,
search:page, event:page and time, on DuckDB (make serve's engine); joined with the site's
own events by page; refused where they cannot go."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

import pyarrow.parquet as pq
import pytest

from sitelens.analytics.hit import Hit
from sitelens.data import search_console as stored
from sitelens.data import warehouse
from sitelens.local import google
from tests.fixtures.analytics import hit_record, run
from tests.fixtures.local_warehouse import local_warehouse  # noqa: F401
from tests.integration.searchconsole.conftest import run_tasks
from tests.integration.searchconsole.test_connections import DAYS

PROPERTY = "sc-domain:example.com"


@pytest.fixture
def served(local_warehouse, gsc):  # noqa: F811
    """make serve's engine: the warehouse's folder, where the imported days go and are read."""
    engine = warehouse.local_engine()
    assert engine is not None
    warehouse.use(
        warehouse.LocalEngine("duckdb", engine.query, engine.store, root=local_warehouse.root)
    )
    return local_warehouse


@pytest.fixture
def connected(analytics, served, gsc) -> int:
    website_id = int(analytics.post("/api/v1/websites", {"domain": "example.com"}).data["id"])
    form = {"property": PROPERTY, "refresh_token": gsc.stub.refresh_token(PROPERTY)}
    assert analytics.put(f"/api/v1/websites/{website_id}/search-console", form).status == 200
    run_tasks()
    return website_id


def ask(analytics: Any, website_id: int, **fields: Any) -> Any:
    body = {"site_id": website_id, "date_range": [DAYS[0], DAYS[-1]], **fields}
    return analytics.post("/api/v1/query", json_body=body)


def known() -> list[tuple[Any, ...]]:
    return [row for day in DAYS for row in google.known_rows(PROPERTY, day, 40)]


def test_search_metrics_by_query_are_the_imported_rows(analytics, connected):
    reply = ask(
        analytics,
        connected,
        metrics=["clicks", "impressions", "ctr", "position"],
        dimensions=["search:query"],
        pagination={"limit": 1000},
        include={"total_rows": True},
    )
    assert reply.status == 200, reply.body
    sums: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    for row in known():
        sums[row[2]][0] += row[5]
        sums[row[2]][1] += row[6]
        sums[row[2]][2] += row[8] * row[6]
    got = {row["dimensions"][0]: row["metrics"] for row in reply.body["results"]}
    assert set(got) == set(sums)
    for name, (clicks, shown, weighted) in sums.items():
        assert got[name][:2] == [clicks, shown]
        assert got[name][2] == round(100 * clicks / shown, 2)
        assert got[name][3] == round(weighted / shown, 1)
    clicks = [row["metrics"][0] for row in reply.body["results"]]
    assert clicks == sorted(clicks, reverse=True)  # by the first metric, descending
    assert reply.body["meta"]["total_rows"] == len(sums)


def test_totals_by_day_and_a_filter_on_the_page(analytics, connected):
    reply = ask(analytics, connected, metrics=["clicks"], dimensions=["time:day"])
    by_day = {row["dimensions"][0]: row["metrics"][0] for row in reply.body["results"]}
    for day in DAYS:
        assert by_day[day] == sum(row[5] for row in google.known_rows(PROPERTY, day, 40))
    filtered = ask(
        analytics,
        connected,
        metrics=["impressions"],
        filters=[["is", "event:page", ["/p1"]]],
    )
    assert filtered.status == 200, filtered.body
    assert filtered.body["results"][0]["metrics"] == [
        sum(row[6] for row in known() if row[1] == "https://example.com/p1")
    ]


def test_clicks_join_the_site_s_visitors_by_page(analytics, account, connected):
    at = datetime.fromisoformat(DAYS[1]).replace(hour=9, tzinfo=UTC)
    hits = [
        Hit(website_id=connected, at=at + timedelta(seconds=n), page=page, visit=True)
        for n, page in enumerate(["/p1", "/p1", "/p2", "/never-searched"])
    ]
    assert run("HitsQueue", [hit_record(h, account.id, n) for n, h in enumerate(hits)]) == {
        "batchItemFailures": []
    }
    reply = ask(
        analytics,
        connected,
        metrics=["pageviews", "clicks"],
        dimensions=["event:page"],
        pagination={"limit": 1000},
    )
    assert reply.status == 200, reply.body
    got = {row["dimensions"][0]: row["metrics"] for row in reply.body["results"]}
    clicks = defaultdict(int)
    for row in known():
        clicks[row[1].removeprefix("https://example.com")] += row[5]
    assert got["/p1"] == [2, clicks["/p1"]]
    assert got["/p2"] == [1, clicks["/p2"]]
    assert got["/never-searched"] == [1, 0]
    assert got["/p5"] == [0, clicks["/p5"]]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"metrics": ["visitors"], "dimensions": ["search:query"]}, "dimensions"),
        ({"metrics": ["clicks"], "dimensions": ["visit:source"]}, "dimensions"),
        ({"metrics": ["clicks", "bounce_rate"], "dimensions": ["event:page"]}, "metrics"),
        ({"metrics": ["clicks", "visitors"], "dimensions": ["search:query"]}, "metrics"),
        ({"metrics": ["clicks"], "filters": [["matches", "search:query", ["^a"]]]}, "filters"),
    ],
)
def test_what_search_metrics_cannot_go_with_is_422(analytics, connected, fields, field):
    reply = ask(analytics, connected, **fields)
    assert reply.status == 422, reply.body
    assert field in reply.body["message"]


def test_clickhouse_holds_no_search_rows_400(analytics, connected):
    engine = warehouse.local_engine()
    assert engine is not None
    warehouse.use(warehouse.LocalEngine("clickhouse", engine.query, engine.store))
    reply = ask(analytics, connected, metrics=["clicks"])
    assert reply.status == 400 and "ClickHouse" in reply.body["message"]["metrics"][0]


def test_a_day_keeps_any_text_and_is_replaced_whole(served):
    tricky = ['a, "quoted" query', "two\nlines", "ünïcode ✓", "=1+1", ""]
    rows = [
        ("2026-11-01", f"https://example.com/{n}", text, "usa", "MOBILE", n, 10, n / 10, 1.5)
        for n, text in enumerate(tricky)
    ]
    assert stored.put_day(9, "2026-11-01", rows) == len(tricky)
    [path] = stored.local_files([9])
    found = pq.read_table(path).to_pylist()
    assert sorted(r["query"] for r in found) == sorted(tricky)
    assert stored.put_day(9, "2026-11-01", rows[:1]) == 1  # again: replaced, not added to
    assert [r["query"] for r in pq.read_table(path).to_pylist()] == [tricky[0]]
