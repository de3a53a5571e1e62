"""POST /api/v1/query through API Gateway events: the account's websites only, the answer
in the Stats API v2 shape, bad queries 422, on the local warehouse engine."""

from __future__ import annotations

import pytest

from tests.integration.analytics.test_warehouse import row
from tests.integration.test_tracking import create_website

pytest.importorskip("duckdb")


def test_a_query_over_the_account_s_website(analytics, store):
    website = create_website(analytics)
    store.write(
        [
            row(website["id"], "a", "10:00:00", page="/", source="Google"),
            row(website["id"], "a", "10:03:00", page="/about", source="Google"),
            row(website["id"], "b", "12:00:00", page="/"),
        ]
    )
    body = {
        "site_id": website["id"],
        "metrics": ["visitors", "visits", "pageviews", "bounce_rate"],
        "date_range": ["2026-11-23", "2026-11-23"],
        "dimensions": ["visit:source"],
    }
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 200, reply.body
    assert reply.body["results"] == [
        {"dimensions": ["Direct / None"], "metrics": [1, 1, 1, 100.0]},
        {"dimensions": ["Google"], "metrics": [1, 1, 2, 0.0]},
    ]
    assert reply.body["query"]["site_id"] == website["id"]
    assert reply.body["query"]["timezone"] == "UTC"


def test_another_account_s_website_is_not_found(analytics, other_analytics, store):
    theirs = create_website(other_analytics, domain="theirs.example")
    body = {"site_id": theirs["id"], "metrics": ["visitors"], "date_range": "7d"}
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 404
    assert reply.body == {"message": "Resource not found.", "status": 404}


def test_an_invalid_query_is_422_naming_the_field(analytics, store):
    website = create_website(analytics)
    body = {"site_id": website["id"], "metrics": ["sessions"], "date_range": "7d"}
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 422
    assert list(reply.body["message"]) == ["metrics"]


@pytest.mark.parametrize(
    "date_range",
    [
        ["9999-12-30", "9999-12-31"],  # the next day's midnight is past datetime's last year
        ["0001-01-01T00:00:00+01:00", "0001-01-01T00:30:00+01:00"],  # UTC is before year 1
        ["9999-12-31T23:59:59-01:00", "9999-12-31T23:59:59-01:00"],
        ["1969-12-31", "1970-01-01"],
    ],
)
@pytest.mark.parametrize("path", ["/api/v1/query", "/api/v1/funnels/query"])
def test_days_outside_the_years_1970_to_9998_are_422_not_500(analytics, store, path, date_range):
    website = create_website(analytics)
    body = {"site_id": website["id"], "date_range": date_range}
    body.update({"steps": ["a", "b"]} if "funnels" in path else {"metrics": ["visitors"]})
    reply = analytics.post(path, json_body=body)
    assert reply.status == 422, reply.body
    assert reply.body["message"] == {
        "date_range": ["The date range must lie in the years 1970 to 9998."]
    }


def test_the_first_and_last_days_of_the_calendar_are_answered(analytics, store):
    """From any offset and in any zone: midnights on either side stay inside the calendar;
    and RFC 3339's lower-case datetimes are read."""
    website = create_website(analytics)
    for date_range, timezone in (
        (["1970-01-01", "1970-01-01"], "Etc/GMT-14"),
        (["9998-12-31", "9998-12-31"], "Etc/GMT+12"),
        (["1970-01-01T00:00:00+23:59", "1970-01-01T10:00:00+23:59"], "UTC"),
        (["9998-12-31T00:00:00-23:59", "9998-12-31T23:59:59-23:59"], "UTC"),
        (["2026-11-23t00:00:00z", "2026-11-23t23:59:59z"], "UTC"),  # RFC 3339 allows t and z
    ):
        body = {
            "site_id": website["id"],
            "metrics": ["visitors"],
            "date_range": date_range,
            "timezone": timezone,
            "dimensions": ["time:day"],
        }
        reply = analytics.post("/api/v1/query", json_body=body)
        assert reply.status == 200, (date_range, reply.body)
        assert reply.body["results"] == []


@pytest.mark.parametrize(
    ("operator", "visitors"),
    [("is", 0), ("is_not", 1), ("contains", 1), ("contains_not", 1), ("matches", 1)],
)
def test_a_nul_in_a_filter_value_is_a_character_like_any_other(
    analytics, store, operator, visitors
):
    """NUL ends a string literal in DuckDB's parser: it reaches the SQL as CHR(0), so it is
    matched as a character (a 500 before), in a page filter, a property's and a goal's."""
    website = create_website(analytics)
    store.write(
        [
            row(website["id"], "a", "10:00:00", page="/x\0y", props='{"k": "/x\\u0000y"}'),
            row(website["id"], "b", "11:00:00", page="/y", props="{}"),
        ]
    )
    value = {"matches": "^/x\0", "is": "/x", "is_not": "/x\0y"}.get(operator, "\0")
    query = {
        "site_id": website["id"],
        "metrics": ["visitors"],
        "date_range": ["2026-11-23", "2026-11-23"],
    }
    for dimension in ("event:page", "event:props:k"):
        body = {**query, "filters": [[operator, dimension, [value]]]}
        reply = analytics.post("/api/v1/query", json_body=body)
        assert reply.status == 200, (dimension, reply.body)
        assert reply.body["results"] == [{"dimensions": [], "metrics": [visitors]}], dimension
    made = analytics.post(
        f"/api/v1/websites/{website['id']}/goals", json_body={"page_path": "/x\0y"}
    )
    assert made.status == 201, made.body
    goal = made.body["data"]["display_name"]
    body = {**query, "filters": [["is", "event:goal", [goal]]]}
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 200, reply.body
    assert reply.body["results"] == [{"dimensions": [], "metrics": [1]}]


def test_without_a_key_401(analytics, store):
    reply = analytics.post("/api/v1/query", json_body={}, key=None)
    assert reply.status == 401


def test_other_methods_are_405(analytics, store):
    reply = analytics.get("/api/v1/query")
    assert reply.status == 405
    assert reply.headers["Allow"] == "POST"


def test_an_empty_time_zone_is_the_website_s(analytics, store):
    """`"timezone": ""`, which the document allows, is no time zone: the website's."""
    website = create_website(analytics)
    changed = analytics.put(f"/api/v1/websites/{website['id']}", {"timezone": "Europe/Berlin"})
    assert changed.status == 200, changed.body
    body = {"site_id": website["id"], "metrics": ["visitors"], "date_range": "7d", "timezone": ""}
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 200, reply.body
    assert reply.body["query"]["timezone"] == "Europe/Berlin"
