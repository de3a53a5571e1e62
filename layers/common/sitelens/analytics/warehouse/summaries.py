"""Each compacted site-day summarised twice, so that a dashboard's questions do not read
every raw row: its visits (`visits.COLUMNS`, one row each) and its pages (one row per
page: pageviews, events and distinct visitors).

Compaction writes both beside the day's events file, from it, whenever it writes that
file (`write`). They are exact for a whole UTC day: no visit crosses midnight UTC, and a
visitor hash lives one day, so visitors of different days are different hashes and the
distinct visitors of several days are the sum of each day's. A query reads them for the
whole UTC days of its range that have no row still in landing, and finds the rest (the
partial first and last UTC days of another time zone, days with rows not compacted yet)
from raw rows, by the same rule (`sql`).

`plan` says which summary, if any, answers a query exactly:
- "visits": filters and dimensions on visit properties only (and time by day, week or
  month where the zone is UTC all range long), metrics of visits and their counts;
- "pages": a breakdown by page (and the same time buckets), filtered by page only, of
  visitors, pageviews and events.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any, Final, Literal
from zoneinfo import ZoneInfo

from sitelens.analytics.warehouse import schema, visits
from sitelens.analytics.warehouse.dimensions import VISIT_DIMENSIONS
from sitelens.analytics.warehouse.filters import Condition, Filter
from sitelens.analytics.warehouse.query import Query

Plan = Literal["visits", "pages"]
VISITS: Final = "daily_visits"  # daily_visits/website_id=<id>/day=<day>/data.parquet
PAGES: Final = "daily_pages"  # daily_pages/website_id=<id>/day=<day>/data.parquet
PAGE_COLUMNS: Final[tuple[tuple[str, schema.ColumnType], ...]] = (
    ("page", "string"),
    ("pageviews", "bigint"),
    ("events", "bigint"),  # pageviews and custom events
    ("visitors", "bigint"),  # distinct visitors with a pageview or custom event there
)
COLUMNS: Final = {VISITS: visits.COLUMNS, PAGES: PAGE_COLUMNS}
VISIT_METRICS: Final = frozenset(
    {
        "visitors",
        "visits",
        "pageviews",
        "events",
        "views_per_visit",
        "bounce_rate",
        "visit_duration",
        "percentage",
    }
)
PAGE_METRICS: Final = frozenset({"visitors", "pageviews", "events"})
# time buckets made of whole days: a summary's day falls in exactly one
DAY_BUCKETS: Final = frozenset({"time:day", "time:week", "time:month"})


def file(relation: str, website_id: int, day: str) -> str:
    """Where a site-day's summary lives, relative to the warehouse's root."""
    return f"{relation}/website_id={website_id}/day={day}/data.parquet"


def write(connection: Any, events_file: Path, website_id: int, out: dict[str, Path]) -> None:
    """Write the summaries of one compacted site-day file to `out[relation]`."""
    source = f"read_parquet('{events_file}')"
    visit_columns = ", ".join(
        visits.VISITOR_KEY.format(visitor="visitor") + " AS visitor" if name == "visitor" else name
        for name in visits.COLUMN_NAMES
    )
    connection.execute(  # paths and names are ours, not a request's
        f"COPY (WITH day_rows AS (SELECT CAST({int(website_id)} AS BIGINT) AS website_id, * "  # noqa: S608
        f"FROM {source}), {visits.ctes('day_rows')} "
        f"SELECT {visit_columns} FROM found_visits ORDER BY ts) TO '{out[VISITS]}' (FORMAT parquet)"
    )
    connection.execute(
        f"COPY (SELECT page, COUNT(*) FILTER (WHERE name = {visits.PAGEVIEW}) AS pageviews, "  # noqa: S608
        f"COUNT(*) AS events, COUNT(DISTINCT visitor) AS visitors FROM {source} "
        f"WHERE name <> {visits.ENGAGEMENT} GROUP BY page ORDER BY page) "
        f"TO '{out[PAGES]}' (FORMAT parquet)"
    )


def whole_days(query: Query) -> tuple[date, date]:
    """The first and last UTC days wholly inside the query's range (the first may come
    after the last: none)."""
    first = query.start.date()
    if query.start.timetz().replace(tzinfo=None) != time(0):
        first += timedelta(days=1)
    return first, query.end.date() - timedelta(days=1)


def _utc_all_along(query: Query) -> bool:
    zone = ZoneInfo(query.timezone)
    day = query.start.date()
    while day <= query.end.date():
        moment = datetime.combine(day, time(12), zone)
        if moment.utcoffset() != timedelta(0):
            return False
        day += timedelta(days=1)
    return True


def _dimensions_of(item: Filter) -> set[str]:
    if isinstance(item, Condition):
        return {item.dimension}
    return {name for part in item.parts for name in _dimensions_of(part)}


def plan(query: Query) -> Plan | None:
    """The summary that answers the query exactly, or None (raw rows answer it)."""
    filtered = {name for item in query.filters for name in _dimensions_of(item)}
    times = {d for d in query.dimensions if d.startswith("time:")}
    others = set(query.dimensions) - times
    if times and (not times <= DAY_BUCKETS or not _utc_all_along(query)):
        return None
    metrics = set(query.metrics)
    if others | filtered <= set(VISIT_DIMENSIONS) and metrics <= VISIT_METRICS:
        return "visits"
    if others == {"event:page"} and filtered <= {"event:page"} and metrics <= PAGE_METRICS:
        return "pages"
    return None
