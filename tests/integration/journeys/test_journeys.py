"""Journeys on scripted visits with known answers: the pages viewed next after a page and
the paths of visits from their entry, on DuckDB (rows in landing, and compacted) and on
ClickHouse (chDB) from the same rows, through the SQL each engine is given."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlglot

from sitelens.analytics.warehouse import journeys, query
from tests.integration.analytics.test_warehouse import DAY, NOW, row

pytest.importorskip("duckdb")
from sitelens.local.warehouse import LocalWarehouse

E_PAGES = ["/a", "/b", "/c", "/d", "/e", "/f"]


def visits_of(site: int) -> list[dict[str, Any]]:
    """Six visits of five visitors (`a` comes back after more than 30 minutes)."""
    pages = {
        "a": [("10:00:00", "/"), ("10:01:00", "/pricing"), ("10:02:00", "/signup")],
        "b": [
            ("10:00:00", "/"),
            ("10:01:00", "/blog"),
            ("10:02:00", "/"),
            ("10:03:00", "/pricing"),
        ],
        "c": [("11:00:00", "/")],
        "d": [("12:00:00", "/pricing"), ("12:01:00", "/")],
        "e": [(f"13:0{n}:00", page) for n, page in enumerate(["/", *E_PAGES])],
    }
    rows = [
        row(site, visitor, at, page=page, source="Google" if visitor == "a" else "")
        for visitor, steps in pages.items()
        for at, page in steps
    ]
    return [
        *rows,
        row(site, "a", "10:03:00", "signup", page="/signup", source="Google"),  # no step
        row(site, "a", "10:04:00", "engagement", page="/signup", engagement_ms=60_000),
        row(site, "a", "10:50:00", page="/"),  # a's second visit: a bounce
        row(site, "b", "10:02:30", "engagement", page="/", engagement_ms=30_000),
    ]


NEXT_AFTER_HOME = [
    {"next_page": None, "transitions": 3, "visitors": 3, "visits": 3, "percentage": 42.9},
    {"next_page": "/pricing", "transitions": 2, "visitors": 2, "visits": 2, "percentage": 28.6},
    {"next_page": "/a", "transitions": 1, "visitors": 1, "visits": 1, "percentage": 14.3},
    {"next_page": "/blog", "transitions": 1, "visitors": 1, "visits": 1, "percentage": 14.3},
]
PATHS = [
    {"path": ["/"], "truncated": False, "visitors": 2, "visits": 2, "percentage": 33.3},
    {"path": ["/", "/a", "/b", "/c", "/d"], "truncated": True, "visitors": 1, "visits": 1},
    {"path": ["/", "/blog", "/", "/pricing"], "truncated": False, "visitors": 1, "visits": 1},
    {"path": ["/", "/pricing", "/signup"], "truncated": False, "visitors": 1, "visits": 1},
    {"path": ["/pricing", "/"], "truncated": False, "visitors": 1, "visits": 1},
]
for shown in PATHS[1:]:
    shown["percentage"] = 16.7
TWO_STEPS = [
    {"path": ["/"], "truncated": False, "visits": 2},
    {"path": ["/", "/a"], "truncated": True, "visits": 1},
    {"path": ["/", "/blog"], "truncated": True, "visits": 1},
    {"path": ["/", "/pricing"], "truncated": True, "visits": 1},
    {"path": ["/pricing", "/"], "truncated": False, "visits": 1},  # exactly two: not cut
]


def asked(kind: str, page: str | None = None, steps: int = 5, limit: int = 20) -> dict:
    return {"kind": kind, "page": page, "steps": steps, "limit": limit}


def journey(run: Any, dialect: str, wanted: dict, **body: Any) -> dict[str, Any]:
    body = {"site_id": 1, "date_range": [DAY, DAY], "metrics": ["visits"], **body}
    parsed = query.parse(body, NOW)
    return journeys.answer(wanted["kind"], journeys.rows_from(run, dialect)(parsed, wanted))


@pytest.fixture(scope="module", params=["landing", "compacted"])
def duck(tmp_path_factory: pytest.TempPathFactory, request) -> Iterator[LocalWarehouse]:
    store = LocalWarehouse(tmp_path_factory.mktemp("journeys") / "warehouse")
    store.write([*visits_of(1), *visits_of(2)[:2]])  # website 2's visits never count for 1
    if request.param == "compacted":
        store.compact()
    yield store
    store.close()


def test_the_pages_after_a_page_and_the_visits_ending_there(duck):
    found = journey(duck.run, "duckdb", asked("next_pages", "/"))
    assert found == {"results": NEXT_AFTER_HOME, "meta": {"total_rows": 4}}
    after_pricing = journey(duck.run, "duckdb", asked("next_pages", "/pricing"))
    assert [(r["next_page"], r["transitions"]) for r in after_pricing["results"]] == [
        ("/", 1),
        ("/signup", 1),
        (None, 1),  # b's visit ends on it: after the pages of as many transitions
    ]


def test_the_paths_from_entry_truncated_past_their_steps(duck):
    assert journey(duck.run, "duckdb", asked("paths")) == {
        "results": PATHS,
        "meta": {"total_rows": 5},
    }
    two = journey(duck.run, "duckdb", asked("paths", steps=2))["results"]
    assert [{k: r[k] for k in ("path", "truncated", "visits")} for r in two] == TWO_STEPS


def test_paths_entering_on_a_page_and_a_limit(duck):
    entering = journey(duck.run, "duckdb", asked("paths", page="/pricing"))["results"]
    assert [r["path"] for r in entering] == [["/pricing", "/"]]
    first = journey(duck.run, "duckdb", asked("paths", limit=2))
    assert [r["path"] for r in first["results"]] == [p["path"] for p in PATHS[:2]]
    assert first["meta"]["total_rows"] == 5


def test_filters_choose_whole_visits(duck):
    google = journey(
        duck.run, "duckdb", asked("paths"), filters=[["is", "visit:source", ["Google"]]]
    )["results"]
    assert [(r["path"], r["percentage"]) for r in google] == [(["/", "/pricing", "/signup"], 100.0)]
    # a page filter chooses the visits that viewed it, all of whose pages make the path
    blog = journey(duck.run, "duckdb", asked("paths"), filters=[["is", "event:page", ["/blog"]]])[
        "results"
    ]
    assert [r["path"] for r in blog] == [["/", "/blog", "/", "/pricing"]]
    none = journey(duck.run, "duckdb", asked("next_pages", "/nowhere"))
    assert none == {"results": [], "meta": {"total_rows": 0}}


@pytest.mark.parametrize("dialect", ["duckdb", "athena", "clickhouse"])
def test_the_statements_render_for_every_engine(dialect):
    parsed = query.parse({"site_id": 1, "date_range": [DAY, DAY], "metrics": ["visits"]}, NOW)
    for text in (
        journeys.next_pages_statement(parsed, "/", 10, dialect, ((1, DAY),)),
        journeys.paths_statement(parsed, 5, None, 10, dialect, ((1, DAY),)),
    ):
        sqlglot.parse_one(text, read="duckdb" if dialect == "duckdb" else dialect)


@pytest.mark.slow  # about 6 s, chDB's start most of it
def test_clickhouse_answers_as_duckdb(tmp_path):
    pytest.importorskip("chdb", reason="chdb (in-process ClickHouse) is not installed")
    from sitelens.local.clickhouse import LocalClickHouse

    store = LocalWarehouse(tmp_path / "warehouse")
    rows = visits_of(1)
    store.write([*rows, *visits_of(2)[:2]])
    store.write(rows[:3])  # copies of hits (the same hit ids): counted once
    clickhouse = LocalClickHouse()
    try:
        clickhouse.stop_merges()
        clickhouse.load(sorted((tmp_path / "warehouse").glob("landing/*/*.parquet")))
        for wanted, expected in (
            (asked("next_pages", "/"), NEXT_AFTER_HOME),
            (asked("paths"), PATHS),
        ):
            assert journey(clickhouse.run, "clickhouse", wanted)["results"] == expected
            assert journey(store.run, "duckdb", wanted)["results"] == expected
        two = journey(clickhouse.run, "clickhouse", asked("paths", steps=2))["results"]
        assert [{k: r[k] for k in ("path", "truncated", "visits")} for r in two] == TWO_STEPS
    finally:
        clickhouse.close()
        store.close()
