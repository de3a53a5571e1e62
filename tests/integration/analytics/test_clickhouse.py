"""The warehouse on ClickHouse (chDB in process) answers every query of the suite as DuckDB
does, row by row, from the same rows: generated traffic (`tests.bench.generate`, small)
and hand-made rows with properties, goals and funnel steps, some hits sent twice.

Counts are compared exactly. Rounded figures (bounce rate, views per visit, percentages,
conversion rates) may differ by one unit of their last place, and visit duration by one
second: ClickHouse rounds a float's half to even, DuckDB away from zero.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from sitelens.analytics.warehouse import answers, funnels, query, raw, sql
from sitelens.analytics.warehouse.goals import Goal
from tests.bench import generate
from tests.integration.analytics.test_warehouse import row

pytest.importorskip("duckdb")
pytest.importorskip("chdb", reason="chdb (in-process ClickHouse) is not installed")
from sitelens.local.clickhouse import LocalClickHouse
from sitelens.local.warehouse import LocalWarehouse

FIRST, LAST = "2026-11-20", "2026-11-22"
NOW = datetime(2026, 11, 23, 1, 0, tzinfo=UTC)
HAND = [  # properties, a goal, a funnel's steps, a zone's midnight, on website 1
    row(1, "p", "2026-11-21T22:30:00", page="/", country="DE", device="desktop", props=None),
    row(1, "p", "2026-11-21T22:31:00", page="/pricing", props=json.dumps({"plan": "pro"})),
    row(1, "p", "2026-11-21T22:32:00", "signup", page="/pricing", props='{"plan":"pro"}'),
    row(1, "q", "2026-11-22T23:10:00", page="/pricing", props='{"plan":"free"}'),
    row(1, "q", "2026-11-22T23:11:00", "engagement", page="/pricing", engagement_ms=9, props=None),
]
SUITE: dict[str, dict[str, Any]] = {
    "totals": {
        "metrics": [
            "visitors",
            "visits",
            "pageviews",
            "events",
            "bounce_rate",
            "visit_duration",
            "views_per_visit",
        ]
    },
    "pages": {"metrics": ["visitors", "pageviews", "events"], "dimensions": ["event:page"]},
    "sources": {
        "metrics": ["visitors", "visits", "bounce_rate", "visit_duration", "percentage"],
        "dimensions": ["visit:source"],
    },
    "entry_exit": {"metrics": ["visits"], "dimensions": ["visit:entry_page", "visit:exit_page"]},
    "devices_browsers": {
        "metrics": ["visitors", "views_per_visit"],
        "dimensions": ["visit:device", "visit:browser"],
    },
    "campaigns": {"metrics": ["visitors"], "dimensions": ["visit:utm_campaign"]},
    "channels": {"metrics": ["visitors", "visits"], "dimensions": ["visit:channel"]},
    "hours_in_berlin": {
        "metrics": ["visitors", "pageviews", "visit_duration"],
        "dimensions": ["time:hour"],
        "timezone": "Europe/Berlin",
    },
    "days_in_new_york": {
        "metrics": ["visitors", "visits", "bounce_rate"],
        "dimensions": ["time:day"],
        "timezone": "America/New_York",
    },
    "weeks": {
        "metrics": ["visitors"],
        "dimensions": ["time:week"],
        "timezone": "Asia/Kolkata",
    },
    "months": {
        "metrics": ["pageviews"],
        "dimensions": ["time:month"],
        "timezone": "Pacific/Auckland",
    },
    "country_filter": {
        "metrics": ["visitors", "visits", "bounce_rate"],
        "dimensions": ["visit:source"],
        "filters": [["is", "visit:country", ["DE"]]],
    },
    "pages_of_a_country": {
        "metrics": ["visitors", "pageviews"],
        "dimensions": ["event:page"],
        "filters": [["is_not", "visit:country", ["DE", "FR"]]],
    },
    "contains_caseless": {
        "metrics": ["visitors", "visits"],
        "filters": [["contains", "event:page", ["/BLOG", "Docs"], {"case_sensitive": False}]],
    },
    "regex_and_or": {
        "metrics": ["visitors", "pageviews"],
        "dimensions": ["visit:country"],
        "filters": [
            ["or", [["matches", "event:page", ["^/pricing"]], ["is", "visit:device", ["Mobile"]]]],
            ["not", ["matches_not", "visit:referrer", ["google"]]],
        ],
    },
    "props": {
        "metrics": ["visitors", "events"],
        "dimensions": ["event:props:plan"],
        "filters": [["is_not", "event:props:plan", [""]]],
    },
    "goal": {
        "metrics": ["visitors", "events", "conversion_rate"],
        "filters": [["is", "event:name", ["signup"]]],
    },
    "event_names": {"metrics": ["visitors", "events"], "dimensions": ["event:name"]},
    "paged": {
        "metrics": ["pageviews"],
        "dimensions": ["event:page"],
        "pagination": {"limit": 7, "offset": 3},
        "include": {"total_rows": True},
    },
}
FUNNEL = (
    Goal(1, "Home", page_path="/"),
    Goal(1, "Pricing", page_path="/pricing"),
    Goal(1, "Signup", event_name="signup"),
)
# a rounded metric's tolerance: one unit of its last place (visit_duration: one second)
_TOLERANCE = {"bounce_rate": 0.1, "percentage": 0.1, "conversion_rate": 0.1}
_TOLERANCE.update(views_per_visit=0.01, visit_duration=1)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """DuckDB's warehouse: generated rows compacted, then hand rows and copies of some
    compacted hits sent again (in landing); and every Parquet file of its rows."""
    root = tmp_path_factory.mktemp("both") / "warehouse"
    generate.generate(root, events=6_000, small_sites=2, small_events=600, days=3)
    duck = LocalWarehouse(root)
    again = duck.run(f"SELECT * FROM events WHERE website_id = 1 AND day = '{LAST}' LIMIT 40")
    names = [d[0] for d in duck.connection.description]
    resent = [dict(zip(names, found, strict=True)) for found in again]
    duck.write(HAND)
    duck.write([*HAND[1:3], *resent])
    files = sorted(root.glob("events/*/*/*.parquet")) + sorted(root.glob("landing/*/*.parquet"))
    yield duck, files
    duck.close()


@pytest.fixture(scope="module")
def engines(generated: Any) -> Any:
    """Both engines over the same rows (on ClickHouse, copies in parts not merged), no day
    of ClickHouse's summarised: every visit found in raw rows."""
    duck, files = generated
    clickhouse = LocalClickHouse()
    clickhouse.stop_merges()  # copies stay until read FINAL
    clickhouse.load(files)
    yield duck, clickhouse
    clickhouse.close()


