"""A `Query` as SQL, written once and rendered by SQLGlot to each engine's dialect.

The statement is composed in DuckDB's dialect from names out of the fixed lists of
`dimensions` and `schema` and from values quoted by SQLGlot, then parsed and generated for
the engine ("duckdb" locally, "athena" or "clickhouse" deployed), so the engines never run
different logic.

Visits are found by the rule of `visits`, at query time over raw rows, or read from the
visits compaction found for each whole UTC day (`summaries`), whichever `summaries.plan`
says answers the query exactly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from sitelens.analytics import sources
from sitelens.analytics.warehouse import (
    channels,
    clickhouse,
    props,
    raw,
    schema,
    summaries,
    visits,
)
from sitelens.analytics.warehouse.dimensions import (
    EVENT_DIMENSIONS,
    IDENTITY_DIMENSIONS,
    SOURCE_DIMENSIONS,
    VISIT_DIMENSIONS,
)
from sitelens.analytics.warehouse.filters import Condition, Filter
from sitelens.analytics.warehouse.query import Query
from sitelens.analytics.warehouse.raw import SiteDays, stale_statement
from sitelens.data import warehouse

# `visits.VISITOR_KEY` in Athena's words (Trino has no `hash`)
ATHENA_VISITOR_KEY: Final = "FROM_BIG_ENDIAN_64(XXHASH64(TO_UTF8({visitor})))"
_TIME_UNITS: Final = {
    "time:hour": "hour",
    "time:day": "day",
    "time:week": "week",
    "time:month": "month",
}
# A closed set of words whose case means nothing: shown capitalised as Plausible shows them
# (Desktop, Mobile, Tablet, Other), matched in any case (`mobile`, as the stats API has it).
CASELESS_DIMENSIONS: Final = frozenset({"visit:device"})


def _column(dimension: str) -> str:
    if props.is_props(dimension):
        return props.column(dimension)
    if dimension in EVENT_DIMENSIONS:
        return f"e.{EVENT_DIMENSIONS[dimension]}"
    if VISIT_DIMENSIONS[dimension] == "channel":  # found from the visit's other columns
        return channels.sql("e.v_")
    column = f"e.v_{VISIT_DIMENSIONS[dimension]}"
    if dimension in CASELESS_DIMENSIONS:  # stored `mobile`, shown as Plausible's `Mobile`
        return f"(UPPER(SUBSTR({column}, 1, 1)) || SUBSTR({column}, 2))"
    return column


def _local_time(query: Query) -> str:
    # UTC instant -> the site's wall clock (DuckDB: TIMESTAMPTZ AT TIME ZONE -> TIMESTAMP)
    return f"((e.ts AT TIME ZONE 'UTC') AT TIME ZONE {schema.literal(query.timezone)})"


def dimension_sql(query: Query, dimension: str, summary: bool = False) -> str:
    """A dimension's value of a row; of a summary's row (`summary`: the zone's wall clock is
    UTC all range long, and time buckets hold whole UTC days), read from its UTC day."""
    unit = _TIME_UNITS.get(dimension)
    if unit is None:
        return f"COALESCE({_column(dimension)}, '')"
    if summary and unit == "day":
        return "e.day"
    moment = "CAST(e.day AS DATE)" if summary else _local_time(query)
    truncated = f"DATE_TRUNC('{unit}', {moment})"
    pattern = "%Y-%m-%d %H:00:00" if unit == "hour" else "%Y-%m-%d"
    label = f"STRFTIME({truncated}, '{pattern}')"
    if unit == "week":  # a week begun before the range is named by the range's first day
        # (compared as ISO text: Athena's zoned timestamps would compare instants)
        return f"GREATEST({label}, '{query.first_day.isoformat()}')"
    return label


def _condition(condition: Condition) -> str:
    bare = _column(condition.dimension)
    column = f"COALESCE({bare}, '')"
    operator = condition.operator
    negated = operator.endswith("_not")
    case_sensitive = condition.case_sensitive and condition.dimension not in CASELESS_DIMENSIONS
    folded = not case_sensitive and not operator.startswith("matches")
    if folded:
        column = f"LOWER({column})"
    tests = []
    for clause in condition.clauses:
        if clause == sources.NONE and condition.dimension in SOURCE_DIMENSIONS:
            clause = ""  # Plausible's label of no source: the empty value
        value = clause.lower() if folded else clause
        if operator.startswith("is") and value and not folded:
            # COALESCE's answer, NULL-safe (under NOT too), on the bare column: the engine
            # tests it inside the Parquet scan, a tenth of a filtered raw query's time
            tests.append(f"{bare} IS NOT DISTINCT FROM {schema.literal(value)}")
        elif operator.startswith("is"):
            tests.append(f"{column} = {schema.literal(value)}")
        elif operator.startswith("contains"):
            tests.append(f"STRPOS({column}, {schema.literal(value)}) > 0")
        else:
            flags = "" if case_sensitive else "(?i)"
            tests.append(f"REGEXP_MATCHES({column}, {schema.literal(flags + value)})")
    matched = "(" + " OR ".join(tests) + ")"
    return f"NOT {matched}" if negated else matched


def _filter(item: Filter) -> str:
    if isinstance(item, Condition):
        return _condition(item)
    parts = [_filter(part) for part in item.parts]
    if item.operator == "not":
        return f"NOT ({parts[0]})"
    return "(" + f" {item.operator.upper()} ".join(parts) + ")"


def where(filters: tuple[Filter, ...]) -> str:
    """The filters as one SQL condition over rows aliased `e` (TRUE for none)."""
    return " AND ".join(_filter(item) for item in filters) or "TRUE"


def visits_sql(query: Query, stale: SiteDays) -> str:
    """`hits`: the pageviews and custom events of the range, each with its visit number and
    its visit's dimensions. Engagement rows only give visits their duration: they are no
    event, as in Plausible, so no breakdown, filter or count sees them."""
    visit_fields = ", ".join(f"v.{name}" for name in visits.COLUMN_NAMES if name.startswith("v_"))
    return f"""{raw.raw_sql(query, stale)},
{visits.ctes("raw")},
hits AS (
  SELECT n.*, {visit_fields}
  FROM numbered AS n
  JOIN found_visits AS v USING (website_id, day, visitor, visit_no)
  WHERE n.name <> {schema.ENGAGEMENT_SQL}
)"""


_METRIC_SQL: Final = {
    "visitors": "COUNT(DISTINCT visitor)",
    "visits": "COUNT(*)",
    "pageviews": "SUM(pageviews)",
    "events": "SUM(events)",
    "views_per_visit": "ROUND(CAST(SUM(v_pageviews) AS DOUBLE) / NULLIF(COUNT(*), 0), 2)",
    "bounce_rate": (
        "ROUND(100.0 * SUM(CASE WHEN v_pageviews = 1 AND v_interactions = 0 THEN 1 ELSE 0 END)"
        " / NULLIF(COUNT(*), 0), 1)"
    ),
    "visit_duration": "CAST(ROUND(AVG(v_duration), 0) AS BIGINT)",
    "percentage": (
        "ROUND(100.0 * COUNT(DISTINCT visitor) / NULLIF((SELECT COUNT(DISTINCT visitor)"
        " FROM matched), 0), 1)"
    ),
    "conversion_rate": (
        "ROUND(100.0 * COUNT(DISTINCT visitor) / NULLIF((SELECT COUNT(DISTINCT visitor)"
        " FROM base), 0), 1)"
    ),
}


# Metrics counted from rows alone, and how, when no visit needs to be found.
_EVENT_METRIC_SQL: Final = {
    "pageviews": f"COUNT(*) FILTER (WHERE name = {schema.PAGEVIEW_SQL})",
    "events": "COUNT(*)",
}
_EVENT_METRICS: Final = frozenset(
    {"visitors", "pageviews", "events", "percentage", "conversion_rate"}
)


def _filter_dimensions(item: Filter) -> set[str]:
    if isinstance(item, Condition):
        return {item.dimension}
    return {name for part in item.parts for name in _filter_dimensions(part)}


def _of_events_only(query: Query) -> bool:
    """Whether every metric, dimension and filter of the query is one of rows, not of
    visits (no visit metric, and no `visit:` dimension or filter but those every row of a
    visitor has, `IDENTITY_DIMENSIONS`)."""
    named = set(query.dimensions) | {
        name for item in query.filters for name in _filter_dimensions(item)
    }
    return set(query.metrics) <= _EVENT_METRICS and not any(
        name in VISIT_DIMENSIONS and name not in IDENTITY_DIMENSIONS for name in named
    )


# The identity dimensions under their visit names, read from each row
_ROW_IDENTITY: Final = ", ".join(
    f"{VISIT_DIMENSIONS[name]} AS v_{VISIT_DIMENSIONS[name]}"
    for name in sorted(IDENTITY_DIMENSIONS)
)


def _total(column: str) -> str:
    """A count added up over summary rows, an integer (0 over none)."""
    return f"CAST(COALESCE(SUM({column}), 0) AS BIGINT)"


# How a metric is counted from summary rows (a day, a visit or a day's page), where it differs
_SUMMARY_METRIC_SQL: Final = {
    "visits": {**_METRIC_SQL, "pageviews": _total("v_pageviews"), "events": _total("v_events")},
    "pages": {name: _total(name) for name in ("visitors", "pageviews", "events")},
    "totals": {
        **{name: _total(name) for name in ("visitors", "visits", "pageviews", "events")},
        "views_per_visit": "ROUND(CAST(SUM(pageviews) AS DOUBLE) / NULLIF(SUM(visits), 0), 2)",
        "bounce_rate": "ROUND(100.0 * SUM(bounces) / NULLIF(SUM(visits), 0), 1)",
        "visit_duration": (
            "CAST(ROUND(CAST(SUM(duration) AS DOUBLE) / NULLIF(SUM(visits), 0), 0) AS BIGINT)"
        ),
    },
}


def _summary_sql(query: Query, plan: summaries.Plan, stale: SiteDays) -> str:
    """The rows of a query `summaries.plan` says a summary answers: the summaries of the
    range's whole UTC days with no row still in landing or in parts, and the same summary
    found from raw rows for the other days (the partial first and last, and those with rows
    not merged yet; on ClickHouse, those not summarised yet: `clickhouse_days`)."""
    first, last = summaries.whole_days(query)
    sites = ", ".join(str(site) for site in query.site_ids)
    relation = {"totals": summaries.TOTALS, "visits": summaries.VISITS}.get(plan, summaries.PAGES)
    columns = ", ".join(name for name, _ in summaries.COLUMNS[relation])
    summarised = f"""
  UNION ALL
  SELECT website_id, day, {columns} FROM {relation}
  WHERE website_id IN ({sites}) AND day BETWEEN '{first}' AND '{last}'
    AND NOT {raw.site_days(stale)}"""
    found = f"""{summaries.found_sql(plan, "raw")},
