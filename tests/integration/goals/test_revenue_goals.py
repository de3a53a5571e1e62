"""Goals with a property match and revenue goals (issue 24, parts 1 and 3) through the
goals API and POST /api/v1/query: a goal counts only events with its properties; a revenue
goal's total_revenue and average_revenue add its events' amounts in its currency (others
are left out: amounts are never converted); the SQL renders for Athena too."""

from __future__ import annotations

from typing import Any

import pytest
import sqlglot

from sitelens.analytics.warehouse import conversions, query, raw
from sitelens.analytics.warehouse.goals import Goal
from tests.integration.analytics.test_properties import DAY, NOW, stored
from tests.integration.test_tracking import create_website

duckdb = pytest.importorskip("duckdb")


def purchase(site: int, visitor: str, at: str, amount: str, currency: str, plan: str) -> dict:
    return stored(
        site,
        visitor,
        at,
        event_parts=("Purchase", "", ""),
        props=f'{{"plan":"{plan}"}}',
        revenue_amount=amount,
        revenue_currency=currency,
    )


def make_goal(analytics: Any, site: int, **fields: Any) -> dict[str, Any]:
    reply = analytics.post(f"/api/v1/websites/{site}/goals", json_body=fields)
    assert reply.status == 201, reply.body
    return reply.data


def test_property_and_revenue_goals_as_queried(analytics, store):
    site = create_website(analytics)["id"]
    revenue = make_goal(analytics, site, event_name="Purchase", currency="EUR")
    assert (revenue["currency"], revenue["custom_props"]) == ("EUR", {})
    pro = make_goal(
        analytics, site, event_name="Purchase", custom_props={"plan": "pro"}, display_name="Pro"
    )
    assert (pro["currency"], pro["custom_props"]) == (None, {"plan": "pro"})
    for visitor in "abcd":
        store.write([stored(site, visitor, "10:00:00")])
    store.write(
        [
            purchase(site, "a", "10:01:00", "19.99", "EUR", "pro"),
            purchase(site, "a", "10:02:00", "10.01", "EUR", "basic"),
            purchase(site, "b", "10:01:00", "5", "EUR", "pro"),
            purchase(site, "c", "10:01:00", "99", "USD", "pro"),  # not in the goal's currency
        ]
    )
    body = {
        "site_id": site,
        "metrics": ["visitors", "events", "conversion_rate", "total_revenue", "average_revenue"],
        "date_range": [DAY, DAY],
        "dimensions": ["event:goal"],
    }
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 200, reply.body
    eur = "EUR"
    assert reply.body["results"] == [
        {"dimensions": ["Pro"], "metrics": [3, 3, 75.0, None, None]},  # a tie: by name
        {
            "dimensions": ["Purchase"],
            "metrics": [
                3,
                4,
                75.0,
                {"value": 35.0, "currency": eur},
                {"value": 11.67, "currency": eur},
            ],
        },
    ]
    filtered = {**body, "dimensions": [], "filters": [["is", "event:goal", ["Purchase"]]]}
    reply = analytics.post("/api/v1/query", json_body=filtered)
    assert reply.body["results"] == [
        {
            "dimensions": [],
            "metrics": [
                3,
                4,
                75.0,
                {"value": 35.0, "currency": eur},
                {"value": 11.67, "currency": eur},
            ],
        }
    ]
    by_plan = {**filtered, "metrics": ["total_revenue"], "dimensions": ["event:props:plan"]}
    reply = analytics.post("/api/v1/query", json_body=by_plan)
    assert reply.status == 200, reply.body
    assert reply.body["results"] == [
        {"dimensions": ["pro"], "metrics": [{"value": 24.99, "currency": eur}]},
        {"dimensions": ["basic"], "metrics": [{"value": 10.01, "currency": eur}]},
    ]


def test_revenue_metrics_need_a_goal(analytics, store):
    site = create_website(analytics)["id"]
    body = {"site_id": site, "metrics": ["total_revenue"], "date_range": "7d"}
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 422
    assert list(reply.body["message"]) == ["metrics"]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"page_path": "/thanks", "currency": "EUR"}, "currency"),
        ({"page_path": "/thanks", "custom_props": {"plan": "pro"}}, "custom_props"),
        ({"event_name": "Purchase", "currency": "euro"}, "currency"),
        # three capitals that are no ISO 4217 code, and the codes that are no money
        *(
            ({"event_name": "Purchase", "currency": code}, "currency")
            for code in ("XYZ", "XXX", "XTS")
        ),
        ({"event_name": "Purchase", "custom_props": {}}, "custom_props"),
        ({"event_name": "Purchase", "custom_props": {"a key": "x"}}, "custom_props"),
        ({"event_name": "Purchase", "custom_props": {"plan": 3}}, "custom_props"),
        (
            {"event_name": "Purchase", "custom_props": {f"k{n}": "v" for n in range(4)}},
            "custom_props",
        ),
    ],
)
def test_a_goal_s_property_match_and_currency_are_checked(analytics, fields, field):
    site = create_website(analytics)["id"]
    reply = analytics.post(f"/api/v1/websites/{site}/goals", json_body=fields)
    assert reply.status == 422, reply.body
    assert field in reply.body["message"]
    assert analytics.get(f"/api/v1/websites/{site}/goals").data == []


def test_the_same_event_with_other_properties_is_another_goal(analytics):
    site = create_website(analytics)["id"]
    make_goal(analytics, site, event_name="Purchase", custom_props={"plan": "pro"})
    reply = analytics.post(
        f"/api/v1/websites/{site}/goals",
        json_body={
            "event_name": "Purchase",
            "custom_props": {"plan": "pro"},
            "display_name": "Again",
        },
    )
    assert reply.status == 422
    assert list(reply.body["message"]) == ["event_name"]


def test_revenue_goal_sql_renders_for_athena():
    goals = (
        Goal(1, "Purchase", event_name="Purchase", currency="EUR"),
        Goal(1, "Pro", event_name="Purchase", custom_props=(("plan", "pro"),)),
    )
    body = {
        "site_id": 1,
        "metrics": ["total_revenue", "average_revenue", "visitors"],
        "date_range": [DAY, DAY],
        "dimensions": ["event:goal", "event:props:plan"],
    }
    athena = conversions.statement(query.parse(body, NOW, "UTC", goals), "athena", ())
    assert "JSON_EXTRACT_SCALAR" in athena and "DECIMAL(38, 6)" in athena
    sqlglot.parse_one(athena, read="athena")
    assert raw.COMPACTED in athena
