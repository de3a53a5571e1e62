"""Audit pages and reports of a connected host carry their Search Console clicks,
impressions and top queries (`search`), matched on the page's path; a host not connected
carries none."""

from __future__ import annotations

from typing import Any

import pytest

from sitelens.local import google
from tests.integration.audits.test_audits import audit, audit_site, crawlable, drain
from tests.integration.searchconsole.conftest import run_tasks
from tests.integration.searchconsole.test_connections import DAYS
from tests.integration.searchconsole.test_query import served
from tests.integration.test_openapi import problems, schema_of

__all__ = ["audit_site", "crawlable", "served"]  # fixtures this module uses

pytest.importorskip("duckdb")


def connect(analytics: Any, gsc: Any, origin: str) -> str:
    """The account's website for the fixture site's host, connected to its URL-prefix
    property and imported; the property."""
    website_id = analytics.post("/api/v1/websites", {"domain": "127.0.0.1"}).data["id"]
    site_property = origin.rstrip("/") + "/"
    form = {"property": site_property, "refresh_token": gsc.stub.refresh_token(site_property)}
    reply = analytics.put(f"/api/v1/websites/{website_id}/search-console", form)
    assert reply.status == 200, reply.body
    run_tasks()
    return site_property


def expected(site_property: str, path: str) -> dict[str, Any]:
    rows = [
        row
        for day in DAYS
        for row in google.known_rows(site_property, day, 40)
        if row[1].split("://", 1)[1].partition("/")[2] == path.lstrip("/")
    ]
    by_query: dict[str, list[int]] = {}
    for row in rows:
        sums = by_query.setdefault(row[2], [0, 0])
        sums[0] += row[5]
        sums[1] += row[6]
    top = sorted(by_query.items(), key=lambda item: (-item[1][0], item[0]))[:5]
    return {
        "days": 28,
        "clicks": sum(row[5] for row in rows),
        "impressions": sum(row[6] for row in rows),
        "top_clicks": [clicks for _, (clicks, _) in top],
    }


def test_audit_pages_of_a_connected_host_carry_their_search(
    seo, analytics, audit_site, crawlable, served, gsc
):
    site_property = connect(analytics, gsc, audit_site.url("/"))
    created = audit(seo, audit_site)
    drain()
    reply = seo.get(f"/api/v1/audits/{created['id']}/pages", query={"per_page": 100})
    assert reply.status == 200, reply.body
    assert problems("SeoApi", schema_of("SeoApi", "AuditPageList"), reply.body) == []
    found = {page["url"]: page["search"] for page in reply.data}
    home = found.pop(audit_site.url("/"))
    want = expected(site_property, "/")
    assert (home["days"], home["clicks"], home["impressions"]) == (
        want["days"],
        want["clicks"],
        want["impressions"],
    )
    assert [q["clicks"] for q in home["top_queries"]] == want["top_clicks"]
    # the fixture site's other pages are none Google knows (its rows are /p<n> and /)
    assert all(search is None for url, search in found.items() if "/p" not in url)


def test_a_report_of_a_connected_host_carries_its_search(
    seo, analytics, site, crawlable, served, gsc
):
    site_property = connect(analytics, gsc, site.url("/"))
    reply = seo.post("/api/v1/reports", {"url": site.url("/")})
    assert reply.status == 201, reply.body
    data = reply.data["field_data"]
    want = expected(site_property, "/")
    assert data["search"]["clicks"] == want["clicks"] and data["search"]["days"] == 28
    assert [q["clicks"] for q in data["search"]["top_queries"]] == want["top_clicks"]
    assert problems("SeoApi", schema_of("SeoApi", "Report"), reply.data) == []


def test_a_report_of_a_host_not_connected_carries_none(
    seo, analytics, site, crawlable, served, gsc
):
    analytics.post("/api/v1/websites", {"domain": "127.0.0.1"})
    reply = seo.post("/api/v1/reports", {"url": site.url("/")})
    assert reply.status == 201 and reply.data["field_data"]["search"] is None
