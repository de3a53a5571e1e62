"""Traffic where it helps: when the account tracks the audited host with Sitelens
analytics (a website of the account whose domain is the host, `www.` or not), each issue
of a run, and each page it lists, carries the pageviews of the last `DAYS` days, so that
issues can be sorted by the traffic they touch. Read once a run, when it is analysed, from
the website's `page` statistic (path and query, as the tracker counts a page)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from sitelens.analytics.stats import summed
from sitelens.core import clock, hosts
from sitelens.data import websites as stored_websites

DAYS = 30  # the pageviews of the last 30 whole days (UTC), today left out


def of_site(account: str, start_url: str) -> Counter[str] | None:
    """Pageviews by page (path and query) of the account's website for the audited host,
    or None when the account does not track it."""
    try:
        site = hosts.site(urlsplit(start_url).hostname or "")
    except ValueError:
        return None
    for website in stored_websites.of_account(account):
        if hosts.site(website["domain"]) == site:
            last = clock.now().date() - timedelta(days=1)
            views, _ = summed(int(website["id"]), "page", last - timedelta(days=DAYS - 1), last)
            return views
    return None


def page_of(url: str) -> str:
    """A crawled URL as the tracker counts its page: path and query."""
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def annotate(issues: list[dict[str, Any]], views: Counter[str]) -> None:
    """Give each issue, and each page it lists, its pageviews (an issue's: the sum over
    the pages it lists)."""
    for issue in issues:
        for listed in issue["pages"]:
            listed["pageviews"] = views.get(page_of(listed["url"]), 0)
        issue["pageviews"] = sum(listed["pageviews"] for listed in issue["pages"])
