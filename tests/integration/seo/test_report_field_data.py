"""Reports joined with field data (issue 24, part 6): a report of a page whose host the
account tracks carries the last 28 days of its real visits' Core Web Vitals (p75, shares,
sample size) and its pageviews, visitors and bounce rate, stored with the report; its
performance checks judge LCP, INP and CLS by them past the minimum sample. An untracked
host, a key limited to another website and a failing warehouse give none, and say so."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sitelens.analytics.hit import Hit
from sitelens.analytics.warehouse import rows
from sitelens.reports import field
from tests.conftest import Client
from tests.integration.keys.test_scopes import key_of
from tests.integration.test_openapi import problems, schema_of
from tests.integration.test_reports import private_urls

__all__ = ["private_urls"]  # fixtures, used by name

pytest.importorskip("duckdb")

PAGE = "/good"


def row(site: int, visitor: str, minute: int, **fields: Any) -> dict[str, Any]:
    """A warehouse row as the aggregator writes it, yesterday (inside the 28 days)."""
    at = datetime.now(UTC).replace(hour=10, minute=0, microsecond=0) - timedelta(days=1)
    made = Hit(
        website_id=site,
        at=at + timedelta(seconds=minute),
        page=fields.pop("page", PAGE),
        visit=fields.pop("visit", True),
        visitor=visitor,
        id=f"{visitor}-{minute}-{fields.get('engaged_ms', 0)}",
        **fields,
    )
    found = rows.row(made)
    assert found is not None
    return found


def seeded(site: int, inp_samples: int = 10) -> list[dict[str, Any]]:
    """50 page views of PAGE measuring LCP 100, 200 ... 5,000 ms and CLS 0, 0.004 ...
    0.196; the first `inp_samples` also INP; a visitor who goes on to /other; 40 days ago, a
    page view that is too old."""
    found = []
    for n in range(50):
        visitor = f"v{n}"
        found.append(row(site, visitor, n))
        values = {"lcp": (n + 1) * 100, "cls": n * 4}
        if n < inp_samples:
            values["inp"] = 300
        found.append(row(site, visitor, n, visit=False, engaged_ms=5000, vitals=values))
    found.append(row(site, "v0", 100, visit=False, page="/other"))
    old = row(site, "old", 0)
    old["ts"] = old["ts"] - timedelta(days=40)
    old["day"] = old["ts"].strftime("%Y-%m-%d")
    found.append(old)
    return found


@pytest.fixture
def tracked(analytics, seo, private_urls, store, site) -> dict[str, Any]:
    website = analytics.post("/api/v1/websites", {"domain": "127.0.0.1"}).data
    store.write(seeded(website["id"]))
    return website


def create(seo: Client, url: str) -> dict[str, Any]:
    reply = seo.post("/api/v1/reports", {"url": url})
    assert reply.status == 201, reply.body
    return reply.data


def test_a_tracked_page_carries_its_vitals_and_traffic(seo, analytics, site, tracked):
    report = create(seo, site.url(PAGE))
    data = report["field_data"]
    assert data["status"] == "measured"
    assert (data["website_id"], data["page"], data["days"]) == (tracked["id"], PAGE, 28)
    assert data["min_samples"] == field.MIN_SAMPLES == 50
    # LCP 100..5,000: p75 at 36.75 of 49 -> 3,700 + 0.75 x 100 (DuckDB's exact p75)
    assert data["vitals"]["lcp"] == {
        "samples": 50,
        "p75": 3775,
        "rating": "needs_improvement",
        "good": 50.0,
        "needs_improvement": 30.0,
        "poor": 20.0,
    }
    # CLS 0..0.196 by 0.004: p75 0.147; good up to 0.1 (26 of 50)
    assert data["vitals"]["cls"] == {
        "samples": 50,
        "p75": 0.147,
        "rating": "needs_improvement",
        "good": 52.0,
        "needs_improvement": 48.0,
        "poor": 0.0,
    }
    few = dict.fromkeys(("p75", "rating", "good", "needs_improvement", "poor"))
    assert data["vitals"]["inp"] == {"samples": 10, **few}  # under the minimum: not shown
    assert data["vitals"]["fcp"] == data["vitals"]["ttfb"] == {"samples": 0, **few}
    assert "INP, FCP, TTFB" in data["note"] and "fewer than 50" in data["note"]
    # the traffic is the query API's for the same page and days
    asked = {
        "site_id": tracked["id"],
        "metrics": ["pageviews", "visitors", "bounce_rate"],
        "date_range": data["period"],
        "filters": [["is", "event:page", [PAGE]]],
    }
    [answer] = analytics.post("/api/v1/query", json_body=asked).body["results"]
    assert data["traffic"] == dict(zip(["pageviews", "visitors", "bounce_rate"], answer["metrics"]))
    assert data["traffic"]["pageviews"] == 50 and data["traffic"]["visitors"] == 50
    # a snapshot: read back without a warehouse query, the same; as the contract says
    assert seo.get(f"/api/v1/reports/{report['id']}").data["field_data"] == data
    assert problems("SeoApi", schema_of("SeoApi", "Report"), report) == []


def test_the_performance_checks_judge_by_field_data_past_the_minimum(seo, site, tracked):
    results = create(seo, site.url(PAGE))["results"]
    load = results["load_time"]
    assert (load["passed"], load["value"], load["source"]) == (False, 3.77, "field")
    assert "field data: 50 page views over 28 days" in load["errors"]["needs_improvement"]
    assert "aim for 2.5 s or less" in load["errors"]["needs_improvement"]
    assert load["learn_more"] == "https://web.dev/articles/lcp"  # the LCP's fix, not the fetch's
    cls = results["cumulative_layout_shift"]
    assert (cls["passed"], cls["value"], cls["source"]) == (False, 0.147, "field")
    assert cls["fix"] and cls["learn_more"] == "https://web.dev/articles/cls"
    # INP had 10 samples: no verdict from it; the lab checks say nothing of their source
    assert "interaction_to_next_paint" not in results
    assert "source" not in results["page_size"]


def test_enough_inp_samples_bring_its_check(seo, analytics, site, private_urls, store):
    website = analytics.post("/api/v1/websites", {"domain": "127.0.0.1"}).data
    store.write(seeded(website["id"], inp_samples=50))
    results = create(seo, site.url(PAGE))["results"]
    inp = results["interaction_to_next_paint"]
    assert (inp["passed"], inp["value"], inp["source"]) == (False, 300, "field")
    assert "INP" in inp["errors"]["needs_improvement"]
    assert problems("SeoApi", schema_of("SeoApi", "ReportResults"), results) == []


def untracked_as_today(report: dict[str, Any]) -> None:
    assert problems("SeoApi", schema_of("SeoApi", "Report"), report) == []
    data = report["field_data"]
    assert data["status"] == "untracked" and data["traffic"] is None and data["vitals"] is None
    assert data["website_id"] is None and "tracks the host" in data["note"]
    assert "source" not in report["results"]["load_time"]
    assert "cumulative_layout_shift" not in report["results"]


def test_an_untracked_host_has_no_field_data(seo, site, private_urls, store):
    untracked_as_today(create(seo, site.url(PAGE)))


def test_another_account_s_website_is_not_this_account_s_field_data(
    other_analytics, seo, site, private_urls, store
):
    theirs = other_analytics.post("/api/v1/websites", {"domain": "127.0.0.1"}).data
    store.write(seeded(theirs["id"]))
    untracked_as_today(create(seo, site.url(PAGE)))


def test_a_key_limited_to_another_website_sees_no_field_data(analytics, site, tracked):
    other = analytics.post("/api/v1/websites", {"domain": "other.example"}).data
    key = key_of(analytics, access="write", websites=str(other["id"]), projects="127.0.0.1")
    untracked_as_today(create(Client("SeoApi", key), site.url(PAGE)))
    # limited to the tracking website, the same key shape sees it
    key = key_of(analytics, access="write", websites=str(tracked["id"]), projects="127.0.0.1")
    assert create(Client("SeoApi", key), site.url(PAGE))["field_data"]["status"] == "measured"


def test_a_failing_warehouse_never_fails_the_report(seo, site, tracked, monkeypatch):
    def broken(sql: str) -> Any:
        raise RuntimeError("Athena is down")

    monkeypatch.setattr("sitelens.data.warehouse.run", broken)
    report = create(seo, site.url(PAGE))
    data = report["field_data"]
    assert (data["status"], data["traffic"], data["vitals"]) == ("unavailable", None, None)
    assert data["website_id"] == tracked["id"]
    assert "source" not in report["results"]["load_time"]  # judged as without field data


def test_a_late_warehouse_is_not_waited_for(seo, site, tracked, monkeypatch):
    monkeypatch.setattr(field, "FIELD_SECONDS", 0.0)
    data = create(seo, site.url(PAGE))["field_data"]
    assert data["status"] == "unavailable"


def test_the_share_page_shows_field_data(seo, site, tracked):
    report = create(seo, site.url(PAGE))
    share = report["share_url"].split("/share/reports/", 1)[1]
    page = Client("SeoApi", None).get(f"/share/reports/{share}").body
    assert 'id="field-data"' in page
    assert "3,775 ms" in page and "Needs improvement" in page and "50 page views" in page
    assert "Too few page views" in page  # INP


def test_the_share_page_says_when_the_host_is_untracked(seo, site, private_urls, store):
    report = create(seo, site.url(PAGE))
    share = report["share_url"].split("/share/reports/", 1)[1]
    page = Client("SeoApi", None).get(f"/share/reports/{share}").body
    assert "No website of this account" in page
