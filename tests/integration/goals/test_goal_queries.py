"""`event:goal` in the query API: a website's defined goals (custom events and page path
patterns) as a dimension and a filter, with Plausible's visitors, events and
conversion_rate, counted from known visits on DuckDB (the SQL Athena runs is rendered from
the same model), and through POST /api/v1/query with goals made by the goals API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlglot

from sitelens.analytics.warehouse import answers, conversions, query, summaries
from sitelens.analytics.warehouse.goals import Goal, path_regex
from sitelens.data import warehouse as engines
from tests.integration.analytics.test_warehouse import DAY, NOW, row

duckdb = pytest.importorskip("duckdb")
from sitelens.local.warehouse import LocalWarehouse  # noqa: E402

GOALS = (
    Goal(1, "Signup", event_name="signup"),
    Goal(1, "Visit /blog/**", page_path="/blog/**"),
    Goal(1, "Pricing", page_path="/pricing"),
    Goal(2, "Signup", event_name="signup"),  # another website's goal of the same name
)
ROWS = [
    # a: reads two blog posts (one with a query string), from Google
    row(1, "a", "10:00:00", page="/", source="Google"),
    row(1, "a", "10:01:00", page="/blog/one", source="Google"),
    row(1, "a", "10:02:00", page="/blog/two/deep?ref=x", source="Google"),
    # b: pricing, then signs up; from Twitter
    row(1, "b", "10:10:00", page="/pricing", source="Twitter"),
    row(1, "b", "10:11:00", "signup", page="/pricing"),
    # c: a blog index that is no post (`/blog`), and a page under pricing that is not it
    row(1, "c", "11:00:00", page="/blog"),
    row(1, "c", "11:01:00", page="/pricing/faq"),
    # d: signs up twice
    row(1, "d", "12:00:00", page="/"),
    row(1, "d", "12:01:00", "signup", page="/"),
    row(1, "d", "12:02:00", "signup", page="/"),
    row(1, "d", "12:03:00", "engagement", page="/", engagement_ms=60_000),
    # website 2's visitor signs up: never counted for website 1
    row(2, "z", "10:00:00", page="/"),
    row(2, "z", "10:01:00", "signup", page="/"),
]


@pytest.fixture(scope="module", params=["landing", "compacted"])
def warehouse(tmp_path_factory: pytest.TempPathFactory, request) -> LocalWarehouse:
    store = LocalWarehouse(tmp_path_factory.mktemp("goals") / "warehouse")
    store.write(ROWS)
    if request.param == "compacted":
        store.compact()
    return store


def parsed(**body: Any) -> query.Query:
    body.setdefault("site_id", 1)
    body.setdefault("date_range", [DAY, DAY])
    return query.parse(body, NOW, "UTC", GOALS)


def ask(warehouse: LocalWarehouse, **body: Any) -> list[dict[str, Any]]:
    question = parsed(**body)
    assert conversions.asked(question)
    assert summaries.plan(question) is None  # summaries hold no goal
    answer = answers.answer(question, conversions.rows_from(warehouse.run, "duckdb"), body)
    return answer["results"]


def test_each_goal_as_a_dimension(warehouse):
    results = ask(
        warehouse, metrics=["visitors", "events", "conversion_rate"], dimensions=["event:goal"]
    )
    # 4 visitors of website 1: a blog reader, two who signed up (three times), one on pricing
    assert results == [
        {"dimensions": ["Signup"], "metrics": [2, 3, 50.0]},
        {"dimensions": ["Pricing"], "metrics": [1, 1, 25.0]},
        {"dimensions": ["Visit /blog/**"], "metrics": [1, 2, 25.0]},
    ]


def test_a_goal_filter_counts_the_goals_it_selects_together(warehouse):
    signup = ask(
        warehouse,
        metrics=["visitors", "events", "conversion_rate"],
        filters=[["is", "event:goal", ["Signup"]]],
    )
    assert signup == [{"dimensions": [], "metrics": [2, 3, 50.0]}]
    either = ask(
        warehouse,
        metrics=["visitors", "events"],
        filters=[["is", "event:goal", ["Signup", "Pricing"]]],
    )
    assert either == [{"dimensions": [], "metrics": [2, 4]}]  # b pricing and signup, d twice
    contains = ask(
        warehouse,
        metrics=["visitors"],
        dimensions=["event:goal"],
        filters=[["contains", "event:goal", ["visit"], {"case_sensitive": False}]],
    )
    assert contains == [{"dimensions": ["Visit /blog/**"], "metrics": [1]}]


def test_conversion_rate_by_another_dimension_divides_by_its_group(warehouse):
    results = ask(
        warehouse,
        metrics=["visitors", "conversion_rate"],
        dimensions=["visit:source", "event:goal"],
        order_by=[["visit:source", "asc"], ["event:goal", "asc"]],
    )
    assert results == [
        {"dimensions": ["Direct / None", "Signup"], "metrics": [1, 50.0]},  # c and d came direct
        {"dimensions": ["Google", "Visit /blog/**"], "metrics": [1, 100.0]},
        {"dimensions": ["Twitter", "Pricing"], "metrics": [1, 100.0]},
        {"dimensions": ["Twitter", "Signup"], "metrics": [1, 100.0]},
    ]


def test_a_time_series_of_a_goal_fills_empty_buckets(warehouse):
    question = parsed(
        metrics=["visitors", "conversion_rate"],
        dimensions=["time:day"],
        filters=[["is", "event:goal", ["Signup"]]],
        date_range=["2026-11-22", DAY],
        include={"time_labels": True, "comparisons": {"mode": "previous_period"}},
    )
    answer = answers.answer(question, conversions.rows_from(warehouse.run, "duckdb"), {})
    assert answer["results"][0]["dimensions"] == ["2026-11-22"]
    assert answer["results"][0]["metrics"] == [0, 0]
    assert answer["results"][1]["metrics"] == [2, 50.0]
    assert answer["results"][1]["comparison"]["metrics"] == [0, 0]


def test_no_conversion_answers_zeros(warehouse):
    results = ask(
        warehouse,
        metrics=["visitors", "events", "conversion_rate"],
        filters=[["is", "event:goal", ["Signup"]]],
        date_range=["2026-11-01", "2026-11-02"],
    )
    assert results == [{"dimensions": [], "metrics": [0, 0, 0]}]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"metrics": ["visitors"], "filters": [["is", "event:goal", ["Nope"]]]}, "filters"),
        ({"metrics": ["visitors"], "filters": [["is_not", "event:goal", ["Signup"]]]}, "filters"),
        (
            {"metrics": ["visitors"], "filters": [["or", [["is", "event:goal", ["Signup"]]]]]},
            "filters",
        ),
        ({"metrics": ["bounce_rate"], "dimensions": ["event:goal"]}, "metrics"),
        ({"metrics": ["pageviews"], "filters": [["is", "event:goal", ["Signup"]]]}, "metrics"),
    ],
)
def test_a_goal_query_it_cannot_answer_is_422(body, field):
    with pytest.raises(query.errors.Invalid) as refused:
        parsed(**body)
    assert field in refused.value.message


@pytest.mark.parametrize("dialect", ["duckdb", "athena"])
def test_the_statement_renders_for_both_engines(dialect):
    question = parsed(
        metrics=["visitors", "events", "conversion_rate"],
        dimensions=["event:goal", "visit:country"],
    )
    text = conversions.statement(question, dialect, ((1, DAY),))
    sqlglot.parse_one(text, read=dialect)  # valid in the engine's dialect
    assert ("REGEXP_LIKE" in text) == (dialect == "athena")


def test_path_patterns():
    import re

    assert re.match(path_regex("/blog/*"), "/blog/a?x=1")
    assert not re.match(path_regex("/blog/*"), "/blog/a/b")
    assert re.match(path_regex("/blog/**"), "/blog/a/b")
    assert not re.match(path_regex("/thanks"), "/thanks/more")
    assert not re.match(path_regex("/a.b"), "/axb")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LocalWarehouse]:
    local = LocalWarehouse(tmp_path / "warehouse")
    engines.use(engines.LocalEngine("duckdb", local.run, local.write))
    yield local
    engines.use(None)


def test_goals_made_by_the_api_answer_the_query_api(analytics, store):
    website = analytics.post("/api/v1/websites", {"domain": "convert.example"}).data["id"]
    goals_path = f"/api/v1/websites/{website}/goals"
    assert analytics.post(goals_path, {"event_name": "signup"}).status == 201
    assert (
        analytics.post(goals_path, {"page_path": "/blog/**", "display_name": "Blog"}).status == 201
    )
    store.write([{**r, "website_id": website} for r in ROWS if r["website_id"] == 1])
    body = {
        "site_id": website,
        "metrics": ["visitors", "events", "conversion_rate"],
        "date_range": [DAY, DAY],
        "dimensions": ["event:goal"],
    }
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 200, reply.body
    assert reply.body["results"] == [
        {"dimensions": ["signup"], "metrics": [2, 3, 50.0]},
        {"dimensions": ["Blog"], "metrics": [1, 2, 25.0]},
    ]
    assert reply.body["query"]["dimensions"] == ["event:goal"]
    filtered = analytics.post(
        "/api/v1/query",
        json_body={**body, "dimensions": [], "filters": [["is", "event:goal", ["Blog"]]]},
    )
    assert filtered.body["results"] == [{"dimensions": [], "metrics": [1, 2, 25.0]}]
    unknown = analytics.post(
        "/api/v1/query", json_body={**body, "filters": [["is", "event:goal", ["Nope"]]]}
    )
    assert unknown.status == 422 and list(unknown.body["message"]) == ["filters"]
    # a deleted goal is no goal any more
    first = analytics.get(goals_path).data[0]["id"]
    analytics.delete(f"{goals_path}/{first}")
    after = analytics.post("/api/v1/query", json_body=body)
    assert after.body["results"] == [{"dimensions": ["Blog"], "metrics": [1, 2, 25.0]}]


def test_a_roll_up_counts_each_website_s_goal_of_a_name_as_one(warehouse):
    results = ask(
        warehouse,
        site_id=[1, 2],
        metrics=["visitors", "events", "conversion_rate"],
        dimensions=["event:goal"],
        filters=[["is", "event:goal", ["Signup"]]],
    )
    # website 1's two sign-ups (three events) and website 2's one, of 5 visitors in all
    assert results == [{"dimensions": ["Signup"], "metrics": [3, 4, 60.0]}]
