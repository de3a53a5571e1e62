"""Reading statistics: one statistic's values, summed over a period, a page at a time, and
a share page's overview.

A period is read by calendar months where it can: a month the period covers whole is read
from its month roll-up (`<stat>@month`, one counter per value and month, written by a
daily job once the month has closed: `months`) when the roll-up is complete and counted
no value under "(other)", and every other day from the daily counters. A roll-up is
complete when it is whole (no counter of the month was added since it was written:
`data.months`) and its `pageviews@month` counter equals the sum of the month's daily
`pageviews`; the month still open, and a month not rolled up yet or changed by a late hit
since, are read by days. `pageviews` and `visitors`, whose values are the days, and the
hourly statistics are always read by days.

Every page sums the whole period, which stays bounded however many values were sent: a
period has at most MAX_DAYS days, and a statistic has at most MAX_VALUES + 1 counters a
day and a month (the aggregator and the roll-up count the rest under "(other)"). With
every closed month rolled up, a period reads at most 10 whole months by month, the open
month by its days when the period holds it whole, and 60 other days (100 periods), so at
most 100 x 501 = 50,100 items of the statistic; in the hours between a month's close and
its roll-up (the job runs daily), or the day between a late hit and the next run, one more
month is read by days (130 periods: 65,130 items), and a month whose roll-up failed is
read by days until a run succeeds (at most 366 x 501 = 183,366 items). Choosing the
months reads at most 366 daily `pageviews` and 12 roll-up states (378 items).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from sitelens.analytics.counting import OTHER
from sitelens.analytics.hit import MONTH_SUFFIX, MONTHLY_NAMES
from sitelens.core import errors
from sitelens.data import months as stored_months
from sitelens.data import stats
from sitelens.data import websites as stored_websites
from sitelens.records import listing

if TYPE_CHECKING:
    from sitelens.analytics.inputs import StatsQuery

# Statistics read by month where a period allows: those with month roll-ups whose values
# are not the days themselves.
BY_MONTH = frozenset(MONTHLY_NAMES) - {"pageviews", "visitors"}
Cost = dict[str, int]


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
) -> tuple[list[dict[str, Any]], Cost]:
    if stored_websites.get(account_id, website_id) is None:
        raise errors.NotFound()
    first, last = query.period()
    sums, cost = summed(website_id, query.name, first, last)
    needle = query.search.lower() if query.search else None
    rows = [
        {"value": value, "count": count}
        for value, count in sums.items()
        if needle is None or needle in value.lower()
    ]
    return rows, cost


def summed(website_id: int, name: str, first: date, last: date) -> tuple[Counter[str], Cost]:
    """Each value's count of a statistic from `first` to `last`, read by whole months where
    the period and the roll-ups allow (`Plan`); and what reading it cost."""
    months = _whole_months(first, last)
    cost: Cost = {}
    plan = Plan(first, last)
    if name in BY_MONTH and months:
        extent = Plan(months[0], _month_end(months[-1]))
        (daily,), cost = stats.many_counts([extent.days_of(website_id, "pageviews")])
        states, spent = extent.month_states(website_id)
        plan = Plan.choose(first, last, daily, states)
        cost = _added(cost, spent)
    sums, spent = _read(website_id, plan, (name,))
    return sums[name], _added(cost, spent)


def _read(
    website_id: int, plan: Plan, names: Iterable[str], top: int | None = None
) -> tuple[dict[str, Counter[str]], Cost]:
    """Each statistic's sums over the plan's period, in parallel Queries.

    A month's roll-up admits its first 500 values; the rest count under "(other)", which
    may hide a value that rose later in the month (its days have it). Such a month is read
    again by days: always for a full listing, and for the `top` values only when the
    months' "(other)" could hold a value ranking among them."""
    names = list(names)
    spans = {name: plan.spans(website_id, name) for name in names}
    found, cost = stats.many_counts([span for name in names for span in spans[name]])
    read: dict[str, list[tuple[str, str, int]]] = {}
    again: list[tuple[str, str]] = []  # (statistic, month) to read by days
    for name in names:
        read[name] = [c for _ in spans[name] for c in found.pop(0)]
        crowded = {p: n for p, v, n in read[name] if len(p) == len("YYYY-MM") and v == OTHER}
        if crowded and (top is None or _may_hide(read[name], sum(crowded.values()), top)):
            read[name] = [c for c in read[name] if c[0] not in crowded]
            again += [(name, month) for month in sorted(crowded)]
    if again:
        days = [stats.Span(website_id, name, *_days_of(month)) for name, month in again]
        by_days, spent = stats.many_counts(days)
        cost = _added(cost, spent)
        for (name, _), counters in zip(again, by_days, strict=True):
            read[name] += counters
    return {name: _sums([read[name]]) for name in names}, cost


def _may_hide(counters: list[tuple[str, str, int]], hidden: int, top: int) -> bool:
    """Whether `hidden` counts under the months' "(other)" could lift a value outside the
    `top` (seen elsewhere or not at all) to the `top`-th one's count."""
    sums = _sums([[c for c in counters if c[1] != OTHER]])
    ranked = sorted(sums.values(), reverse=True)
    ranked += [0] * (top + 1 - len(ranked))  # fewer values than `top`: any could rank
    return ranked[top] + hidden >= ranked[top - 1]


