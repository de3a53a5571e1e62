"""Reading statistics: one statistic's values, summed over a period, a page at a time.

Every page sums the whole period, which stays bounded however many values were sent: a
period has at most MAX_DAYS days and a statistic at most MAX_VALUES + 1 counters a day
(the aggregator counts the rest under "(other)"), so a request reads at most
366 x 501 = 183,366 items.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from sitelens import errors, listing
from sitelens.data import stats
from sitelens.data import websites as stored_websites

if TYPE_CHECKING:
    from sitelens.analytics.inputs import StatsQuery


def page(account_id: str, website_id: int, query: StatsQuery) -> listing.Page:
    """One page of `{"value", "count"}` rows, each value's counts summed over the period;
    404 unless the website is the account's."""
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
    if query.sort_by == "value":
        key, descending = (lambda row: [row["value"]]), query.sort == "desc"
    else:
        # Equal counts list their values in ascending order either way.
        sign = -1 if query.sort == "desc" else 1
        key, descending = (lambda row: [sign * row["count"], row["value"]]), False
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
