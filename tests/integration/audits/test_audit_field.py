"""Field vitals per audit page (issue 24, part 6): when the account tracks the audited
host, each crawled page that real visits measured often enough carries its Core Web
Vitals of the last 28 days (`field_vitals`, as a report's), read by one grouped warehouse
question a run; other pages, untracked hosts and a failing warehouse give null."""

from __future__ import annotations

from typing import Any

import pytest

from sitelens.analytics.warehouse import vitals
from tests.integration.audits.test_audits import audit, audit_site, crawlable, drain
from tests.integration.seo.test_report_field_data import row
from tests.integration.test_openapi import problems, schema_of

__all__ = ["audit_site", "crawlable"]  # fixtures this module uses

pytest.importorskip("duckdb")


VALUES = {"lcp": 1000, "cls": 300}


def measured(site: int, page: str, count: int) -> list[dict[str, Any]]:
    """`count` page views of `page` measuring LCP 1,000 ms and CLS 0.3 each."""
    return [
        row(site, f"v{n}", n, page=page, visit=False, engaged_ms=5000, vitals=VALUES)
        for n in range(count)
    ]


def pages_of(seo, created: dict[str, Any]) -> dict[str, Any]:
    reply = seo.get(f"/api/v1/audits/{created['id']}/pages", query={"per_page": 100})
    assert reply.status == 200, reply.body
    assert problems("SeoApi", schema_of("SeoApi", "AuditPageList"), reply.body) == []
    return {page["url"]: page["field_vitals"] for page in reply.data}


def test_measured_pages_carry_their_field_vitals(
    seo, analytics, audit_site, crawlable, store, monkeypatch
):
    site = analytics.post("/api/v1/websites", {"domain": "127.0.0.1"}).data["id"]
    store.write([*measured(site, "/", 50), *measured(site, "/canon-src", 10)])
    asked: list[str] = []
    real = vitals.rows

    def counted(query):
        asked.append(query.dimensions)
        return real(query)

    monkeypatch.setattr(vitals, "rows", counted)
    created = audit(seo, audit_site)
    drain()
    assert asked == [("event:page",)]  # one grouped question for the run
    found = pages_of(seo, created)
    home = found.pop(audit_site.url("/"))
    assert home["lcp"] == {
        "samples": 50,
        "p75": 1000,
        "rating": "good",
        "good": 100.0,
        "needs_improvement": 0.0,
        "poor": 0.0,
    }
    assert (home["cls"]["p75"], home["cls"]["rating"]) == (0.3, "poor")
    assert home["inp"]["samples"] == 0 and home["inp"]["p75"] is None
    # /canon-src had 10 page views measured: under the minimum, as every other page
    assert found and all(vitals_ is None for vitals_ in found.values())


def test_without_the_host_s_website_or_warehouse_pages_have_none(
    seo, other_analytics, other_seo, audit_site, crawlable, store, monkeypatch
):
    theirs = other_analytics.post("/api/v1/websites", {"domain": "127.0.0.1"}).data["id"]
    store.write(measured(theirs, "/", 50))
    created = audit(seo, audit_site)
    drain()
    assert all(v is None for v in pages_of(seo, created).values())  # another account's

    def broken(sql: str) -> Any:
        raise RuntimeError("Athena is down")

    # the website's own account, whose warehouse now fails: the run finishes without them
    monkeypatch.setattr("sitelens.data.warehouse.run", broken)
    created = audit(other_seo, audit_site)
    drain()
    found = pages_of(other_seo, created)
    assert found and all(v is None for v in found.values())
