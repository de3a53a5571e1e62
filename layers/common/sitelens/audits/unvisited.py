"""Pages crawlers fetch that no visitor saw (`GET /api/v1/websites/{id}/crawls/unvisited`):
the website's crawled pages of the last `days` UTC days (the crawls table, one grouped
question), less those with a pageview in the same days (the statistics counters' `page`
figures, as audits read traffic: `audits.traffic`), each with what the website's latest
done audit of its host knew of it: whether the run crawled the page too.

A page the counters folded into "(other)" (a site with more pages a day than they keep
apart) has no figure of its own and shows as unvisited: the answer says how many views
went to "(other)" (`other_pageviews`) so a reader can tell.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Annotated, Any, Final

from pydantic import Field

from sitelens.analytics.crawls.queries import EngineRefuses
from sitelens.analytics.stats import summed
from sitelens.analytics.warehouse import crawls, raw, schema
from sitelens.audits.runs import last_done
from sitelens.core import clock, errors, hosts
from sitelens.data import audits as stored_audits
from sitelens.data import warehouse
from sitelens.data import websites as stored_websites
from sitelens.records.inputs import Input

MAX_AUDITS: Final = 200  # the account's audits looked through for one of the host
OTHER: Final = "(other)"


class UnvisitedQuery(Input):
    days: Annotated[int, Field(ge=1, le=93)] = 30
    limit: Annotated[int, Field(ge=1, le=1000)] = 100


def statement(website_id: int, first: str, last: str, dialect: str) -> str:
    """Crawled pages of the site's UTC days `first` to `last`: page, crawls (distinct
    lines), the last crawl, the bots (sorted, at most a few)."""
    text = f"""
WITH lines AS (
  SELECT line_id, MIN(ts) AS ts, MIN(page) AS page, MIN(bot) AS bot
  FROM {crawls.FOLDER}
  WHERE website_id = {int(website_id)}
    AND day BETWEEN {schema.literal(first)} AND {schema.literal(last)}
  GROUP BY line_id
)
SELECT page, COUNT(*) AS crawls, MAX(ts) AS last_crawl, ARRAY_AGG(DISTINCT bot) AS bots
FROM lines GROUP BY page ORDER BY crawls DESC, page ASC LIMIT 10000"""  # noqa: S608 (quoted)
    return raw.rendered(text, dialect)


def pages(account: str, website_id: int, query: UnvisitedQuery) -> dict[str, Any]:
    """The view; 404 for a website not the account's, 400 on ClickHouse."""
    website = stored_websites.get(account, website_id)
    if website is None:
        raise errors.NotFound()
    dialect = warehouse.dialect()
    if dialect == "clickhouse":
        raise EngineRefuses()
    last = clock.now().date()
    first = last - timedelta(days=query.days - 1)
    crawled = warehouse.run(statement(website_id, first.isoformat(), last.isoformat(), dialect))
    views, _ = summed(website_id, "page", first, last)
    rows: list[dict[str, Any]] = [
        {
            "page": str(page),
            "crawls": int(count),
            "last_crawled_at": str(when)[:19].replace(" ", "T") + "Z",
            "bots": sorted(_listed(bots))[:10],
        }
        for page, count, when, bots in crawled
        if not views.get(str(page))
    ][: query.limit]
    audit = _latest_audit(account, str(website["domain"]))
    if audit is not None:
        audit_id, run, origin = audit
        found = stored_audits.pages_of(
            stored_audits.crawl_key(account, audit_id, run), [origin + r["page"] for r in rows]
        )
        for row in rows:
            row["in_audit"] = origin + row["page"] in found
    return {
        "data": rows,
        "days": query.days,
        "from": first.isoformat(),
        "to": last.isoformat(),
        "other_pageviews": int(views.get(OTHER, 0)),
        "audit": {"id": audit[0], "run": audit[1]} if audit else None,
    }


def _listed(value: Any) -> list[str]:
    if isinstance(value, str):  # Athena answers an array as text: "[a, b]"
        return [v.strip() for v in value.strip("[]").split(",") if v.strip()]
    return [str(v) for v in value or []]


def _latest_audit(account: str, domain: str) -> tuple[int, int, str] | None:
    """(audit id, its last done run, its URLs' origin) of the account's audit of this
    host whose last done run ended last; None without one."""
    site = hosts.site(domain)
    best: tuple[str, int, int, str] | None = None
    for record in stored_audits.of_account(account, MAX_AUDITS):
        parts = hosts.split_url(str(record.get("url", "")))
        try:
            same = parts is not None and hosts.site(parts.hostname or "") == site
        except hosts.InvalidHost:
            same = False
        done = last_done(json.loads(record.get("runs") or "[]")) if same else None
        if parts is None or done is None:
            continue
        ended = str(done.get("finished_at") or "")
        if best is None or ended > best[0]:
            best = (ended, int(record["id"]), int(done["run"]), f"{parts.scheme}://{parts.netloc}")
    return best[1:] if best else None
