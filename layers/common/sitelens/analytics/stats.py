"""Reading statistics: one statistic's values, summed over a period, a page at a time.

Every page sums the whole period, which stays bounded however many values were sent: a
period has at most MAX_DAYS days and a statistic at most MAX_VALUES + 1 counters a day
(the aggregator counts the rest under "(other)"), so a request reads at most
366 x 501 = 183,366 items.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from sitelens import errors, listing
from sitelens.data import stats
from sitelens.data import websites as stored_websites

if TYPE_CHECKING:
    from sitelens.analytics.inputs import StatsQuery


def page(account_id: str, website_id: int, query: StatsQuery) -> listing.Page:
    """One page of `{"value", "count"}` rows, each value's counts summed over the period;
    404 unless the website is the account's."""
    rows, cost = _summed(account_id, website_id, query)
    key, descending = _order(query)
    params = query.params()
    return listing.rows_page(
        rows,
        key,
        descending,
        query.per_page,
        query.cursor,
        listing.binding(account_id, f"stats/{website_id}", params),
        params,
        cost,
    )


def every_row(account_id: str, website_id: int, query: StatsQuery) -> list[dict[str, Any]]:
    """Every row of the period in the order of the pages (an export); 404 as for `page`."""
    rows, _ = _summed(account_id, website_id, query)
    key, descending = _order(query)
    return sorted(rows, key=key, reverse=descending)


def _summed(
    account_id: str, website_id: int, query: StatsQuery
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    if stored_websites.get(account_id, website_id) is None:
        raise errors.NotFound()
    first, last = query.period()
    found, cost = stats.counts(website_id, query.name, first.isoformat(), last.isoformat())
    sums: Counter[str] = Counter()
    for value, count in found:
        sums[value] += count
    needle = query.search.lower() if query.search else None
    rows = [
        {"value": value, "count": count}
        for value, count in sums.items()
        if needle is None or needle in value.lower()
    ]
    return rows, cost


def _order(query: StatsQuery) -> tuple[Callable[[dict[str, Any]], list[Any]], bool]:
    """The rows' total order: (key, descending)."""
    if query.sort_by == "value":
        return (lambda row: [row["value"]]), query.sort == "desc"
    # Equal counts list their values in ascending order either way.
    sign = -1 if query.sort == "desc" else 1
    return (lambda row: [sign * row["count"], row["value"]]), False


# Statistics a share page ranks in tables, in the order it shows them.
RANKED = (
    "page",
    "landing_page",
    "referrer",
    "country",
    "browser",
    "os",
    "device",
    "language",
    "resolution",
    "utm_source",
    "utm_medium",
    "campaign",
    "event",
)
TOP_ROWS = 10  # rows of each ranked table on a share page


@dataclass(frozen=True)
class Overview:
    """A website's period at a glance: visitors and pageviews per day, and the top values
    of each ranked statistic with their share of the statistic's total."""

    first: date
    last: date
    days: list[str]
    visitors: list[int]
    pageviews: list[int]
    ranked: dict[str, list[dict[str, Any]]]

    @property
    def total_visitors(self) -> int:
        return sum(self.visitors)

    @property
    def total_pageviews(self) -> int:
        return sum(self.pageviews)


def overview(website_id: int, first: date, last: date) -> Overview:
    """The share page's numbers for a period, read as the stats API reads them (one Query
    per statistic, bounded as `page` is)."""
    days = [(first + timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]

    def per_day(name: str) -> list[int]:
        found, _ = stats.counts(website_id, name, days[0], days[-1])
        sums: Counter[str] = Counter()
        for day, count in found:
            sums[day] += count
        return [sums[day] for day in days]

    ranked = {}
    for name in RANKED:
        found, _ = stats.counts(website_id, name, days[0], days[-1])
        sums: Counter[str] = Counter()
        for value, count in found:
            sums[value] += count
        total = sum(sums.values())
        top = sorted(sums.items(), key=lambda item: (-item[1], item[0]))[:TOP_ROWS]
        ranked[name] = [
            {"value": value, "count": count, "share": round(100 * count / total, 1)}
            for value, count in top
        ]
    return Overview(first, last, days, per_day("visitors"), per_day("pageviews"), ranked)
