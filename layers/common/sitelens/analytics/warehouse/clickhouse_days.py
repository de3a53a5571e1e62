"""The per-site-day summaries on ClickHouse: each closed UTC day's `daily_totals`,
`daily_visits` and `daily_pages` (`summaries`' three, same columns, found by the same SQL,
`summaries.found_sql`, over the day's rows in `events FINAL`), so that a month's visit
questions read thirty days of summaries and find visits in raw rows only for the days no
summary answers (today, the partial first and last, days not summarised yet), as on
DuckDB and Athena.

The ingest (`ingest.run`) writes them: once the first landing hour of a later UTC day is
inserted, a day is closed; any hour inserted after holding rows of a closed day (late
rows) makes it summarised again. Which days have their summaries stored is said by
`summarised_days` (a `ReplacingMergeTree` of the day's latest word, read FINAL): a day is
marked not summarised before its late rows go in and while its summaries are replaced
(each summary table partitioned by day: the day's partition dropped, then filled again),
and summarised once the three are written. A query reads stored summaries only for days
marked summarised (`stale_statement`: the other days of its range are `sql`'s `stale`),
so a late row is never missing from an answer, except for a query whose statement runs
in the instant between its look at the marks and the partition's drop (seconds a day at
most, once per late hour).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Final

from sitelens.analytics.warehouse import clickhouse, layout, schema, summaries
from sitelens.analytics.warehouse.query import Query
from sitelens.data.clickhouse import QUERY_SETTINGS

MARKS: Final = "summarised_days"
PLANS: Final[dict[str, summaries.Plan]] = {
    summaries.TOTALS: "totals",
    summaries.VISITS: "visits",
    summaries.PAGES: "pages",
}


def _found(relation: str, day_test: str) -> str:
    """The SELECT of `relation`'s summary of the `events` rows `day_test` selects, in
    ClickHouse's words (`events` read FINAL, visitor keys by its hash)."""
    columns = ", ".join(schema.COLUMN_NAMES)
    text = f"""WITH raw AS (
  SELECT website_id, day, {columns} FROM {layout.COMPACTED} WHERE {day_test}
),
{summaries.found_sql(PLANS[relation], "raw")}
SELECT * FROM found_summary"""  # noqa: S608 (names are ours)
    # the words mean what they mean in a query (`QUERY_SETTINGS`) in any client's statement
    settings = ", ".join(f"{name} = {value!r}" for name, value in QUERY_SETTINGS.items())
    return f"{clickhouse.rendered(text)}\nSETTINGS {settings}"


def create_statements() -> list[str]:
    """The summary tables (their columns' types those `summaries.found_sql` gives, so a
    stored row and one found at query time are one type) and the marks."""
    tables = [
        f"CREATE TABLE IF NOT EXISTS {relation} ENGINE = MergeTree PARTITION BY day "
        f"ORDER BY (website_id, day) EMPTY AS {_found(relation, 'FALSE')}"
        for relation in summaries.COLUMNS
    ]
    marks = f"""CREATE TABLE IF NOT EXISTS {MARKS} (
  day String, summarised UInt8, at DateTime64(6, 'UTC')
) ENGINE = ReplacingMergeTree(at) ORDER BY day"""
    return [*tables, marks]


def mark_statement(days: Iterable[str], summarised: bool) -> str:
    """Mark days summarised (their three summaries stored) or not (raw rows answer them)."""
    flag = int(summarised)
    values = ", ".join(f"({schema.literal(day)}, {flag}, now64(6))" for day in sorted(set(days)))
    return f"INSERT INTO {MARKS} (day, summarised, at) VALUES {values}"  # noqa: S608


def summary_statements(day: str) -> list[str]:
    """Store the UTC day's three summaries, replacing any stored before (the day marked
    not summarised meanwhile: `mark_statement`)."""
    statements: list[str] = []
    for relation in summaries.COLUMNS:
        statements.append(f"ALTER TABLE {relation} DROP PARTITION {schema.literal(day)}")
        found = _found(relation, f"day = {schema.literal(day)}")
        statements.append(f"INSERT INTO {relation} {found}")
    return statements


def days_statement(source: str) -> str:
    """The UTC days of the rows of landing files `source` (a table function), as
    `clickhouse.insert_statement` finds them."""
    return (
        f"SELECT DISTINCT formatDateTime(ts, '%F', 'UTC') AS day FROM {source} "  # noqa: S608
        "ORDER BY day"
    )


def closed_days(previous_hour: str | None, hour: str, touched: Iterable[str]) -> list[str]:
    """The UTC days to summarise once the landing hour `hour` (`YYYY-MM-DD-HH`) is in, the
    one before it being `previous_hour`: the day of the one before when `hour` begins a
    later day (it is closed), and every earlier day the hour's rows touched (late rows)."""
    today = hour[:10]
    days = {day for day in touched if day < today}
    if previous_hour is not None and previous_hour[:10] < today:
        days.add(previous_hour[:10])
    return sorted(days)


def stale_statement(query: Query) -> str:
    """The (website, UTC day) partitions of the query's range that no stored summary
    answers (`sql`'s `stale`): every day of the range not marked summarised."""
    first, last = query.start.date(), query.end.date()
    days = [(first + timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
    listed = ", ".join(schema.literal(day) for day in days)
    sites = ", ".join(str(int(site)) for site in query.site_ids)
    return f"""SELECT website_id, day
FROM (SELECT arrayJoin([{sites}]) AS website_id) AS sites
CROSS JOIN (SELECT arrayJoin([{listed}]) AS day) AS days
WHERE day NOT IN (SELECT day FROM {MARKS} FINAL WHERE summarised = 1)
ORDER BY website_id, day"""  # noqa: S608 (numbers and quoted days)