def _days_of(month: str) -> tuple[str, str]:
    first = date.fromisoformat(f"{month}-01")
    return first.isoformat(), _month_end(first).isoformat()


@dataclass(frozen=True)
class Plan:
    """How a period is read: runs of whole months from the month roll-ups (`months`), runs
    of days from the daily counters (`days`); every day of the period in exactly one."""

    first: date
    last: date
    months: tuple[tuple[date, date], ...] = ()
    days: tuple[tuple[date, date], ...] = ()

    @classmethod
    def choose(
        cls,
        first: date,
        last: date,
        daily_pageviews: Iterable[tuple[str, str, int]],
        states: dict[str, stored_months.State],
    ) -> Plan:
        """Whole months of the period whose roll-up is complete (whole, and its
        `pageviews@month` equals the sum of its days' `pageviews`) by month, every other
        day by day."""
        by_days: Counter[str] = Counter()
        for period, _, count in daily_pageviews:
            by_days[period[:7]] += count
        complete = {
            start
            for start in _whole_months(first, last)
            if (state := states.get(_month(start))) is not None
            and state.whole
            and state.count == by_days[_month(start)]
        }
        months: list[tuple[date, date]] = []
        days: list[tuple[date, date]] = []
        day = first
        while day <= last:
            if day in complete:
                _extend(months, day, _month_end(day))
                day = _month_end(day) + timedelta(days=1)
            else:
                _extend(days, day, day)
                day += timedelta(days=1)
        return cls(first, last, tuple(months), tuple(days))

    def spans(self, website_id: int, name: str) -> list[stats.Span]:
        """The Queries that read statistic `name` over the period."""
        if name not in BY_MONTH or not self.months:
            return [self.days_of(website_id, name)]
        return [
            *(
                stats.Span(website_id, name + MONTH_SUFFIX, _month(a), _month(b))
                for a, b in self.months
            ),
            *(stats.Span(website_id, name, a.isoformat(), b.isoformat()) for a, b in self.days),
        ]

    def days_of(self, website_id: int, name: str) -> stats.Span:
        """Every day of the period of a daily series."""
        return stats.Span(website_id, name, self.first.isoformat(), self.last.isoformat())

    def month_states(self, website_id: int) -> tuple[dict[str, stored_months.State], Cost]:
        """The roll-up state of every month the period touches (one Query)."""
        return stored_months.span_states(website_id, _month(self.first), _month(self.last))


def _whole_months(first: date, last: date) -> list[date]:
    """The first day of every calendar month from `first` to `last` that the period holds
    whole."""
    start = first if first.day == 1 else _month_end(first) + timedelta(days=1)
    months = []
    while _month_end(start) <= last:
        months.append(start)
        start = _month_end(start) + timedelta(days=1)
    return months


def _month_end(day: date) -> date:
    following = day.replace(day=28) + timedelta(days=4)
    return following - timedelta(days=following.day)


def _month(day: date) -> str:
    return day.strftime("%Y-%m")


def _extend(runs: list[tuple[date, date]], first: date, last: date) -> None:
    """Add first..last to `runs`, joining the last run when it ends the day before."""
    if runs and runs[-1][1] + timedelta(days=1) == first:
        runs[-1] = (runs[-1][0], last)
    else:
        runs.append((first, last))


def _sums(found: Iterable[Iterable[tuple[str, str, int]]]) -> Counter[str]:
    sums: Counter[str] = Counter()
    for counters in found:
        for _, value, count in counters:
            sums[value] += count
    return sums


def _added(cost: Cost, spent: Cost) -> Cost:
    return {key: cost.get(key, 0) + spent.get(key, 0) for key in spent.keys() | cost.keys()}


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
    cost: Cost = field(default_factory=dict, compare=False)  # what reading it cost

    @property
    def total_visitors(self) -> int:
        return sum(self.visitors)

    @property
    def total_pageviews(self) -> int:
        return sum(self.pageviews)


def overview(website_id: int, first: date, last: date) -> Overview:
    """The share page's numbers for a period, read as `summed` reads them: the days'
    visitors and pageviews (parallel Queries) and the months' roll-up states (which choose
    the months), then every ranked statistic in parallel Queries."""
    days = [(first + timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
    period = Plan(first, last)
    reads = [period.days_of(website_id, "pageviews"), period.days_of(website_id, "visitors")]
    (pageviews, visitors), cost = stats.many_counts(reads)
    states: dict[str, stored_months.State] = {}
    if _whole_months(first, last):
        states, spent = period.month_states(website_id)
        cost = _added(cost, spent)
    plan = Plan.choose(first, last, pageviews, states)

    every, spent = _read(website_id, plan, RANKED, top=TOP_ROWS)
    ranked = {}
    for name in RANKED:
        sums = every[name]
        total = sum(sums.values())
        top = sorted(sums.items(), key=lambda item: (-item[1], item[0]))[:TOP_ROWS]
        ranked[name] = [
            {"value": value, "count": count, "share": round(100 * count / total, 1)}
            for value, count in top
        ]
    per_day = _per_day(visitors, days), _per_day(pageviews, days)
    return Overview(first, last, days, *per_day, ranked, _added(cost, spent))


def _per_day(found: list[tuple[str, str, int]], days: list[str]) -> list[int]:
    sums: Counter[str] = Counter()
    for day, _, count in found:
        sums[day] += count
    return [sums[day] for day in days]
