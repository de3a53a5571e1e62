"""Automatic events (issue 24, part 4) as the server sees them: outbound clicks, file
downloads and 404s arrive as custom events of Plausible's names with their `url` or `path`
property, and scroll depth with each engagement (`scroll_depth`, 0 to 100), asked as the
`scroll_depth` metric with `event:page` (the mean over visitor-page pairs of each pair's
deepest)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
import sqlglot

from sitelens.analytics.hit import Hit
from sitelens.analytics.warehouse import query, rows, scroll, summaries
from tests.integration.analytics.test_properties import DAY, NOW, stored
from tests.integration.test_tracking import create_website, hit, queued

pytest.importorskip("duckdb")


def test_an_engagement_carries_its_scroll_depth(analytics):
    create_website(analytics)
    page = "https://example.com/post"
    assert (
        hit(analytics, {"page": page, "engagement_ms": "5000", "scroll_depth": "75"}).status == 202
    )
    assert (
        hit(analytics, json_body={"page": page, "engagement_ms": 10, "scroll_depth": 100}).status
        == 202
    )
    assert [sent["scroll_depth"] for sent in queued()] == [75, 100]


@pytest.mark.parametrize("depth", ["101", "-1", "half", "7.5", ""])
def test_a_scroll_depth_that_is_no_percent_is_422(analytics, depth):
    create_website(analytics)
    form = {"page": "https://example.com/", "engagement_ms": "5000", "scroll_depth": depth}
    reply = hit(analytics, form)
    assert reply.status == 422
    assert list(reply.body["message"]) == ["scroll_depth"]
    assert queued() == []


def engagement(site: int, visitor: str, at: str, page: str, depth: int | None) -> dict:
    return stored(site, visitor, at, page=page, engaged_ms=1000, scroll_depth=depth)


def test_scroll_depth_and_automatic_events_as_queried(analytics, store):
    site = create_website(analytics)["id"]
    store.write(
        [
            stored(site, "a", "10:00:00", page="/post"),
            engagement(site, "a", "10:01:00", "/post", 40),
            engagement(site, "a", "10:02:00", "/post", 90),  # a's deepest on /post: 90
            stored(site, "b", "10:00:00", page="/post"),
            engagement(site, "b", "10:01:00", "/post", 50),
            stored(site, "c", "10:00:00", page="/post"),  # left before any engagement
            stored(site, "c", "10:05:00", page="/about"),
            engagement(site, "c", "10:06:00", "/about", None),  # the page did not opt in
            stored(
                site,
                "a",
                "10:03:00",
                page="/post",
                event_parts=("Outbound Link: Click", "", ""),
                props='{"url":"https://elsewhere.example/"}',
            ),
            stored(
                site,
                "b",
                "10:03:00",
                page="/post",
                event_parts=("File Download", "", ""),
                props='{"url":"https://example.com/guide.pdf"}',
            ),
            stored(
                site,
                "d",
                "10:00:00",
                page="/gone",
                event_parts=("404", "", ""),
                props='{"path":"/gone"}',
            ),
        ]
    )
    body = {
        "site_id": site,
        "metrics": ["visitors", "pageviews", "scroll_depth"],
        "date_range": [DAY, DAY],
        "dimensions": ["event:page"],
    }
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 200, reply.body
    assert reply.body["results"] == [
        {"dimensions": ["/post"], "metrics": [3, 3, 70]},  # (90 + 50) / 2
        {"dimensions": ["/about"], "metrics": [1, 1, 0]},  # none measured
        {"dimensions": ["/gone"], "metrics": [1, 0, 0]},
    ]
    events = {
        "site_id": site,
        "metrics": ["visitors", "events"],
        "date_range": [DAY, DAY],
        "dimensions": ["event:name", "event:props:url"],
        "filters": [["is", "event:name", ["Outbound Link: Click", "File Download"]]],
    }
    reply = analytics.post("/api/v1/query", json_body=events)
    assert reply.status == 200, reply.body
    assert reply.body["results"] == [
        {"dimensions": ["File Download", "https://example.com/guide.pdf"], "metrics": [1, 1]},
        {"dimensions": ["Outbound Link: Click", "https://elsewhere.example/"], "metrics": [1, 1]},
    ]


def test_a_page_read_across_midnight_utc_in_new_york_keeps_its_depth(analytics, store):
    """A visitor hash lives a day of the website's zone: New York's evening spans midnight
    UTC, where the warehouse's days end, and a page read from 18:59 to 19:01 there is one
    visitor-page pair with its depth."""
    site = create_website(analytics, timezone="America/New_York")["id"]

    def row_at(moment: str, **fields: Any) -> dict[str, Any]:
        made = Hit(site, datetime.fromisoformat(moment), "/post", True, visitor="n", **fields)
        found = rows.row(made, hit_id=moment)
        assert found is not None
        return found

    store.write(
        [
            row_at("2026-11-23T23:59:00+00:00"),
            row_at("2026-11-24T00:01:00+00:00", engaged_ms=120_000, scroll_depth=80),
        ]
    )
    body = {
        "site_id": site,
        "metrics": ["visitors", "pageviews", "scroll_depth"],
        "date_range": ["2026-11-23", "2026-11-23"],
        "dimensions": ["event:page"],
    }
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 200, reply.body
    assert reply.body["results"] == [{"dimensions": ["/post"], "metrics": [1, 1, 80]}]


@pytest.mark.parametrize(
    "asked",
    [
        {"dimensions": ["visit:source"]},  # no event:page
        {"dimensions": ["event:page"], "metrics": ["scroll_depth", "visits"]},
        {"dimensions": ["event:page", "visit:country"]},
    ],
)
def test_scroll_depth_outside_its_terms_is_422(analytics, store, asked):
    site = create_website(analytics)["id"]
    body = {"site_id": site, "metrics": ["scroll_depth"], "date_range": "7d", **asked}
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 422
    assert list(reply.body["message"]) == ["metrics"]


def test_scroll_depth_reads_raw_rows_and_renders_for_athena():
    body = {
        "site_id": 1,
        "metrics": ["scroll_depth"],
        "date_range": [DAY, DAY],
        "filters": [["is", "event:page", ["/post"]]],
    }
    parsed = query.parse(body, NOW)
    assert summaries.plan(parsed) is None
    sqlglot.parse_one(scroll.statement(parsed, "athena", ()), read="athena")
