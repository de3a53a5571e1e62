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
        {"dimensions": [""], "metrics": [1, 1, 1, 100.0]},
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
