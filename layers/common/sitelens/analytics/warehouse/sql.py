"""A `Query` as SQL, written once and rendered by SQLGlot to each engine's dialect.

The statement is composed in DuckDB's dialect from names out of the fixed lists of
`dimensions` and `schema` and from values quoted by SQLGlot, then parsed and generated for
the engine ("duckdb" locally, "athena" deployed), so the two engines never run different
logic.

Visits are found at query time: a visitor's rows are ordered by time, and a pageview or
custom event more than `VISIT_GAP_MINUTES` after the previous row starts a new visit
(engagement rows only extend one). A visit's dimensions come from its first pageview, its
duration runs from its first row to its last (an engagement row ends when the page was
left), and it bounces when it has one pageview and no custom event. A visitor hash lives
one day, so no visit crosses midnight UTC; rows continuing the previous day's visit (an
engagement after midnight) count in no visit.
"""

from __future__ import annotations

from typing import Final

import sqlglot
from sqlglot import exp

from sitelens.analytics.warehouse import schema
from sitelens.analytics.warehouse.dimensions import EVENT_DIMENSIONS, VISIT_DIMENSIONS
from sitelens.analytics.warehouse.filters import Condition, Filter
from sitelens.analytics.warehouse.query import Query

VISIT_GAP_MINUTES: Final = 30
# The engine's relations: compacted rows, partitioned by site and day, and rows still in
# landing (partitioned by hour of arrival), which may repeat a hit or one compacted since.
COMPACTED: Final = "events"
LANDING: Final = "landing"
_TIME_UNITS: Final = {
    "time:hour": "hour",
    "time:day": "day",
    "time:week": "week",
    "time:month": "month",
}
# A closed set of words whose case means nothing: shown capitalised as Plausible shows them
# (Desktop, Mobile, Tablet, Other), matched in any case (`mobile`, as the stats API has it).
CASELESS_DIMENSIONS: Final = frozenset({"visit:device"})
# visit columns taken from the visit's first pageview
_VISIT_COLUMNS: Final = tuple(
    column for column in VISIT_DIMENSIONS.values() if column not in ("entry_page", "exit_page")
)


def _text(value: str) -> str:
    return exp.Literal.string(value).sql(dialect="duckdb")


def _column(dimension: str) -> str:
    if dimension in EVENT_DIMENSIONS:
        return f"e.{EVENT_DIMENSIONS[dimension]}"
    column = f"e.v_{VISIT_DIMENSIONS[dimension]}"
    if dimension in CASELESS_DIMENSIONS:  # stored `mobile`, shown as Plausible's `Mobile`
        return f"(UPPER(SUBSTR({column}, 1, 1)) || SUBSTR({column}, 2))"
    return column


def _local_time(query: Query) -> str:
    # UTC instant -> the site's wall clock (DuckDB: TIMESTAMPTZ AT TIME ZONE -> TIMESTAMP)
    return f"((e.ts AT TIME ZONE 'UTC') AT TIME ZONE {_text(query.timezone)})"


def _dimension_sql(query: Query, dimension: str) -> str:
    unit = _TIME_UNITS.get(dimension)
    if unit is None:
        return f"COALESCE({_column(dimension)}, '')"
    truncated = f"DATE_TRUNC('{unit}', {_local_time(query)})"
    pattern = "%Y-%m-%d %H:00:00" if unit == "hour" else "%Y-%m-%d"
    label = f"STRFTIME({truncated}, '{pattern}')"
    if unit == "week":  # a week begun before the range is named by the range's first day
        # (compared as ISO text: Athena's zoned timestamps would compare instants)
        return f"GREATEST({label}, '{query.first_day.isoformat()}')"
    return label


def _condition(condition: Condition) -> str:
    column = f"COALESCE({_column(condition.dimension)}, '')"
    operator = condition.operator
    negated = operator.endswith("_not")
    case_sensitive = condition.case_sensitive and condition.dimension not in CASELESS_DIMENSIONS
    folded = not case_sensitive and not operator.startswith("matches")
    if folded:
        column = f"LOWER({column})"
    tests = []
    for clause in condition.clauses:
        value = clause.lower() if folded else clause
        if operator.startswith("is"):
            tests.append(f"{column} = {_text(value)}")
        elif operator.startswith("contains"):
            tests.append(f"STRPOS({column}, {_text(value)}) > 0")
        else:
            flags = "" if case_sensitive else "(?i)"
            tests.append(f"REGEXP_MATCHES({column}, {_text(flags + value)})")
    matched = "(" + " OR ".join(tests) + ")"
    return f"NOT {matched}" if negated else matched


