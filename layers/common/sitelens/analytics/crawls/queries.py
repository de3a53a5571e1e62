"""`POST /api/v1/query` asking for crawls: the metric `crawls` by `crawl:bot`,
`crawl:family`, `crawl:verification`, `crawl:status` and `event:page`, on DuckDB (make
serve) and Athena; on ClickHouse refused with 400, saying so (docs/crawlers.md)."""

from __future__ import annotations

from typing import Any

from sitelens.analytics.warehouse import crawls, periods, query
from sitelens.core import clock, errors
from sitelens.data import warehouse
from sitelens.data import websites as stored_websites


class EngineRefuses(errors.BadRequest):
    """400: crawl rows are kept in the events bucket's `crawls/`, which ClickHouse lacks."""

    def __init__(self) -> None:
        super().__init__()
        self.message = (
            "Crawls are not queried on ClickHouse: a deployment on ClickHouse keeps no "
            "crawl rows in it (docs/crawlers.md)."
        )


def parse(account_id: str, body: dict[str, Any]) -> crawls.CrawlQuery:
    """The crawl query of a body; 422 for a wrong field, 404 for another account's site."""
    crawls.check(body)
    site_ids = query.site_ids_of(body.get("site_id"))
    found = [stored_websites.get(account_id, site) for site in site_ids]
    if any(website is None for website in found):
        raise errors.NotFound()
    zones = {str(w.get("timezone") or "UTC") for w in found if w}
    zone = periods.timezone(body.get("timezone") or (zones.pop() if len(zones) == 1 else "UTC"))
    if "date_range" not in body:
        raise errors.Invalid.field("date_range", "The date range field is required.")
    from zoneinfo import ZoneInfo

    first, last, start, end = periods.date_range(
        body["date_range"], clock.now().astimezone(ZoneInfo(zone))
    )
    limit = (body.get("pagination") or {}).get("limit", crawls.MAX_LIMIT)
    if not isinstance(limit, int) or not 0 < limit <= crawls.MAX_LIMIT:
        raise errors.Invalid.field("pagination", f"The limit is 1 to {crawls.MAX_LIMIT}.")
    return crawls.CrawlQuery(
        tuple(site_ids),
        start,
        end,
        first,
        last,
        tuple(body.get("dimensions", [])),
        tuple((f[0], f[1], tuple(f[2])) for f in body.get("filters", [])),
        limit,
    )


def run(account_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """The Stats API v2 answer of a crawl query."""
    parsed = parse(account_id, body)
    dialect = warehouse.dialect()
    if dialect == "clickhouse":
        raise EngineRefuses()
    rows = warehouse.run(crawls.statement(parsed, dialect))
    width = len(parsed.dimensions)
    results = [
        {
            "dimensions": [
                int(v) if d == "crawl:status" else v
                for d, v in zip(parsed.dimensions, row[:width], strict=True)
            ],
            "metrics": [int(row[width])],
        }
        for row in rows
    ]
    if not parsed.dimensions and not results:
        results = [{"dimensions": [], "metrics": [0]}]
    total = int(rows[0][width + 1]) if rows else 0
    return {"results": results, "meta": {"total_rows": total}, "query": body}
