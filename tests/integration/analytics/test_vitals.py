"""Core Web Vitals (issue 24, part 5) as the server sees them: an engagement carries LCP,
INP, CLS, FCP and TTFB (checked, stored with the page view's device and country), and the
query API answers p75_* and each vital's good / needs improvement / poor shares by page,
device, country and time, by Google's thresholds."""

from __future__ import annotations

import pytest
import sqlglot

from sitelens.analytics.warehouse import query, summaries, vitals
from tests.integration.analytics.test_properties import DAY, NOW, stored
from tests.integration.test_tracking import create_website, hit, queued

pytest.importorskip("duckdb")


def test_an_engagement_carries_vitals(analytics):
    create_website(analytics)
    form = {
        "page": "https://example.com/post",
        "engagement_ms": "5000",
        "lcp": "2300.4",
        "inp": "120",
        "cls": "0.1234",
        "fcp": "900",
        "ttfb": "150",
    }
    assert hit(analytics, form).status == 202
    [sent] = queued()
    assert sent["vitals"] == {"lcp": 2300, "inp": 120, "cls": 123, "fcp": 900, "ttfb": 150}
    assert sent["device"] == "desktop"


@pytest.mark.parametrize(
    ("name", "value"),
    [("lcp", "-1"), ("lcp", "600001"), ("inp", "slow"), ("cls", "101"), ("ttfb", "nan")],
)
def test_a_vital_beyond_its_bound_is_422(analytics, name, value):
    create_website(analytics)
    form = {"page": "https://example.com/", "engagement_ms": "5000", name: value}
    reply = hit(analytics, form)
    assert reply.status == 422
    assert list(reply.body["message"]) == [name]
    assert queued() == []


def measured(site: int, visitor: str, page: str, device: str, **values: int) -> dict:
    return stored(
        site,
        visitor,
        "10:01:00",
        page=page,
        engaged_ms=1000,
        vitals=values,
        device=device,
        country="DE",
    )


def test_p75_and_shares_by_page_and_device(analytics, store):
    site = create_website(analytics)["id"]
    store.write(
        [
            measured(site, "a", "/", "desktop", lcp=1000, cls=50, inp=100),
            measured(site, "b", "/", "desktop", lcp=2000, cls=150, inp=300),
            measured(site, "c", "/", "mobile", lcp=3000, cls=300, inp=600),
            measured(site, "d", "/", "mobile", lcp=5000, cls=0),  # no interaction: no INP
            measured(site, "e", "/post", "mobile", lcp=2600),
            stored(site, "f", "10:00:00", page="/"),  # a pageview measures nothing
        ]
    )
    body = {
        "site_id": site,
        "metrics": [
            "p75_lcp",
            "p75_cls",
            "p75_inp",
            "lcp_good",
            "lcp_needs_improvement",
            "lcp_poor",
        ],
        "date_range": [DAY, DAY],
        "dimensions": ["event:page"],
    }
    reply = analytics.post("/api/v1/query", json_body=body)
    assert reply.status == 200, reply.body
    assert reply.body["results"] == [
        # LCP 1000, 2000, 3000, 5000: p75 3500 (DuckDB's exact, interpolated)
        {"dimensions": ["/"], "metrics": [3500, 0.188, 450, 50.0, 25.0, 25.0]},
        {"dimensions": ["/post"], "metrics": [2600, 0, 0, 0.0, 100.0, 0.0]},
    ]
    by_device = {**body, "metrics": ["p75_lcp"], "dimensions": ["visit:device"]}
    by_device["filters"] = [["is", "event:page", ["/"]]]
    reply = analytics.post("/api/v1/query", json_body=by_device)
    assert reply.body["results"] == [
        {"dimensions": ["Mobile"], "metrics": [4500]},
        {"dimensions": ["Desktop"], "metrics": [1750]},
    ]


@pytest.mark.parametrize(
    "asked",
    [
        {"metrics": ["p75_lcp", "visitors"]},
        {"metrics": ["p75_lcp"], "dimensions": ["visit:source"]},
        {"metrics": ["lcp_good"], "filters": [["is", "event:name", ["signup"]]]},
    ],
)
def test_vitals_outside_their_terms_are_422(analytics, store, asked):
    site = create_website(analytics)["id"]
    reply = analytics.post(
        "/api/v1/query", json_body={"site_id": site, "date_range": "7d", **asked}
    )
    assert reply.status == 422


def test_vitals_read_raw_rows_and_render_for_athena():
    body = {
        "site_id": 1,
        "metrics": ["p75_lcp", "p75_cls", "inp_poor"],
        "date_range": [DAY, DAY],
        "dimensions": ["visit:country", "time:day"],
    }
    parsed = query.parse(body, NOW)
    assert summaries.plan(parsed) is None
    athena = vitals.statement(parsed, "athena", ())
    assert "APPROX_PERCENTILE" in athena
    sqlglot.parse_one(athena, read="athena")
