"""Search Console beside audits and reports: a connected website's clicks, impressions and
top queries by page (the path of Search Console's page URL, as `event:page` joins it), of
the last `DAYS` days, read with one query API question (docs/search-console.md)."""

from __future__ import annotations

from typing import Any, Final

from sitelens.analytics import queries
from sitelens.data import search_console as stored

DAYS: Final = 28  # as a report's field data
TOP_QUERIES: Final = 5  # queries shown a page, the most clicked first
MAX_ROWS: Final = 10_000  # (page, query) pairs read, the most clicked first


def connected(account_id: str, website_id: int) -> bool:
    return stored.get(account_id, website_id) is not None


def by_page(account_id: str, website_id: int, page: str | None = None) -> dict[str, Any] | None:
    """Each page's `{"clicks", "impressions", "top_queries": [{"query", "clicks",
    "impressions"}]}` (one page's alone when `page` is given); None when the website is not
    connected to Search Console. Raises what the warehouse raises."""
    if not connected(account_id, website_id):
        return None
    body: dict[str, Any] = {
        "site_id": website_id,
        "metrics": ["clicks", "impressions"],
        "date_range": f"{DAYS}d",
        "dimensions": ["event:page", "search:query"],
        "pagination": {"limit": MAX_ROWS},
    }
    if page is not None:
        body["filters"] = [["is", "event:page", [page]]]
    asked = queries.parse(account_id, body)  # the website's zone, its local days
    found: dict[str, Any] = {}
    for path, searched, clicks_found, shown_found, _ in queries.rows_source(asked)(asked):
        clicks, impressions = int(clicks_found or 0), int(shown_found or 0)
        shown = found.setdefault(path, {"clicks": 0, "impressions": 0, "top_queries": []})
        shown["clicks"] += clicks
        shown["impressions"] += impressions
        if len(shown["top_queries"]) < TOP_QUERIES:  # rows come by clicks, descending
            shown["top_queries"].append(
                {"query": searched, "clicks": clicks, "impressions": impressions}
            )
    return found


def of_page(account_id: str, website_id: int, page: str) -> dict[str, Any] | None:
    """One page's clicks, impressions and top queries (zeros when it had none); None when
    the website is not connected."""
    found = by_page(account_id, website_id, page)
    if found is None:
        return None
    return {"days": DAYS, **found.get(page, {"clicks": 0, "impressions": 0, "top_queries": []})}
