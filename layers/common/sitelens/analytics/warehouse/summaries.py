"""Each merged site-day summarised three times, so that a dashboard's questions do not
read every raw row: its totals (one row), its visits (`visits.COLUMNS`, one row each) and
its pages (one row per page: pageviews, events and distinct visitors).

The daily merge (`merges`) writes them beside the day's events file, from it, whenever it
writes that file (`write`). They are exact for a whole UTC day: no visit crosses midnight UTC
(`visits`). A visitor hash lives one day of its website's zone, so for websites in UTC the
distinct visitors of several days are the sum of each day's; elsewhere a hash spans two UTC
days, and only the visits summary, which keeps each visit's visitor, counts them (`plan`,
`Query.visitor_zones`). A query reads them for the
whole UTC days of its range that have no row still in landing nor in an hourly part not
merged yet, and finds the rest (the partial first and last UTC days of another time zone,
days with rows not merged yet) from raw rows, by the same rule (`sql`).

`plan` says which summary, if any, answers a query exactly:
- "totals": the day's figures (`daily_totals`, one row a day), for questions without
  filters or dimensions other than time by day, week or month (where the zone is UTC all
  range long) of visitors (websites in UTC only), visits, pageviews, events, views per
  visit, bounce rate and visit duration;
- "visits": filters and dimensions on visit properties only (and time by day, week or
  month where the zone is UTC all range long), metrics of visits and their counts;
- "pages": a breakdown by page (and the same time buckets), filtered by page only, of
  visitors (websites in UTC only), pageviews and events.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, Final, Literal
from zoneinfo import ZoneInfo

from sitelens.analytics.warehouse import layout, schema, visits
from sitelens.analytics.warehouse.dimensions import VISIT_DIMENSIONS
from sitelens.analytics.warehouse.filters import Condition, Filter
from sitelens.analytics.warehouse.query import Query
from sitelens.analytics.warehouse.schema import DUCKDB_TYPES

Plan = Literal["totals", "visits", "pages"]
TOTALS: Final = layout.TOTALS  # daily_totals/website_id=<id>/day=<day>/data.parquet
VISITS: Final = layout.VISITS  # daily_visits/website_id=<id>/day=<day>/data.parquet
PAGES: Final = layout.PAGES  # daily_pages/website_id=<id>/day=<day>/data.parquet
# The day's figures (one row): its visits' counts and sums, and its distinct visitors
TOTAL_COLUMNS: Final[tuple[tuple[str, schema.ColumnType], ...]] = (
    ("visitors", "bigint"),
    ("visits", "bigint"),
    ("pageviews", "bigint"),
    ("events", "bigint"),
    ("bounces", "bigint"),  # visits of one pageview and no custom event
    ("duration", "bigint"),  # the visits' durations added up, in seconds
)
PAGE_COLUMNS: Final[tuple[tuple[str, schema.ColumnType], ...]] = (
    ("page", "string"),
    ("pageviews", "bigint"),
    ("events", "bigint"),  # pageviews and custom events
    ("visitors", "bigint"),  # distinct visitors with a pageview or custom event there
)
COLUMNS: Final = {TOTALS: TOTAL_COLUMNS, VISITS: visits.COLUMNS, PAGES: PAGE_COLUMNS}
# the visits as found, from which the day's totals are added up
FOUND_TOTALS: Final = (
    "COUNT(DISTINCT visitor) AS visitors, COUNT(*) AS visits, SUM(v_pageviews) AS pageviews, "
    "SUM(v_events) AS events, "
    "COUNT(*) FILTER (WHERE v_pageviews = 1 AND v_interactions = 0) AS bounces, "
    "SUM(v_duration) AS duration"
)
TOTAL_METRICS: Final = frozenset(
    {
        "visitors",
        "visits",
        "pageviews",
        "events",
        "views_per_visit",
        "bounce_rate",
        "visit_duration",
    }
)
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


def write(connection: Any, events_files: Sequence[Path], out: Path) -> dict[str, Path]:
    """Write the summaries of compacted site-day files (each in its own
    `website_id=<id>/day=<day>/` folder) under `out`, in one pass for all of them; returns
    each written file by where it belongs (`file`). A site-day with nothing to summarise
    (engagement rows only) gets empty summaries, so that none is ever missing."""
    if not events_files:
        return {}
    out.mkdir(parents=True, exist_ok=True)
    listed = ", ".join(f"'{path}'" for path in events_files)
    source = (
        f"read_parquet([{listed}], hive_partitioning = true, "
        "hive_types = {'website_id': BIGINT, 'day': VARCHAR})"
    )
    visit_columns = ", ".join(
        visits.VISITOR_KEY.format(visitor="visitor") + " AS visitor" if name == "visitor" else name
        for name in visits.COLUMN_NAMES
    )
    by_site_day = "FORMAT parquet, PARTITION_BY (website_id, day), FILENAME_PATTERN 'data'"
    # paths and names are ours, not a request's; the visits are found once, for both files
    connection.execute(
        f"CREATE OR REPLACE TEMP TABLE found_visits AS WITH day_rows AS (SELECT * FROM {source}), "  # noqa: S608
        f"{visits.ctes('day_rows')} SELECT * FROM found_visits"
    )
    connection.execute(
        f"COPY (SELECT website_id, day, {visit_columns} FROM found_visits "  # noqa: S608
        f"ORDER BY website_id, day, ts) TO '{out / VISITS}' ({by_site_day})"
    )
    connection.execute(
        f"COPY (SELECT website_id, day, {FOUND_TOTALS} FROM found_visits "  # noqa: S608
        f"GROUP BY website_id, day) TO '{out / TOTALS}' ({by_site_day})"
    )
    connection.execute("DROP TABLE found_visits")
    connection.execute(
        f"COPY (SELECT website_id, day, page, "  # noqa: S608
        f"COUNT(*) FILTER (WHERE name = {schema.PAGEVIEW_SQL}) AS pageviews, COUNT(*) AS events, "
        f"COUNT(DISTINCT visitor) AS visitors FROM {source} WHERE name <> {schema.ENGAGEMENT_SQL} "
        f"GROUP BY website_id, day, page ORDER BY website_id, day, page) "
        f"TO '{out / PAGES}' ({by_site_day})"
    )
    written: dict[str, Path] = {}
    partitions = {schema.site_day(str(path)) for path in events_files}
    for relation, columns in COLUMNS.items():
        for website_id, day in sorted(partitions):
            folder = out / relation / f"website_id={website_id}" / f"day={day}"
            found = sorted(folder.glob("*.parquet"))
            if not found:  # nothing to summarise that day: an empty file says so
                folder.mkdir(parents=True, exist_ok=True)
                found = [folder / "data.parquet"]
                typed = ", ".join(
                    f"CAST(NULL AS {DUCKDB_TYPES[kind]}) AS {name}" for name, kind in columns
                )
                connection.execute(
                    f"COPY (SELECT {typed} WHERE FALSE) TO '{found[0]}' (FORMAT parquet)"
                )
            if len(found) != 1:
                raise RuntimeError(f"{len(found)} {relation} files for one partition")
            written[file(relation, website_id, day)] = found[0]
    return written


def found_sql(plan: Plan, rows: str) -> str:
    """CTEs (DuckDB's dialect) ending in `found_summary`: the summary `plan` of each
    site-day of the raw rows `rows`, by the rule `write` stores them with (`sql` finds the
    days no stored summary answers with it; `clickhouse_days` stores ClickHouse's)."""
    if plan == "totals":
        return f"""{visits.ctes(rows)},
found_summary AS (
  SELECT website_id, day, {FOUND_TOTALS} FROM found_visits GROUP BY website_id, day
)"""  # noqa: S608 (names are ours)
    if plan == "visits":
        found_columns = ", ".join(
            "VISITOR_KEY(visitor) AS visitor" if name == "visitor" else name
            for name in visits.COLUMN_NAMES
        )
        return f"""{visits.ctes(rows)},
found_summary AS (SELECT website_id, day, {found_columns} FROM found_visits)"""  # noqa: S608
    return f"""found_summary AS (
  SELECT website_id, day, page,
    COUNT(*) FILTER (WHERE name = {schema.PAGEVIEW_SQL}) AS pageviews, COUNT(*) AS events,
    COUNT(DISTINCT visitor) AS visitors
  FROM {rows} WHERE name <> {schema.ENGAGEMENT_SQL} GROUP BY website_id, day, page
)"""  # noqa: S608 (names are ours)


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


def _hashes_in_utc_days(query: Query) -> bool:
    """Whether every visitor hash of the range lives within one UTC day: the websites' zones
    are UTC at every midnight and noon around it. Only then are the distinct visitors of
    several UTC days the sum of each day's (a hash of New York's day spans two UTC days)."""
    first, last = query.start.date() - timedelta(days=1), query.end.date() + timedelta(days=1)
    for name in set(query.visitor_zones) - {"UTC"}:
        zone, day = ZoneInfo(name), first
        while day <= last:
            for hour in (0, 12):
                if datetime.combine(day, time(hour), UTC).astimezone(zone).utcoffset():
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
    # the totals and pages summaries hold each day's count of distinct visitors; the visits
    # summary holds each visit's visitor, whose distinct count is exact in any zone
    sums_visitors = "visitors" in metrics and not _hashes_in_utc_days(query)
    if not others and not filtered and metrics <= TOTAL_METRICS and not sums_visitors:
        return "totals"
    if others | filtered <= set(VISIT_DIMENSIONS) and metrics <= VISIT_METRICS:
        return "visits"
    if (
        others == {"event:page"}
        and filtered <= {"event:page"}
        and metrics <= PAGE_METRICS
        and not sums_visitors
    ):
        return "pages"
    return None
