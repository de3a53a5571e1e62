"""Search Console's metrics in the query API (docs/search-console.md): `clicks`,
`impressions`, `ctr` and `position`, by `search:query`, `search:page` (the page's URL as
Search Console gives it), `event:page` (that URL's path: joined with the site's own
events) and time, over the rows the import stored (`data.search_console`), one table a site.

- `ctr` is a percentage (clicks / impressions x 100, two decimals), as Plausible gives its
  rates; `position` the impression-weighted mean of the rows' positions (one decimal).
  Both are computed from the stored rows (by page, query, country and device), so a total
  can differ a little from Search Console's own by-property figures.
- Joined: `visitors`, `visits` and `pageviews` may be asked beside them, by `event:page`
  and time only: the events' query and the search rows' are each run, then matched on the
  page's path (and the time bucket); a page with one side only shows 0 for the other.
- Engines: DuckDB under `make serve` (the site's day files in place), Athena deployed (the
  stack's `search_console` table, projected by site and day). ClickHouse does not hold
  them: a query of them there is a 400 saying so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, Final

from sitelens.analytics.warehouse import filters, raw
from sitelens.analytics.warehouse.filters import Filter
from sitelens.analytics.warehouse.query import SEARCH_METRICS, Query
from sitelens.core import errors
from sitelens.data import search_console as stored
from sitelens.data import warehouse

JOIN_ROWS: Final = 100_000  # each side of a join is read whole, up to this many groups
_PATH_SQL: Final = "coalesce(regexp_extract(r.page, '^[a-z]+://[^/]+(/[^?#]*)', 1), '/')"
_COLUMNS: Final = {"search:query": "r.query", "search:page": "r.page", "event:page": _PATH_SQL}
_METRIC_SQL: Final = {
    "clicks": "CAST(SUM(r.clicks) AS BIGINT)",
    "impressions": "CAST(SUM(r.impressions) AS BIGINT)",
    "ctr": "ROUND(100.0 * SUM(r.clicks) / NULLIF(SUM(r.impressions), 0), 2)",
    "position": "ROUND(SUM(r.position * r.impressions) / NULLIF(SUM(r.impressions), 0), 1)",
}


class Unanswered(errors.ApiError):
    """400: the engine in use does not hold Search Console's rows."""

    status = 400

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.message = {"metrics": [sentence]}


def asked(query: Query) -> bool:
    return any(metric in SEARCH_METRICS for metric in query.metrics)


def statement(query: Query, dialect: str, files: Sequence[str]) -> str:
    """The query's SQL over the sites' rows: `files` under DuckDB, the table elsewhere."""
    keys = [f"d{n}" for n in range(len(query.dimensions))]
    named = [f"{_dimension(query, d)} AS {k}" for d, k in zip(query.dimensions, keys, strict=True)]
    metrics = [f"{_METRIC_SQL[m]} AS m{n}" for n, m in enumerate(query.metrics)]
    sites = ", ".join(str(int(site)) for site in query.site_ids)
    if dialect == "duckdb":
        listed = ", ".join(f"'{path}'" for path in files)  # our own paths: no quote in them
        source = f"read_parquet([{listed}], hive_partitioning = true)" if files else _EMPTY
    else:
        source = stored.TABLE
    conditions = [
        f"CAST(r.website_id AS BIGINT) IN ({sites})",
        f"CAST(r.day AS VARCHAR) >= '{query.first_day.isoformat()}'",
        f"CAST(r.day AS VARCHAR) <= '{query.last_day.isoformat()}'",
        *(_condition(item) for item in query.filters),
    ]
    order = _ordering(query, keys)
    text = f"""
SELECT {", ".join([*named, *metrics, "COUNT(*) OVER () AS total_rows"])}
FROM {source} AS r
WHERE {" AND ".join(conditions)}
{f"GROUP BY {', '.join(keys)}" if keys else ""}
ORDER BY {order}
LIMIT {query.limit} OFFSET {query.offset}
"""  # noqa: S608 (names from fixed lists, values quoted by `_literal`, ids formatted)
    return raw.rendered(text, dialect)


_EMPTY: Final = (
    "(SELECT CAST(NULL AS BIGINT) AS website_id, CAST(NULL AS VARCHAR) AS day, "
    "CAST(NULL AS VARCHAR) AS page, CAST(NULL AS VARCHAR) AS query, CAST(0 AS BIGINT) AS clicks, "
    "CAST(0 AS BIGINT) AS impressions, CAST(0 AS DOUBLE) AS position WHERE FALSE)"
)


