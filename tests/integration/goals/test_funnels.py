"""Funnels: POST /api/v1/funnels/query over known visits, on DuckDB (the SQL Athena runs
is rendered from the same model): each step's visitors, conversion from the start and
from the previous step, drop-off; bad bodies 422, another account's website 404."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlglot

from sitelens.analytics.warehouse import funnels, query
from sitelens.analytics.warehouse.goals import Goal
from sitelens.data import warehouse as engines
from tests.integration.analytics.test_warehouse import DAY, NOW, row

pytest.importorskip("duckdb")
from sitelens.local.warehouse import LocalWarehouse

HOME, PRICING, SIGNUP = (
    Goal(1, "Home", page_path="/"),
    Goal(1, "Pricing", page_path="/pricing"),
    Goal(1, "Signup", event_name="signup"),
)


def rows_of(site: int) -> list[dict]:
    return [
        # a: every step in order, from Google
        row(site, "a", "10:00:00", page="/", source="Google"),
        row(site, "a", "10:01:00", page="/pricing", source="Google"),
        row(site, "a", "10:02:00", "signup", page="/pricing"),
        # b: pricing before home, so only home counts, then a signup without pricing after
        row(site, "b", "10:00:00", page="/pricing"),
        row(site, "b", "10:01:00", page="/"),
        row(site, "b", "10:02:00", "signup", page="/"),
        # c: home only; d: home then pricing
        row(site, "c", "11:00:00", page="/"),
        row(site, "d", "12:00:00", page="/"),
        row(site, "d", "12:01:00", page="/pricing?plan=pro"),
        # e: never enters
        row(site, "e", "13:00:00", page="/blog/x"),
        # f: signs up before pricing too soon, and again after it
        row(site, "f", "09:00:00", page="/"),
        row(site, "f", "09:01:00", "signup", page="/"),
        row(site, "f", "09:02:00", page="/pricing"),
        row(site, "f", "09:03:00", "signup", page="/pricing"),
        row(site, "f", "09:04:00", "engagement", page="/pricing", engagement_ms=60_000),
    ]


EXPECTED = {
    "steps": [
        {
            "step": 1,
            "goal": "Home",
            "visitors": 5,
            "conversion_rate": 100.0,
            "conversion_rate_step": 100.0,
            "dropoff": 0,
            "dropoff_percentage": 0.0,
        },
        {
            "step": 2,
            "goal": "Pricing",
            "visitors": 3,
            "conversion_rate": 60.0,
            "conversion_rate_step": 60.0,
            "dropoff": 2,
            "dropoff_percentage": 40.0,
        },
        {
            "step": 3,
            "goal": "Signup",
            "visitors": 2,
            "conversion_rate": 40.0,
            "conversion_rate_step": 66.7,
            "dropoff": 1,
            "dropoff_percentage": 33.3,
        },
    ],
    "meta": {
        "all_visitors": 6,
        "entering_visitors": 5,
        "entering_visitors_percentage": 83.3,
        "never_entering_visitors": 1,
        "conversion_rate": 40.0,
    },
}


@pytest.fixture(scope="module", params=["landing", "compacted"])
def store_of_rows(tmp_path_factory: pytest.TempPathFactory, request) -> LocalWarehouse:
    store = LocalWarehouse(tmp_path_factory.mktemp("funnels") / "warehouse")
    store.write([*rows_of(1), *rows_of(2)[:3]])  # website 2's visitor is never website 1's
    if request.param == "compacted":
        store.compact()
    return store


def funnel(store: LocalWarehouse, steps, **body) -> dict:
    body = {"site_id": 1, "date_range": [DAY, DAY], "metrics": ["visitors"], **body}
    parsed = query.parse(body, NOW, "UTC", (HOME, PRICING, SIGNUP))
    found = funnels.counts_from(store.run, "duckdb")(parsed, [[goal] for goal in steps])
    return funnels.answer([goal.name for goal in steps], found)


def test_each_step_s_visitors_conversion_and_dropoff(store_of_rows):
    assert funnel(store_of_rows, [HOME, PRICING, SIGNUP]) == EXPECTED


def test_a_filter_narrows_the_visitors_of_every_step(store_of_rows):
    google = funnel(
        store_of_rows, [HOME, PRICING, SIGNUP], filters=[["is", "visit:source", ["Google"]]]
    )
    assert [step["visitors"] for step in google["steps"]] == [1, 1, 1]
    assert google["meta"]["all_visitors"] == 1


def test_order_matters(store_of_rows):
    backwards = funnel(store_of_rows, [PRICING, HOME])
    assert [step["visitors"] for step in backwards["steps"]] == [4, 1]  # only b


def test_a_range_without_visitors_answers_zeros(store_of_rows):
    empty = funnel(store_of_rows, [HOME, SIGNUP], date_range=["2026-11-01", "2026-11-02"])
    assert [step["visitors"] for step in empty["steps"]] == [0, 0]
    assert empty["meta"]["conversion_rate"] == 0.0


@pytest.mark.parametrize("compacted", [False, True])
def test_a_funnel_of_new_york_s_evening_runs_across_midnight_utc(tmp_path, compacted):
    """A visitor hash lives a day of the website's zone: in New York one spans midnight UTC,
    where the warehouse's days end, and a visitor going on past it is one visitor."""
    store = LocalWarehouse(tmp_path / "warehouse")
    store.write(
        [
            row(1, "n", "2026-11-23T23:50:00", page="/"),  # 18:50 in New York
            row(1, "n", "2026-11-24T00:10:00", page="/pricing"),  # 19:10
        ]
    )
    if compacted:
        store.compact()
    found = funnel(store, [HOME, PRICING], timezone="America/New_York")
    assert [step["visitors"] for step in found["steps"]] == [1, 1]
    assert found["meta"]["all_visitors"] == 1


