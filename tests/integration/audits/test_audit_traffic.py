"""Traffic where it helps (issue 23, part 5): when the account tracks the audited host
with Sitelens analytics, each issue and each page it lists carries the page's pageviews
of the last 30 days; without such a website, `pageviews` is null."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sitelens.analytics.hit import Hit
from tests.fixtures.analytics import hit_record, run
from tests.integration.audits.test_audits import audit, audit_site, crawlable, drain

__all__ = ["audit_site", "crawlable"]  # fixtures this module uses


def count_views(account_id: str, website_id: int, views: dict[str, int], when: datetime) -> None:
    """`views[page]` pageviews of `page` on the day of `when`, counted as the aggregator does."""
    hits = [
        Hit(website_id=website_id, at=when, page=page, visit=True, country="DE")
        for page, count in views.items()
        for _ in range(count)
    ]
    batch = [hit_record(hit, account_id, n) for n, hit in enumerate(hits)]
    assert run("HitsQueue", batch) == {"batchItemFailures": []}


def test_issues_carry_the_pageviews_of_their_pages(seo, analytics, account, audit_site, crawlable):
    site = analytics.post("/api/v1/websites", {"domain": "127.0.0.1"}).data
    yesterday = datetime.now(UTC) - timedelta(days=1)
    count_views(account.id, site["id"], {"/": 7, "/canon-src": 3, "/dup1": 2}, yesterday)
    count_views(account.id, site["id"], {"/": 100}, yesterday - timedelta(days=40))  # too old
    created = audit(seo, audit_site)
    drain()
    issues = {i["code"]: i for i in seo.get(f"/api/v1/audits/{created['id']}/issues").data}
    broken = issues["broken_internal_link"]
    assert broken["pageviews"] == 10
    assert {p["url"].removeprefix(audit_site.base): p["pageviews"] for p in broken["pages"]} == {
        "/": 7,
        "/canon-src": 3,
    }
    assert issues["duplicate_title"]["pageviews"] == 2
    assert issues["redirect_loop"]["pageviews"] == 0


def test_without_the_host_s_website_pageviews_are_null(seo, audit_site, crawlable):
    created = audit(seo, audit_site)
    drain()
    issues = seo.get(f"/api/v1/audits/{created['id']}/issues").data
    assert issues and all(i["pageviews"] is None for i in issues)
    assert all("pageviews" not in p for i in issues for p in i["pages"])