summary AS (SELECT * FROM found_summary{summarised}
)"""
    # raw rows of the partitions no summary answers
    days = f"day < '{first}' OR day > '{last}' OR {raw.site_days(stale)}"
    return f"""{raw.raw_sql(query, stale, days)},
{found}"""


def _rendered(text: str, dialect: str) -> str:
    """DuckDB-dialect text as `dialect`'s SQL, each `VISITOR_KEY` call (a visitor hash as a
    number, as compaction stores it: `visits.VISITOR_KEY`) in that engine's words. The two
    engines' numbers differ, but all the visitors of one day come from one of them."""
    if dialect == clickhouse.DIALECT:  # its own words, its VISITOR_KEY among them
        return raw.rendered(text, dialect)
    if dialect == "duckdb":  # as it is (`raw.rendered`), with the calls written out
        return re.sub(
            r"VISITOR_KEY\(([^()]*)\)", lambda m: visits.VISITOR_KEY.format(visitor=m[1]), text
        )
    import sqlglot  # imported here: see `schema.literal`
    from sqlglot import exp

    parsed = sqlglot.parse_one(text, read="duckdb")

    def engine_words(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Anonymous) and node.name.upper() == "VISITOR_KEY":
            argument = node.expressions[0].sql(dialect=dialect)
            words = ATHENA_VISITOR_KEY.format(visitor=argument)
            return exp.maybe_parse(words, dialect=dialect)
        return node

    return parsed.transform(engine_words).sql(dialect=dialect)


