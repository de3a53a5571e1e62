"""`POST /api/v1/query`: a Stats API v2 query over the account's websites' raw events.

The query is validated (`warehouse.query`), its websites checked to be the account's (a
website of another account is answered as a missing one), its time zone taken from the
website unless the query names one. What the statistics counters answer exactly (totals,
days and pages of pageviews and events over up to 31 whole UTC days, without filters) is
read from DynamoDB (`rollups`), which hands a breakdown by page back to the warehouse once
a page of its range was counted under "(other)"; everything else runs as SQL on the
warehouse engine, reading compaction's summaries where they answer exactly
(`warehouse.summaries`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sitelens.analytics import annotations as timeline
from sitelens.analytics import rollups, segments
from sitelens.analytics.crawls import queries as crawl_queries
from sitelens.analytics.imports import queried
from sitelens.analytics.warehouse import (
    answers,
    conversions,
    crawls,
    goals,
    query,
    revenue,
    scroll,
    search,
    sql,
    vitals,
)
from sitelens.core import clock, errors
from sitelens.data import goals as stored_goals
from sitelens.data import websites as stored_websites

DEFAULT_TIMEZONE = "UTC"


def run(account_id: str, body: Any) -> dict[str, Any]:
    """The answer to a query body; 422 for an invalid or too expensive query, 404 when a
    website is not the account's."""
    if crawls.asked(body):  # crawl rows are their own table (docs/crawlers.md)
        return crawl_queries.run(account_id, body)
    parsed = parse(account_id, body)
    site_ids = body.get("site_id")
    echo = {**body, "site_id": site_ids, "timezone": parsed.timezone}
    source = rows_source(parsed)
    if parsed.include.imports:  # imported history added where it answers (docs/imports.md)
        reason = queried.unsupported(parsed)
        imported, why_not = (
            (None, reason) if reason else queried.found(account_id, parsed, rows_source)
        )
        if imported is not None and why_not is None:
            source = queried.rows(rows_source, imported)
    answer = revenue.shaped(parsed, answers.answer(parsed, source, echo))
    if parsed.include.imports:
        answer["meta"] = {**queried.meta(why_not is None, why_not), **answer["meta"]}
    if parsed.include.annotations:
        answer["meta"]["annotations"] = timeline.of_range(account_id, parsed)
    return answer


def parse(account_id: str, body: Any) -> query.Query:
    """The query of a body, over the account's websites (404 for another's), in their time
    zone unless it names one, with their goals; 422 for an invalid query."""
    zone = DEFAULT_TIMEZONE
    body = segments.expanded(account_id, body)  # a saved segment: its filters in its place
    parsed = query.parse(body, clock.now(), zone)  # validates site_id before any read
    found = [stored_websites.get(account_id, site) for site in parsed.site_ids]
    if any(website is None for website in found):
        raise errors.NotFound()
    zones = {str(website.get("timezone") or DEFAULT_TIMEZONE) for website in found if website}
    site_goals = goals.of_websites([w for w in found if w], stored_goals.of)
    in_zone = not body.get("timezone") and len(zones) == 1 and zones != {zone}
    if in_zone or site_goals or goals.asked(parsed.dimensions, parsed.filters):
        # again, in the websites' zone, with their goals
        parsed = query.parse(body, clock.now(), next(iter(zones)) if in_zone else zone, site_goals)
    return dataclasses.replace(parsed, visitor_zones=tuple(sorted(zones)))


def rows_source(parsed: query.Query) -> answers.Rows:
    """Where a query's rows come from: the counters when they can answer it exactly (they
    step aside for a range they do not hold every page of), else the warehouse."""
    if search.asked(parsed):  # Search Console's, joined with the events' when asked
        return search.rows_from(lambda events: rows_source(events)(events))
    if conversions.asked(parsed):
        return conversions.rows
    if scroll.asked(parsed):
        return scroll.rows
    if vitals.asked(parsed):
        return vitals.rows
    if rollups.answers(parsed):
        return rollups.rows
    return sql.rows