def _filter(item: Filter) -> str:
    if isinstance(item, Condition):
        return _condition(item)
    parts = [_filter(part) for part in item.parts]
    if item.operator == "not":
        return f"NOT ({parts[0]})"
    return "(" + f" {item.operator.upper()} ".join(parts) + ")"


def _where(filters: tuple[Filter, ...]) -> str:
    return " AND ".join(_filter(item) for item in filters) or "TRUE"


def _raw_sql(query: Query) -> str:
    """`raw`: every row of the range once, compacted or still in landing (a landing row
    whose hit was compacted since, or that came twice, is kept once)."""
    sites = ", ".join(str(site) for site in query.site_ids)
    # a UTC day partition can hold the site's first and last local day: read one more each side
    first_day = (query.start.date()).isoformat()
    last_day = (query.end.date()).isoformat()
    start = query.start.strftime("%Y-%m-%d %H:%M:%S.%f")
    end = query.end.strftime("%Y-%m-%d %H:%M:%S.%f")
    columns = ", ".join(schema.COLUMN_NAMES)
    # names from fixed lists, values quoted by SQLGlot (`_text`), numbers formatted
    in_range = (
        f"website_id IN ({sites}) AND day BETWEEN '{first_day}' AND '{last_day}'"
        f" AND ts >= TIMESTAMP '{start}' AND ts < TIMESTAMP '{end}'"
    )
    # a row lands in the hour it arrives, never before its hit: older hours hold none
    first_hour = query.start.strftime("%Y-%m-%d-%H")
    return f"""
fresh AS (
  SELECT website_id, day, {columns},
    ROW_NUMBER() OVER (PARTITION BY hit_id ORDER BY ts) AS copy_no
  FROM {LANDING}
  WHERE {in_range} AND hour >= '{first_hour}'
),
compacted_copies AS (
  -- landing rows compacted since: joined with the few landing rows on the right, the side
  -- both engines build from, so compacted files are only probed (and pruned by the keys)
  SELECT c.hit_id FROM {COMPACTED} AS c
  JOIN fresh AS f ON c.website_id = f.website_id AND c.day = f.day AND c.hit_id = f.hit_id
),
raw AS (
  SELECT website_id, {columns} FROM {COMPACTED} WHERE {in_range}
  UNION ALL
  SELECT f.website_id, {", ".join("f." + name for name in schema.COLUMN_NAMES)} FROM fresh AS f
  WHERE f.copy_no = 1 AND NOT EXISTS (
    SELECT 1 FROM compacted_copies AS d WHERE d.hit_id = f.hit_id
  )
)"""


def _visits_sql(query: Query) -> str:
    """`hits`: the pageviews and custom events of the range, each with its visit number and
    its visit's dimensions. Engagement rows only give visits their duration: they are no
    event, as in Plausible, so no breakdown, filter or count sees them."""
    pageview = _text(schema.PAGEVIEW)
    engagement = _text(schema.ENGAGEMENT)
    visit_columns = ",\n".join(
        f"ARG_MIN({name}, ts) FILTER (WHERE name = {pageview}) AS v_{name}"
        for name in _VISIT_COLUMNS
    )
    visit_fields = ", ".join(
        f"v.v_{name}"
        for name in (
            "pageviews",
            "interactions",
            "duration",
            "entry_page",
            "exit_page",
            *_VISIT_COLUMNS,
        )
    )
    # rows of one instant in one order on every run: pageviews and events first, then by id
    visitor_order = f"PARTITION BY website_id, visitor ORDER BY ts, name = {engagement}, hit_id"
    return f"""{_raw_sql(query)},
firsts AS (
  SELECT *, MIN(CASE WHEN name <> {engagement} THEN ts END)
    OVER (PARTITION BY website_id, visitor) AS first_event
  FROM raw
),
marked AS (
  SELECT *, CASE WHEN name <> {engagement} AND (
      LAG(ts) OVER ({visitor_order}) IS NULL
      OR ts > LAG(ts) OVER ({visitor_order}) + INTERVAL '{VISIT_GAP_MINUTES}' MINUTE
    ) THEN 1 ELSE 0 END AS starts
  -- engagements before a visitor's first pageview or event of the range end a visit begun
  -- before it: they belong to no visit, and must not keep that pageview from starting one
  FROM firsts WHERE name <> {engagement} OR ts >= first_event
),
numbered AS (
  SELECT *, SUM(starts) OVER (
    {visitor_order} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  ) AS visit_no
  FROM marked
),
visits AS (
  SELECT website_id, visitor, visit_no,
    COUNT(*) FILTER (WHERE name = {pageview}) AS v_pageviews,
    COUNT(*) FILTER (WHERE interactive) AS v_interactions,
    DATE_DIFF('second', MIN(ts), MAX(ts)) AS v_duration,
    ARG_MIN(page, ts) FILTER (WHERE name = {pageview}) AS v_entry_page,
    ARG_MAX(page, ts) FILTER (WHERE name = {pageview}) AS v_exit_page,
    {visit_columns}
  FROM numbered WHERE visit_no > 0
  GROUP BY website_id, visitor, visit_no
),
hits AS (
  SELECT n.*, {visit_fields}
  FROM numbered AS n
  JOIN visits AS v USING (website_id, visitor, visit_no)
  WHERE v.v_pageviews + v.v_interactions > 0 AND n.name <> {engagement}
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
    "pageviews": f"COUNT(*) FILTER (WHERE name = {_text(schema.PAGEVIEW)})",
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
    visits (no visit metric, `visit:` dimension or filter)."""
    named = set(query.dimensions) | {
        name for item in query.filters for name in _filter_dimensions(item)
    }
    return set(query.metrics) <= _EVENT_METRICS and not any(
        name in VISIT_DIMENSIONS for name in named
    )