@pytest.fixture(scope="module")
def summarised(generated: Any) -> Any:
    """Both engines over the same rows, ClickHouse's closed days (all but NOW's) summarised
    as its ingest stores them (`clickhouse_days`), copies of hits not merged among them."""
    duck, files = generated
    clickhouse = LocalClickHouse()
    clickhouse.stop_merges()
    clickhouse.load(files)
    clickhouse.summarise(["2026-11-19", FIRST, "2026-11-21", LAST])
    yield duck, clickhouse
    clickhouse.close()


def _same(name: str, metrics: list[str], duck: list[Any], house: list[Any]) -> None:
    assert [r["dimensions"] for r in duck] == [r["dimensions"] for r in house], name
    for mine, theirs in zip(duck, house, strict=True):
        for metric, a, b in zip(metrics, mine["metrics"], theirs["metrics"], strict=True):
            tolerance = _TOLERANCE.get(metric, 0)
            assert math.isclose(a, b, abs_tol=tolerance + 1e-9), (name, mine, theirs)


def test_the_rows_hold_copies_of_hits_that_only_final_collapses(engines):
    _, clickhouse = engines
    (stored,) = clickhouse.run("SELECT COUNT(*), COUNT(DISTINCT hit_id) FROM events")
    assert stored[0] > stored[1] > 5_000