def statement(query: Query, dialect: str, stale: SiteDays) -> str:
    """The query's SQL for `dialect` ("duckdb", "athena" or "clickhouse"): one row per
    group, the dimensions then the metrics in the query's order, then the total row count.
    `stale`: the range's partitions with rows still in landing or in parts
    (`stale_statement`)."""
    # every engine keeps the summaries of closed days (ClickHouse's: `clickhouse_days`)
    plan = summaries.plan(query)
    # a summary answers a breakdown by time only where the zone is UTC all range long
    dimensions = [dimension_sql(query, d, plan is not None) for d in query.dimensions]
    named = [f"{sql} AS d{n}" for n, sql in enumerate(dimensions)]
    keys = [f"d{n}" for n in range(len(dimensions))]
    group = ", ".join(keys)
    pageview = schema.PAGEVIEW_SQL
    # goals (top-level event:name "is" filters) narrow the converting visitors, not the base
    goals = tuple(
        f for f in query.filters if isinstance(f, Condition) and f.dimension == "event:name"
    )
    others = tuple(f for f in query.filters if f not in goals)
    metrics = [f"{_METRIC_SQL[m]} AS m{n}" for n, m in enumerate(query.metrics)]
    order = ordering(query, keys)
    if plan is not None:
        counted = _SUMMARY_METRIC_SQL[plan]
        summary_metrics = [f"{counted[m]} AS m{n}" for n, m in enumerate(query.metrics)]
        text = f"""
WITH {_summary_sql(query, plan, stale)},
matched AS (SELECT * FROM summary AS e WHERE {where(query.filters)})
SELECT {", ".join([*named, *summary_metrics, "COUNT(*) OVER () AS total_rows"])}
FROM matched AS e
{f"GROUP BY {', '.join(dimensions)}" if dimensions else ""}
{f"ORDER BY {order}" if order else ""}
LIMIT {query.limit} OFFSET {query.offset}
"""
        return _rendered(text, dialect)
    if _of_events_only(query):
        # Each pageview and custom event is in exactly one visit that counts, so without
        # a visit metric, dimension or filter the visits need not be found at all.
        event_metrics = [
            f"{_EVENT_METRIC_SQL.get(m, _METRIC_SQL[m])} AS m{n}"
            for n, m in enumerate(query.metrics)
        ]
        text = f"""
WITH {raw.raw_sql(query, stale)},
hits AS (SELECT *, {_ROW_IDENTITY} FROM raw WHERE name <> {schema.ENGAGEMENT_SQL}),
base AS (SELECT * FROM hits AS e WHERE {where(others)}),
matched AS (SELECT * FROM hits AS e WHERE {where(query.filters)})
SELECT {
            ", ".join(
                [
                    *(f"{sql} AS {key}" for sql, key in zip(dimensions, keys, strict=True)),
                    *event_metrics,
                    "COUNT(*) OVER () AS total_rows",
                ]
            )
        }
FROM matched AS e
{f"GROUP BY {', '.join(dimensions)}" if dimensions else ""}
{f"ORDER BY {order}" if order else ""}
LIMIT {query.limit} OFFSET {query.offset}
"""
        return raw.rendered(text, dialect)
    text = f"""
WITH {visits_sql(query, stale)},
base AS (SELECT * FROM hits AS e WHERE {where(others)}),
matched AS (SELECT * FROM hits AS e WHERE {where(query.filters)}),
per_visit AS (
  SELECT {", ".join([*named, "website_id", "day", "visitor", "visit_no"])},
    COUNT(*) FILTER (WHERE name = {pageview}) AS pageviews,
    COUNT(*) AS events,
    MAX(v_pageviews) AS v_pageviews, MAX(v_interactions) AS v_interactions,
    MAX(v_duration) AS v_duration
  FROM matched AS e
  GROUP BY {", ".join([*(dimensions), "website_id", "day", "visitor", "visit_no"])}
)
SELECT {", ".join([*keys, *metrics, "COUNT(*) OVER () AS total_rows"])}
FROM per_visit
{f"GROUP BY {group}" if group else ""}
{f"ORDER BY {order}" if order else ""}
LIMIT {query.limit} OFFSET {query.offset}
"""
    return raw.rendered(text, dialect)