def _dimension(query: Query, dimension: str) -> str:
    day = "CAST(CAST(r.day AS VARCHAR) AS DATE)"
    if dimension == "time:day":
        return f"CAST({day} AS VARCHAR)"
    if dimension == "time:month":
        return f"CAST(DATE_TRUNC('month', {day}) AS VARCHAR)"
    if dimension == "time:week":  # Monday, or the range's first day (`answers.time_labels`)
        first = f"CAST('{query.first_day.isoformat()}' AS DATE)"
        return f"CAST(GREATEST(CAST(DATE_TRUNC('week', {day}) AS DATE), {first}) AS VARCHAR)"
    return _COLUMNS[dimension]


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _condition(item: Filter) -> str:
    assert isinstance(item, filters.Condition)  # `query._check_search` allows no other
    column = _COLUMNS[item.dimension]
    if not item.case_sensitive:
        column = f"LOWER({column})"
    values = [value if item.case_sensitive else value.lower() for value in item.clauses]
    if item.operator in ("is", "is_not"):
        test = f"{column} IN ({', '.join(_literal(v) for v in values)})"
    else:
        test = " OR ".join(f"STRPOS({column}, {_literal(v)}) > 0" for v in values)
    return f"({test})" if item.operator in ("is", "contains") else f"NOT ({test})"


def _ordering(query: Query, keys: list[str]) -> str:
    names = {d: k for d, k in zip(query.dimensions, keys, strict=True)}
    names.update({m: f"m{n}" for n, m in enumerate(query.metrics)})
    order = [(names[name], direction) for name, direction in query.order_by if name in names]
    time_key = names.get(query.time_dimension or "")
    default = [(time_key, "asc")] if time_key else [("m0", "desc")]
    for key, direction in [*default, *((k, "asc") for k in keys)]:
        if all(key != chosen for chosen, _ in order):
            order.append((key, direction))
    return ", ".join(f"{key} {direction.upper()}" for key, direction in order)


def search_rows(query: Query) -> warehouse.Rows:
    """The rows of a query of search metrics alone, from the engine in use."""
    dialect = warehouse.dialect()
    if dialect == "clickhouse":
        raise Unanswered(
            "Search Console's metrics are not in ClickHouse: ask them of a stack whose "
            "warehouse is Athena (docs/search-console.md)."
        )
    files = [
        str(path) for path in stored.local_files(query.site_ids, query.first_day, query.last_day)
    ]
    return warehouse.run(statement(query, dialect, files))


def rows_from(events: Callable[[Query], warehouse.Rows]) -> Callable[[Query], warehouse.Rows]:
    """A query's rows: the search rows alone, or joined with the events' (`events` answers
    the events' side, the query API's own source for it)."""

    def rows(query: Query) -> warehouse.Rows:
        others = tuple(m for m in query.metrics if m not in SEARCH_METRICS)
        if not others:
            return search_rows(query)
        return _joined(query, others, events)

    return rows


def _joined(
    query: Query, others: tuple[str, ...], events: Callable[[Query], warehouse.Rows]
) -> list[tuple[Any, ...]]:
    """Both sides whole (no paging), matched on the dimensions, then ordered and paged."""
    searched = tuple(m for m in query.metrics if m in SEARCH_METRICS)
    whole = dataclasses.replace(query, limit=JOIN_ROWS, offset=0, order_by=())
    width = len(query.dimensions)
    side_a = search_rows(dataclasses.replace(whole, metrics=searched))
    side_b = events(dataclasses.replace(whole, metrics=others))
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for found, names in ((side_a, searched), (side_b, others)):
        for row in found:
            key = tuple(str(value) for value in row[:width])
            merged.setdefault(key, {}).update(zip(names, row[width:], strict=False))
    rows = [
        (*key, *((values.get(m) or 0) for m in query.metrics)) for key, values in merged.items()
    ]
    for name, direction in reversed(_ordered(query)):
        position = (
            query.dimensions.index(name)
            if name in query.dimensions
            else width + query.metrics.index(name)
        )
        rows.sort(key=lambda row, at=position: row[at], reverse=direction == "desc")  # type: ignore[misc]
    total = len(rows)
    return [(*row, total) for row in rows[query.offset : query.offset + query.limit]]


def _ordered(query: Query) -> list[tuple[str, str]]:
    order = list(query.order_by)
    default = (
        [(query.time_dimension, "asc")] if query.time_dimension else [(query.metrics[0], "desc")]
    )
    for name, direction in [*default, *((d, "asc") for d in query.dimensions)]:
        if name and all(name != chosen for chosen, _ in order):
            order.append((name, direction))
    return order
