"""The raw rows of a query's range, in SQL: every row once, whether merged, in an hourly
part or still in landing (a row whose hit was merged since, or that came twice, is kept once).

Names come from the fixed lists of `schema`, values are quoted by SQLGlot or formatted as
numbers; `sql` builds the rest of a statement on the relation `raw` this defines.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import time, timedelta
from typing import Final

from sitelens.analytics.warehouse import clickhouse, clickhouse_days, schema
from sitelens.analytics.warehouse.query import Query
from sitelens.data import warehouse

# The engine's relations: merged rows, partitioned by site and day, one per hit; the hourly
# compaction's parts, by site and day, and rows still in landing (by hour of arrival), both
# of which may repeat a hit, or one merged since (`compaction`).
COMPACTED: Final = "events"
PARTS: Final = "event_parts"
LANDING: Final = "landing"

SiteDays = tuple[tuple[int, str], ...]  # (website id, UTC day) partitions


def rendered(text: str, dialect: str) -> str:
    """DuckDB-dialect text as `dialect`'s SQL: rendered by SQLGlot for Athena, with
    ClickHouse's own words for ClickHouse (`clickhouse.rendered`), as it is for DuckDB
    (parsed and written out again, it came back the same, 50 ms later)."""
    if dialect == "duckdb":
        return text
    if dialect == clickhouse.DIALECT:
        # rows go straight into its `events` (`clickhouse`): no parts, its empty landing instead
        return clickhouse.rendered(text.replace(f"FROM {PARTS} ", f"FROM {LANDING} "))
    import sqlglot  # imported here: see `schema.literal`

    return sqlglot.parse_one(text, read="duckdb").sql(dialect=dialect)


def site_days(pairs: SiteDays, prefix: str = "") -> str:
    """A predicate true on rows of these partitions: constant, so engines prune by it."""
    tests = [
        f"({prefix}website_id = {int(site)} AND {prefix}day = {schema.literal(day)})"
        for site, day in pairs
    ]
    return "(" + " OR ".join(tests) + ")" if tests else "FALSE"


def _in_range(query: Query, by_day: bool = False) -> str:
    """Rows of the query's sites and range. With `by_day` (rows partitioned by the UTC day
    of their `ts`, as compacted ones are), a range of whole UTC days is its partitions
    alone: `ts` is not read (10 million timestamps in a month of a busy site, a tenth of a
    raw query's time)."""
    sites = ", ".join(str(site) for site in query.site_ids)
    midnight = time(0)
    if by_day and query.start.time() == midnight and query.end.time() == midnight:
        first, last = query.start.date(), query.end.date() - timedelta(days=1)
        return f"website_id IN ({sites}) AND day BETWEEN '{first}' AND '{last}'"
    # a UTC day partition can hold the site's first and last local day: read one more each side
    first_day = (query.start.date()).isoformat()
    last_day = (query.end.date()).isoformat()
    start = query.start.strftime("%Y-%m-%d %H:%M:%S.%f")
    end = query.end.strftime("%Y-%m-%d %H:%M:%S.%f")
    # names from fixed lists, values quoted by SQLGlot (`schema.literal`), numbers formatted
    return (
        f"website_id IN ({sites}) AND day BETWEEN '{first_day}' AND '{last_day}'"
        f" AND ts >= TIMESTAMP '{start}' AND ts < TIMESTAMP '{end}'"
    )


def _landing_sql(query: Query) -> str:
    # a row lands in the hour it arrives, never before its hit: older hours hold none
    first_hour = query.start.strftime("%Y-%m-%d-%H")
    return f"FROM {LANDING} WHERE {_in_range(query)} AND hour >= '{first_hour}'"


def _parts_sql(query: Query) -> str:
    return f"FROM {PARTS} WHERE {_in_range(query)}"


def stale_statement(query: Query, dialect: str) -> str:
    """The partitions of the query's range that have rows still in landing or in parts not
    merged yet (`statement`'s `stale`): their merged files and summaries may lack rows.
    On ClickHouse (rows straight into `events`), those with no summary stored
    (`clickhouse_days`)."""
    if dialect == clickhouse.DIALECT:
        return clickhouse_days.stale_statement(query)
    landing = f"SELECT DISTINCT website_id, day {_landing_sql(query)}"
    # partition keys alone (engines read no column of the parts' files), the days the
    # range touches (a part of a day it does not touch only keeps that day from summaries)
    sites = ", ".join(str(site) for site in query.site_ids)
    first, last = query.start.date().isoformat(), query.end.date().isoformat()
    parts = (
        f"SELECT DISTINCT website_id, day FROM {PARTS} "
        f"WHERE website_id IN ({sites}) AND day BETWEEN '{first}' AND '{last}'"
    )
    return rendered(f"{landing} UNION {parts}", dialect)


def engine_rows(
    statement: Callable[[Query, str, SiteDays], str],
    run: Callable[[str], warehouse.Rows],
    dialect: str,
) -> Callable[[Query], warehouse.Rows]:
    """A query's rows from an engine (`run` a statement in `dialect`): the partitions with
    rows still in landing or parts are found first (`stale_statement`), so `statement(query,
    dialect, stale)` names every partition it reads by constants, which engines prune by."""

    def rows(query: Query) -> warehouse.Rows:
        found = run(stale_statement(query, dialect))
        stale = tuple((int(site), str(day)) for site, day in found)
        return run(statement(query, dialect, stale))

    return rows


def raw_sql(query: Query, stale: SiteDays, days: str = "TRUE") -> str:
    """`raw`: every row of the range (of the partitions `days` selects) once, merged, in a
    part or still in landing (a row of landing or parts whose hit was merged since, or that
    came twice, is kept once: such copies can only be in the `stale` partitions)."""
    columns = ", ".join(schema.COLUMN_NAMES)
    return f"""
fresh AS (
  SELECT website_id, day, {columns},
    ROW_NUMBER() OVER (PARTITION BY hit_id ORDER BY ts) AS copy_no
  FROM (
    SELECT website_id, day, {columns} {_landing_sql(query)}
    UNION ALL
    SELECT website_id, day, {columns} {_parts_sql(query)}
  ) AS unmerged
),
compacted_copies AS (
  SELECT c.hit_id FROM {COMPACTED} AS c
  JOIN fresh AS f ON c.website_id = f.website_id AND c.day = f.day AND c.hit_id = f.hit_id
  WHERE {site_days(stale, "c.")}
),
raw AS (
  SELECT website_id, day, {columns} FROM {COMPACTED} WHERE {_in_range(query, by_day=True)}
    AND ({days})
  UNION ALL
  SELECT f.website_id, f.day, {", ".join("f." + name for name in schema.COLUMN_NAMES)}
  FROM fresh AS f
  WHERE f.copy_no = 1 AND NOT EXISTS (
    SELECT 1 FROM compacted_copies AS d WHERE d.hit_id = f.hit_id
  )
)"""
