"""`scroll_depth` (Plausible's name): how far down its pages visitors scroll, in SQL.

The script's `scroll` part sends, with each engagement, the deepest percent of the page
seen in that page view (`scroll_depth`). A visitor's depth on a page is the deepest of its
engagements there; the metric is the mean of those over the group's visitor-page pairs,
a whole percent (0 where no depth was measured: `answers` gives a null metric as 0). As in
Plausible it needs `event:page` as a dimension or a filter (`query.parse` checks), and goes
with `visitors` and `pageviews` only; compaction's summaries know no depth
(`summaries.plan` is None).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sitelens.analytics.warehouse import raw, schema, sql
from sitelens.analytics.warehouse.query import Query
from sitelens.data import warehouse

METRIC: Final = "scroll_depth"
_METRIC_SQL: Final = {
    "visitors": "COUNT(DISTINCT p.visitor)",
    "pageviews": "CAST(SUM(p.pageviews) AS BIGINT)",
    METRIC: "CAST(ROUND(AVG(s.depth), 0) AS BIGINT)",
}
OTHER_METRICS: Final = tuple(name for name in _METRIC_SQL if name != METRIC)


def asked(query: Query) -> bool:
    return METRIC in query.metrics


def statement(query: Query, dialect: str, stale: raw.SiteDays) -> str:
    """The query's SQL for `dialect`, in `sql.statement`'s shape."""
    engagement = schema.ENGAGEMENT_SQL
    keys = [f"d{n}" for n in range(len(query.dimensions))]
    named = [
        f"{sql.dimension_sql(query, d)} AS {k}" for d, k in zip(query.dimensions, keys, strict=True)
    ]
    # a visitor hash lives one day of its website's zone, which may span midnight UTC
    pair = ["e.website_id", "e.visitor", "e.page"]
    metrics = [f"{_METRIC_SQL[m]} AS m{n}" for n, m in enumerate(query.metrics)]
    order = sql.ordering(query, keys)
    text = f"""
WITH {raw.raw_sql(query, stale)},
matched AS (SELECT * FROM raw AS e WHERE e.name <> {engagement} AND {sql.where(query.filters)}),
pairs AS (
  SELECT {", ".join([*named, *pair])},
    COUNT(*) FILTER (WHERE e.name = {schema.PAGEVIEW_SQL}) AS pageviews
  FROM matched AS e
  GROUP BY {", ".join([*keys, *pair])}
),
depths AS (
  SELECT e.website_id, e.visitor, e.page, MAX(e.scroll_depth) AS depth
  FROM raw AS e WHERE e.name = {engagement} AND e.scroll_depth IS NOT NULL
  GROUP BY e.website_id, e.visitor, e.page
)
SELECT {", ".join([*(f"p.{k} AS {k}" for k in keys), *metrics, "COUNT(*) OVER () AS total_rows"])}
FROM pairs AS p
LEFT JOIN depths AS s
  ON s.website_id = p.website_id AND s.visitor = p.visitor AND s.page = p.page
{f"GROUP BY {', '.join(f'p.{k}' for k in keys)}" if keys else ""}
{f"ORDER BY {order}" if order else ""}
LIMIT {query.limit} OFFSET {query.offset}
"""  # noqa: S608 (names from fixed lists, values quoted by SQLGlot, as in `sql`)
    return raw.rendered(text, dialect)


def rows_from(
    run: Callable[[str], warehouse.Rows], dialect: str
) -> Callable[[Query], warehouse.Rows]:
    """A scroll-depth query's rows from an engine (`raw.engine_rows`)."""
    return raw.engine_rows(statement, run, dialect)


def rows(query: Query) -> warehouse.Rows:
    return rows_from(warehouse.run, warehouse.dialect())(query)