@pytest.mark.parametrize("name", SUITE)
def test_clickhouse_answers_as_duckdb(engines, name):
    duck, clickhouse = engines
    body = {"site_id": 1, "date_range": [FIRST, LAST], **SUITE[name]}
    parsed = query.parse(body, NOW)
    expected = answers.answer(parsed, sql.rows_from(duck.run, "duckdb"), body)
    found = answers.answer(parsed, sql.rows_from(clickhouse.run, "clickhouse"), body)
    assert expected["results"], name  # a question with an answer
    _same(name, body["metrics"], expected["results"], found["results"])
    assert expected["meta"] == found["meta"], name


@pytest.mark.parametrize("name", SUITE)
def test_clickhouse_answers_as_duckdb_from_its_stored_summaries(summarised, name):
    duck, clickhouse = summarised
    body = {"site_id": 1, "date_range": [FIRST, LAST], **SUITE[name]}
    parsed = query.parse(body, NOW)
    expected = answers.answer(parsed, sql.rows_from(duck.run, "duckdb"), body)
    found = answers.answer(parsed, sql.rows_from(clickhouse.run, "clickhouse"), body)
    assert expected["results"], name
    _same(name, body["metrics"], expected["results"], found["results"])
    assert expected["meta"] == found["meta"], name


def test_a_question_reads_the_summaries_of_the_days_marked_summarised(summarised):
    _, clickhouse = summarised
    body = {"site_id": 1, "date_range": [FIRST, LAST], **SUITE["totals"]}
    parsed = query.parse(body, NOW)
    # the range's days with no summary stored: those raw rows answer
    assert clickhouse.run(raw.stale_statement(parsed, "clickhouse")) == [(1, "2026-11-23")]
    statement = sql.statement(parsed, "clickhouse", ((1, "2026-11-23"),))
    assert "FROM daily_totals" in statement
    (stored,) = clickhouse.run(
        f"SELECT SUM(visits), SUM(pageviews) FROM daily_totals WHERE website_id = 1 "
        f"AND day BETWEEN '{FIRST}' AND '{LAST}'"
    )
    found = answers.answer(parsed, sql.rows_from(clickhouse.run, "clickhouse"), body)
    assert found["results"][0]["metrics"][1:3] == [stored[0], stored[1]]


def test_summarised_again_a_day_replaces_its_summaries(summarised):
    _, clickhouse = summarised
    count = "SELECT COUNT(*) FROM daily_visits WHERE day = '2026-11-21'"
    before = clickhouse.run(count)
    clickhouse.summarise(["2026-11-21"])
    assert clickhouse.run(count) == before != [(0,)]


def test_a_funnel_counts_alike(engines):
    duck, clickhouse = engines
    body = {"site_id": 1, "date_range": [FIRST, LAST], "metrics": ["visitors"]}
    parsed = query.parse(body, NOW, "UTC", FUNNEL)
    steps = [[goal] for goal in FUNNEL]
    expected = funnels.counts_from(duck.run, "duckdb")(parsed, steps)
    assert expected == funnels.counts_from(clickhouse.run, "clickhouse")(parsed, steps)
    assert list(expected)[-1], "someone signed up"


def test_a_merged_table_answers_the_same(tmp_path: Path):
    """Copies merged away (`OPTIMIZE ... FINAL`) or not, one answer."""
    clickhouse = LocalClickHouse()
    duck = LocalWarehouse(tmp_path / "w")
    try:
        duck.write(HAND)
        duck.write(HAND)
        clickhouse.load(sorted((tmp_path / "w").glob("landing/*/*.parquet")))
        body = {"site_id": 1, "date_range": [FIRST, LAST], **SUITE["totals"]}
        parsed = query.parse(body, NOW)
        before = answers.answer(parsed, sql.rows_from(clickhouse.run, "clickhouse"), body)
        clickhouse.merge()
        assert clickhouse.run("SELECT COUNT(*) FROM events") == [(len(HAND),)]
        after = answers.answer(parsed, sql.rows_from(clickhouse.run, "clickhouse"), body)
        assert (
            before["results"]
            == after["results"]
            == [{"dimensions": [], "metrics": [2, 2, 3, 4, 50.0, 90, 1.5]}]
        )
    finally:
        duck.close()
        clickhouse.close()


