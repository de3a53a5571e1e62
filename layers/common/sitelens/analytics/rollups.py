"""The fast path of `POST /api/v1/query`: what the statistics counters answer exactly, read
from DynamoDB in milliseconds instead of scanning the warehouse.

The counters hold every counted pageview per UTC day and page, and every custom event per
UTC day, the same hits the warehouse has rows of; so `pageviews` and `events` (pageviews
and custom events, as Plausible counts them), in total, per `time:day` or (pageviews) per
`event:page`, over whole UTC days, are the warehouse's numbers. Visitors, visits, bounces
and durations need the visitor hashes, and filters need the rows: those queries, and
ranges longer than MAX_DAYS, go to the warehouse.

A page past its day's limit of distinct values is counted under "(other)", not under its
own name: when a range holds an "(other)" page counter, the counters no longer know every
page, and a breakdown by page steps aside to the warehouse, which has every row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, time, timedelta
from typing import Any

from sitelens.analytics.counting import OTHER
from sitelens.analytics.warehouse import sql
from sitelens.analytics.warehouse.query import Query
from sitelens.data import stats

METRICS = frozenset({"pageviews", "events"})
MAX_DAYS = 31  # a month of days: at most 31 Queries of one series per website and metric
# dimension -> the metrics it can be answered for
DIMENSIONS: dict[tuple[str, ...], frozenset[str]] = {
    (): METRICS,
    ("time:day",): METRICS,
    ("event:page",): frozenset({"pageviews"}),
}


def answers(query: Query) -> bool:
    """Whether the counters answer the query exactly."""
    whole_days = query.start == _midnight(query.first_day) and query.end == _midnight(
        query.last_day + timedelta(days=1)
    )
    return (
        not query.filters
        and query.timezone == "UTC"
        and whole_days
        and (query.last_day - query.first_day).days < MAX_DAYS
        and set(query.metrics) <= DIMENSIONS.get(query.dimensions, frozenset())
    )


def _midnight(day: Any) -> datetime:
    return datetime.combine(day, time(), UTC)


def rows(query: Query) -> Sequence[Sequence[Any]]:
    """The query's rows as the warehouse's SQL gives them: dimensions, metrics, then the
    number of groups; ordered and paged alike. The warehouse's own rows when a page asked
    for was counted under "(other)"."""
    groups = _groups(query)
    if groups is None:
        return sql.rows(query)
    ordered = _ordered(query, [(list(k), [c[m] for m in query.metrics]) for k, c in groups.items()])
    total = len(ordered)
    page = ordered[query.offset : query.offset + query.limit]
    return [[*dimensions, *metrics, total] for dimensions, metrics in page]


def _groups(query: Query) -> dict[tuple[str, ...], Counter[str]] | None:
    """Each group's metrics summed from the counters; None when a breakdown by page meets
    a page counted under "(other)" (the counters do not hold that page)."""
    first, last = query.first_day.isoformat(), query.last_day.isoformat()
    by_page = query.dimensions == ("event:page",)
    groups: dict[tuple[str, ...], Counter[str]] = {}
    for site in query.site_ids:
        for metric in query.metrics:
            names = ["page"] if by_page else ["pageviews"]
            if metric == "events":
                names.append("event")
            for name in names:
                found, _ = stats.daily_counts(site, name, first, last)
                for day, value, count in found:
                    if by_page and value == OTHER:
                        return None
                    key = (value,) if by_page else (day,) if query.dimensions else ()
                    groups.setdefault(key, Counter())[metric] += count
    return groups


def _ordered(
    query: Query, found: list[tuple[list[str], list[int]]]
) -> list[tuple[list[str], list[int]]]:
    """The SQL's order (`sql.ordering`): the requested one, then time ascending or else the
    first metric descending, then every dimension ascending."""
    position = {d: ("d", n) for n, d in enumerate(query.dimensions)}
    position.update({m: ("m", n) for n, m in enumerate(query.metrics)})
    order = [(position[name], direction) for name, direction in query.order_by]
    default = [(("d", 0), "asc")] if query.time_dimension else [(("m", 0), "desc")]
    for key, direction in [*default, *((("d", n), "asc") for n in range(len(query.dimensions)))]:
        if all(key != chosen for chosen, _ in order):
            order.append((key, direction))
    for (kind, n), direction in reversed(order):  # stable sorts, least significant first
        found.sort(
            key=lambda row: row[0][n] if kind == "d" else row[1][n], reverse=direction == "desc"
        )
    return found