def statement(query: Query, dialect: str) -> str:
    """The query's SQL for `dialect` ("duckdb" or "athena"): one row per group, the
    dimensions then the metrics in the query's order, then the total row count."""
    dimensions = [_dimension_sql(query, d) for d in query.dimensions]
    named = [f"{sql} AS d{n}" for n, sql in enumerate(dimensions)]
    keys = [f"d{n}" for n in range(len(dimensions))]
    group = ", ".join(keys)
    pageview = _text(schema.PAGEVIEW)
    # goals (top-level event:name "is" filters) narrow the converting visitors, not the base
    goals = tuple(
        f for f in query.filters if isinstance(f, Condition) and f.dimension == "event:name"
    )
    others = tuple(f for f in query.filters if f not in goals)
    metrics = [f"{_METRIC_SQL[m]} AS m{n}" for n, m in enumerate(query.metrics)]
    order = _order(query, keys)
    if _of_events_only(query):
        # Each pageview and custom event is in exactly one visit that counts, so without
        # a visit metric, dimension or filter the visits need not be found at all.
        event_metrics = [
            f"{_EVENT_METRIC_SQL.get(m, _METRIC_SQL[m])} AS m{n}"
            for n, m in enumerate(query.metrics)
        ]
        text = f"""
WITH {_raw_sql(query)},
hits AS (SELECT * FROM raw WHERE name <> {_text(schema.ENGAGEMENT)}),
base AS (SELECT * FROM hits AS e WHERE {_where(others)}),
matched AS (SELECT * FROM hits AS e WHERE {_where(query.filters)})
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
        return sqlglot.parse_one(text, read="duckdb").sql(dialect=dialect)
    text = f"""
WITH {_visits_sql(query)},
base AS (SELECT * FROM hits AS e WHERE {_where(others)}),
matched AS (SELECT * FROM hits AS e WHERE {_where(query.filters)}),
per_visit AS (
  SELECT {", ".join([*named, "website_id", "visitor", "visit_no"])},
    COUNT(*) FILTER (WHERE name = {pageview}) AS pageviews,
    COUNT(*) AS events,
    MAX(v_pageviews) AS v_pageviews, MAX(v_interactions) AS v_interactions,
    MAX(v_duration) AS v_duration
  FROM matched AS e
  GROUP BY {", ".join([*(dimensions), "website_id", "visitor", "visit_no"])}
)
SELECT {", ".join([*keys, *metrics, "COUNT(*) OVER () AS total_rows"])}
FROM per_visit
{f"GROUP BY {group}" if group else ""}
{f"ORDER BY {order}" if order else ""}
LIMIT {query.limit} OFFSET {query.offset}
"""
    parsed = sqlglot.parse_one(text, read="duckdb")
    return parsed.sql(dialect=dialect)


def _order(query: Query, keys: list[str]) -> str:
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
