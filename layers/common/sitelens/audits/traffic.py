"""Traffic where it helps: when the account tracks the audited host with Sitelens
analytics (a website of the account whose domain is the host, `www.` or not), each issue
of a run, and each page it lists, carries the pageviews of the last `DAYS` days, so that
issues can be sorted by the traffic they touch. Read once a run, when it is analysed, from
the website's `page` statistic (path and query, as the tracker counts a page).

When that website is connected to Search Console, each crawled page also carries its
clicks, impressions and top queries of the last 28 days (`search`: one query API question
a run, `search_of_site`; docs/search-console.md).

Each crawled page of such a run also carries its real visits' Core Web Vitals of the last
28 days where enough page views measured them (`field_vitals`, as a report's field data
shows them: `reports.field`), read by one grouped warehouse question a run (`field_of_site`).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from sitelens.analytics.hits import counted_page
from sitelens.analytics.searchconsole import pages as search_pages
from sitelens.analytics.stats import summed
from sitelens.core import clock, metrics
from sitelens.data import frontier
from sitelens.reports import field

logger = logging.getLogger(__name__)

DAYS = 30  # the pageviews of the last 30 whole days (UTC), today left out


def of_site(account: str, start_url: str) -> Counter[str] | None:
    """Pageviews by page (path and query) of the account's website for the audited host,
    or None when the account does not track it (the website as a report finds it:
    `reports.field.website_of`)."""
    website = field.website_of(account, start_url)
    if website is None:
        return None
    last = clock.now().date() - timedelta(days=1)
    views, _ = summed(int(website["id"]), "page", last - timedelta(days=DAYS - 1), last)
    return views


def page_of(url: str) -> str:
    """A crawled URL as the tracker counts its page (`hits.counted_page`)."""
    return counted_page(urlsplit(url), None)


def annotate(issues: list[dict[str, Any]], views: Counter[str]) -> None:
    """Give each issue, and each page it lists, its pageviews (an issue's: the sum over
    the pages it lists)."""
    for issue in issues:
        for listed in issue["pages"]:
            listed["pageviews"] = views.get(page_of(listed["url"]), 0)
        issue["pageviews"] = sum(listed["pageviews"] for listed in issue["pages"])


def field_of_site(account: str, start_url: str) -> dict[str, dict[str, Any]] | None:
    """The field vitals by page (path and query) of the account's website for the audited
    host (`reports.field.by_page`: one warehouse question); None when the account does not
    track it, or when the warehouse fails (the run is finished without them, and counted)."""
    website = field.website_of(account, start_url)
    if website is None:
        return None
    try:
        return field.by_page(account, website)
    except Exception as error:  # a run is never lost to its field data
        logger.warning("field vitals of website %s failed: %r", website["id"], error)
        metrics.count("FieldDataUnavailable", reason="error")
        return None


def search_of_site(account: str, start_url: str) -> dict[str, Any] | None:
    """Clicks, impressions and top queries by page (path) of the account's website for the
    audited host; None when it is untracked or not connected, or when the warehouse fails
    (the run is finished without them, and counted)."""
    website = field.website_of(account, start_url)
    if website is None:
        return None
    try:
        return search_pages.by_page(account, int(website["id"]))
    except Exception as error:  # a run is never lost to its search data
        logger.warning("search data of website %s failed: %r", website["id"], error)
        metrics.count("FieldDataUnavailable", reason="search")
        return None


def save_search(crawl: str, pages: Iterable[dict[str, Any]], search: dict[str, Any]) -> int:
    """Give each crawled page of the run that Search Console knows its `search` (one write
    each); how many were given it."""
    given = 0
    for page in pages:
        found = None if page.get("external") else search.get(urlsplit(page["url"]).path or "/")
        if found:
            frontier.save_page(crawl, page["url"], {"search": {"days": search_pages.DAYS, **found}})
            given += 1
    return given


def save_field(crawl: str, pages: Iterable[dict[str, Any]], vitals: dict[str, Any]) -> int:
    """Give each crawled page of the run that has field vitals its `field_vitals` (one
    write each, at most `field.MAX_PAGES`); how many were given them."""
    given = 0
    for page in pages:
        found = None if page.get("external") else vitals.get(page_of(page["url"]))
        if found:
            frontier.save_page(crawl, page["url"], {"field_vitals": found})
            given += 1
    return given


MAX_FIELD_LISTED = 10  # pages a run's field summary lists, the worst first
_RANK = {"poor": 2, "needs_improvement": 1}


def field_summary(pages: Iterable[dict[str, Any]], vitals: dict[str, Any]) -> dict[str, Any]:
    """A run's field vitals in brief, as its document shows them: how many of its pages
    were measured, how many of those each vital rates good, needs improvement or poor, and
    the `MAX_FIELD_LISTED` pages rated worst (most poor vitals, then LCP), with their p75s."""
    measured = []
    for page in pages:
        found = None if page.get("external") else vitals.get(page_of(page["url"]))
        if found:
            measured.append((page["url"], found))
    ratings = {name: {"good": 0, "needs_improvement": 0, "poor": 0} for name in field.JUDGED}
    for _, found in measured:
        for name in field.JUDGED:
            rating = (found.get(name) or {}).get("rating")
            if rating in ratings[name]:
                ratings[name][rating] += 1

    def badness(entry: tuple[str, dict[str, Any]]) -> tuple[int, float]:
        shown = entry[1]
        worst = sum(_RANK.get((shown.get(n) or {}).get("rating") or "", 0) for n in field.JUDGED)
        return worst, float((shown.get("lcp") or {}).get("p75") or 0)

    listed = sorted(measured, key=badness, reverse=True)[:MAX_FIELD_LISTED]
    return {
        "days": field.DAYS,
        "pages": len(measured),
        "ratings": ratings,
        "worst": [
            {"url": url, **{n: (shown.get(n) or {}).get("p75") for n in field.JUDGED}}
            | {f"{n}_rating": (shown.get(n) or {}).get("rating") for n in field.JUDGED}
            for url, shown in listed
        ],
    }
