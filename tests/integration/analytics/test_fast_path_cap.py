"""The query API's fast path past the cap of distinct values: a day with more distinct pages
than its registry holds counts the rest under "(other)", so the counters no longer know
every page. A breakdown by page then steps aside to the warehouse, which has every row;
the statistics API and the share page keep their "(other)" row, as documented."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sitelens.analytics import counting, queries, rollups, stats
from sitelens.analytics.counting import OTHER
from sitelens.analytics.hit import Hit, new_id
from sitelens.analytics.warehouse import answers, query, sql
from sitelens.core import clock
from sitelens.data import warehouse
from tests.fixtures.analytics import hit_record, run

pytest.importorskip("duckdb")
from sitelens.local.warehouse import LocalWarehouse

NOW = datetime(2026, 11, 24, 12, tzinfo=UTC)
FULL_DAY = ["2026-11-23", "2026-11-23"]
QUIET_DAY = ["2026-11-22", "2026-11-22"]
BY_PAGE = {"metrics": ["pageviews"], "dimensions": ["event:page"]}


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalWarehouse]:
    monkeypatch.setattr(clock, "now", lambda: NOW)
    local = LocalWarehouse(tmp_path / "warehouse")
    warehouse.use(warehouse.LocalEngine("duckdb", local.run, local.write))
    yield local
    warehouse.use(None)
    local.close()


@pytest.fixture
def counted(analytics: Any, account: Any, store: LocalWarehouse) -> Callable[[int], int]:
    """A website whose 2026-11-23 has `distinct` pages (/p000 seen three times) and whose
    2026-11-22 has three (/ twice, /pricing, /about); its id."""

    def count(distinct: int) -> int:
        reply = analytics.post("/api/v1/websites", {"domain": "shop.example"})
        website_id = int(reply.data["id"])
        full = datetime(2026, 11, 23, 10, tzinfo=UTC)
        pages = [f"/p{n:03d}" for n in range(distinct)] + ["/p000", "/p000"]
        hits = [view(website_id, full + timedelta(seconds=n), page) for n, page in enumerate(pages)]
        quiet = datetime(2026, 11, 22, 10, tzinfo=UTC)
        hits += [view(website_id, quiet, page) for page in ("/", "/", "/pricing", "/about")]
        for start in range(0, len(hits), 200):
            batch = [
                hit_record(hit, account.id, start + n) for n, hit in enumerate(hits[start:][:200])
            ]
            assert run("HitsQueue", batch) == {"batchItemFailures": []}
        return website_id

    return count


def view(website_id: int, at: datetime, page: str) -> Hit:
    return Hit(website_id=website_id, at=at, page=page, visit=False, id=new_id(at))


def chosen(site: int, **body: Any) -> dict[str, Any]:
    """The answer from the source the query API chooses (a question for the counters, by
    its shape)."""
    sent = {"site_id": site, **BY_PAGE, **body}
    parsed = query.parse(sent, NOW, "UTC")
    assert rollups.answers(parsed)
    return answers.answer(parsed, queries.rows_source(parsed), sent)


def from_warehouse(site: int, **body: Any) -> dict[str, Any]:
    sent = {"site_id": site, **BY_PAGE, **body}
    parsed = query.parse(sent, NOW, "UTC")
    return answers.answer(parsed, sql.rows, sent)


def chosen_and_warehouse(site: int, **body: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    return chosen(site, **body), from_warehouse(site, **body)


def no_warehouse(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warehouse, "run", lambda statement: pytest.fail("asked the warehouse"))


def test_past_the_real_cap_every_page_is_answered_as_the_warehouse_has_it(
    counted, analytics, monkeypatch
):
    distinct = counting.MAX_VALUES + 20
    site = counted(distinct)

    answer, rows = chosen_and_warehouse(site, date_range=FULL_DAY)
    assert answer == rows
    pages = {result["dimensions"][0]: result["metrics"][0] for result in answer["results"]}
    assert len(pages) == distinct
    assert OTHER not in pages
    assert answer["results"][0] == {"dimensions": ["/p000"], "metrics": [3]}
    reply = analytics.post(
        "/api/v1/query", json_body={"site_id": site, **BY_PAGE, "date_range": FULL_DAY}
    )
    assert reply.status == 200, reply.body
    assert reply.body["results"] == answer["results"]

    # The statistics API keeps its day's cap: the 20 pages past it are one "(other)" row.
    period = {"name": "page", "from": FULL_DAY[0], "to": FULL_DAY[1]}
    first = analytics.get(f"/api/v1/stats/{site}", query=period)
    assert first.data[0] == {"value": OTHER, "count": 20}
    assert first.data[1] == {"value": "/p000", "count": 3}

    # Under the cap, the counters still answer, without the warehouse.
    expected = from_warehouse(site, date_range=QUIET_DAY)
    no_warehouse(monkeypatch)
    assert chosen(site, date_range=QUIET_DAY) == expected


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> int:
    """A cap of 4 distinct values a day: the same rule, quicker to pass."""
    monkeypatch.setattr(counting, "MAX_VALUES", 4)
    return 4


def test_one_full_day_sends_the_whole_range_to_the_warehouse(counted, small_cap):
    site = counted(small_cap + 3)
    answer, rows = chosen_and_warehouse(site, date_range=["2026-11-20", "2026-11-23"])
    assert answer == rows
    assert len(answer["results"]) == small_cap + 3 + 3
    assert sum(result["metrics"][0] for result in answer["results"]) == small_cap + 3 + 2 + 4


def test_a_comparison_answers_each_range_from_where_it_is_exact(counted, small_cap):
    site = counted(small_cap + 3)
    comparisons = {"comparisons": {"mode": "previous_period"}}
    answer, rows = chosen_and_warehouse(site, date_range=FULL_DAY, include=comparisons)
    assert answer == rows
    assert answer["results"][0]["dimensions"] == ["/p000"]
    assert answer["results"][0]["comparison"]["metrics"] == [0]
    # the earlier day is under the cap: the counters answer it, the warehouse the full one
    before, rows = chosen_and_warehouse(site, date_range=QUIET_DAY, include=comparisons)
    assert before == rows


@pytest.mark.parametrize("dimensions", [[], ["time:day"]])
def test_totals_and_days_stay_on_the_counters_past_the_cap(
    counted, small_cap, monkeypatch, dimensions
):
    site = counted(small_cap + 3)
    sent = {"site_id": site, "metrics": ["pageviews", "events"], "dimensions": dimensions}
    sent["date_range"] = ["2026-11-22", "2026-11-23"]
    parsed = query.parse(sent, NOW, "UTC")
    slow = answers.answer(parsed, sql.rows, sent)
    no_warehouse(monkeypatch)
    assert answers.answer(parsed, queries.rows_source(parsed), sent) == slow


def test_the_share_page_keeps_the_other_row(counted, small_cap):
    site = counted(small_cap + 3)
    overview = stats.overview(site, NOW.date() - timedelta(days=6), NOW.date())
    pages = {row["value"]: row["count"] for row in overview.ranked["page"]}
    assert pages[OTHER] == 3
    assert pages["/p000"] == 3
    assert overview.total_pageviews == small_cap + 3 + 2 + 4