@pytest.mark.parametrize("dialect", ["duckdb", "athena"])
def test_the_statement_renders_for_both_engines(dialect):
    parsed = query.parse(
        {"site_id": 1, "date_range": [DAY, DAY], "metrics": ["visitors"]}, NOW, "UTC", ()
    )
    steps = [[HOME], [PRICING], [SIGNUP], [HOME], [PRICING], [SIGNUP], [HOME], [PRICING]]
    text = funnels.statement(parsed, steps, dialect, ((1, DAY),))
    sqlglot.parse_one(text, read=dialect)
    assert "step_8" in text


@pytest.fixture
def served(tmp_path: Path) -> Iterator[LocalWarehouse]:
    local = LocalWarehouse(tmp_path / "warehouse")
    engines.use(engines.LocalEngine("duckdb", local.run, local.write))
    yield local
    engines.use(None)


def test_the_funnel_route_answers_for_the_website_s_goals(analytics, other_analytics, served):
    website = analytics.post("/api/v1/websites", {"domain": "funnel.example"}).data["id"]
    goals_path = f"/api/v1/websites/{website}/goals"
    analytics.post(goals_path, {"page_path": "/", "display_name": "Home"})
    analytics.post(goals_path, {"page_path": "/pricing", "display_name": "Pricing"})
    analytics.post(goals_path, {"event_name": "signup", "display_name": "Signup"})
    served.write(rows_of(website))
    body = {"site_id": website, "date_range": [DAY, DAY], "steps": ["Home", "Pricing", "Signup"]}
    reply = analytics.post("/api/v1/funnels/query", json_body=body)
    assert reply.status == 200, reply.body
    assert {k: reply.body[k] for k in ("steps", "meta")} == EXPECTED
    assert reply.body["query"]["steps"] == ["Home", "Pricing", "Signup"]
    assert reply.body["query"]["timezone"] == "UTC"
    for wrong, field in (
        ({**body, "steps": ["Home"]}, "steps"),
        ({**body, "steps": ["Home"] * 2}, "steps"),
        ({**body, "steps": [f"G{n}" for n in range(9)]}, "steps"),
        ({**body, "steps": ["Home", "Nope"]}, "steps"),
        ({**body, "steps": "Home"}, "steps"),
        ({**body, "metrics": ["visitors"]}, "metrics"),
        ({**body, "date_range": "forever"}, "date_range"),
        ({**body, "filters": [["is", "event:goal", ["Home"]]]}, "filters"),
        ({key: value for key, value in body.items() if key != "date_range"}, "date_range"),
    ):
        refused = analytics.post("/api/v1/funnels/query", json_body=wrong)
        assert refused.status == 422, (wrong, refused.body)
        assert list(refused.body["message"]) == [field]
    theirs = other_analytics.post("/api/v1/funnels/query", json_body=body)
    assert theirs.status == 404
    assert analytics.post("/api/v1/funnels/query", json_body=body, key=None).status == 401