def ordering(query: Query, keys: list[str]) -> str:
    """The requested order, then Plausible's default (time ascending, else the first metric
    descending), then every dimension ascending so that pages never overlap."""
    names = {d: k for d, k in zip(query.dimensions, keys, strict=True)}
    names.update({m: f"m{n}" for n, m in enumerate(query.metrics)})
    order = [(names[name], direction) for name, direction in query.order_by]
    time_key = names.get(query.time_dimension or "")
    default = [(time_key, "asc")] if time_key else [("m0", "desc")]
    for key, direction in [*default, *((k, "asc") for k in keys)]:
        if all(key != chosen for chosen, _ in order):
            order.append((key, direction))
    return ", ".join(f"{key} {direction.upper()}" for key, direction in order)


def rows_from(run: Callable[[str], warehouse.Rows], dialect: str) -> Callable[[Query], Any]:
    """A query's rows from an engine (`run` a statement in `dialect`). The partitions with
    rows still in landing or in parts are found first (one small query on them alone), so the
    statement names every partition it reads by constants, which both engines prune by."""

    def rows(query: Query) -> warehouse.Rows:
        found = run(stale_statement(query, dialect))
        stale = tuple((int(site), str(day)) for site, day in found)
        return run(statement(query, dialect, stale))

    return rows


def rows(query: Query) -> warehouse.Rows:
    """A query's rows from the engine in use (`rows_from`)."""
    return rows_from(warehouse.run, warehouse.dialect())(query)