# Visits that two inserts split, with copies, over midnight UTC, on website 7: each insert
# a part of its own (merges stopped), so only FINAL and the visitor's sort order join them.
_SPLIT_FIRST = [
    # s: a visit from Bing begun before midnight, its engagement after it (in no visit) ...
    row(7, "s", "2026-11-21T23:50:00", page="/", source="Bing", country="FR", device="mobile"),
    row(7, "s", "2026-11-21T23:58:00", page="/a", source="Bing", country="FR"),
    # t: a visit whose second page comes in the next insert, 29 minutes later
    row(7, "t", "2026-11-22T10:00:00", page="/", source="Google", country="DE", device="desktop"),
]
_SPLIT_SECOND = [
    # ... and s again after midnight: an engagement (the last visit's), then a new visit
    row(7, "s", "2026-11-22T00:02:00", "engagement", page="/a", engagement_ms=240_000),
    row(7, "s", "2026-11-22T00:05:00", page="/b", country="FR", device="mobile"),
    row(7, "t", "2026-11-22T10:29:00", page="/pricing", country="DE", device="desktop"),
    row(7, "t", "2026-11-22T10:30:00", "engagement", page="/pricing", engagement_ms=60_000),
    # 31 minutes after t's last event: a visit of its own, from a campaign, that converts
    row(7, "t", "2026-11-22T11:00:01", page="/", source="News", utm_campaign="fall"),
    row(7, "t", "2026-11-22T11:00:01", "signup", page="/", country="DE"),
]
_VISIT_QUESTIONS = {  # summaries' questions, counted from visits alone, and one of hits
    "totals": SUITE["totals"],
    "sources": SUITE["sources"],
    "entry_exit": SUITE["entry_exit"],
    "sources_of_visits_to_two_pages": {
        "metrics": ["visits", "bounce_rate", "visit_duration"],
        "dimensions": ["visit:source"],
        "filters": [["is", "event:page", ["/", "/b"]]],
    },
}


@pytest.mark.slow  # about 3 s: ten questions, two engines
def test_visits_split_by_inserts_copies_and_midnight_are_found_as_on_duckdb(tmp_path: Path):
    clickhouse = LocalClickHouse()
    duck = LocalWarehouse(tmp_path / "w")
    try:
        clickhouse.stop_merges()
        for rows in (_SPLIT_FIRST, [*_SPLIT_SECOND, *_SPLIT_FIRST[1:]]):  # with copies
            before = set((tmp_path / "w").glob("landing/*/*.parquet"))
            duck.write(rows)
            clickhouse.load(sorted(set((tmp_path / "w").glob("landing/*/*.parquet")) - before))
        assert clickhouse.run("SELECT COUNT(*) FROM events") == [(11,)]
        for name, question in _VISIT_QUESTIONS.items():
            body = {"site_id": 7, "date_range": [FIRST, LAST], **question}
            parsed = query.parse(body, NOW)
            expected = answers.answer(parsed, sql.rows_from(duck.run, "duckdb"), body)
            found = answers.answer(parsed, sql.rows_from(clickhouse.run, "clickhouse"), body)
            assert expected["results"], name
            _same(name, body["metrics"], expected["results"], found["results"])
        body = {"site_id": 7, "date_range": [FIRST, LAST], **SUITE["totals"]}
        totals = answers.answer(
            query.parse(body, NOW), sql.rows_from(clickhouse.run, "clickhouse"), body
        )
        # visitors s (two days) and t; visits: s's two, t's two; t's first lasts 29 minutes
        assert totals["results"][0]["metrics"][:4] == [3, 4, 6, 7]
    finally:
        duck.close()
        clickhouse.close()
