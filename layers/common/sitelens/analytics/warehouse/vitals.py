"""Core Web Vitals in the query API: `p75_lcp`, `p75_inp`, `p75_cls`, `p75_fcp`,
`p75_ttfb` (the 75th percentile of the page views that measured it, as Google's field
data reports them: milliseconds, CLS as a score) and each vital's shares of good, needs
improvement and poor page views (`lcp_good`, `lcp_needs_improvement`, `lcp_poor`, a
percent), by Google's thresholds. They are read from the engagement rows that carry
vitals (`analytics.vitals`), which also carry the page view's device and country, so the
dimensions are `event:page`, `visit:device`, `visit:country` and time; other metrics do
not go with them (`query.parse` checks). DuckDB's percentile is exact, Athena's
APPROX_PERCENTILE within about 1%.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sitelens.analytics.vitals import CLS_SCALE, NAMES
from sitelens.analytics.warehouse import raw, schema, sql
from sitelens.analytics.warehouse.query import VITAL_METRICS, Query
from sitelens.data import warehouse

# Google's thresholds (web.dev/articles/vitals): good at most the first, poor above the second
THRESHOLDS: Final = {
    "lcp": (2500, 4000),
    "inp": (200, 500),
    "cls": (0.1 * CLS_SCALE, 0.25 * CLS_SCALE),
    "fcp": (1800, 3000),
    "ttfb": (800, 1800),
}
METRICS: Final = VITAL_METRICS
DIMENSIONS: Final = ("event:page", "visit:device", "visit:country")
_P75: Final = "P75_OF"  # rendered per engine: DuckDB's exact, Athena's approximate


def asked(query: Query) -> bool:
    return any(metric in METRICS for metric in query.metrics)


def _metric_sql(metric: str) -> str:
    if metric.startswith("p75_"):
        name = metric[4:]
        value = f"{_P75}(vital_{name})"
        if name == "cls":
            return f"ROUND(CAST({value} AS DOUBLE) / {CLS_SCALE}, 3)"
        return f"CAST(ROUND({value}, 0) AS BIGINT)"
    name, share = metric.split("_", 1)
    column = f"vital_{name}"
    if share == "samples":  # not a metric of the API: how many page views measured it
        return f"COUNT({column})"
    good, poor = THRESHOLDS[name]
    test = {
        "good": f"{column} <= {good}",
        "needs_improvement": f"{column} > {good} AND {column} <= {poor}",
        "poor": f"{column} > {poor}",
    }[share]
    return f"ROUND(100.0 * COUNT(*) FILTER (WHERE {test}) / NULLIF(COUNT({column}), 0), 1)"


def statement(query: Query, dialect: str, stale: raw.SiteDays) -> str:
    """The query's SQL for `dialect`, in `sql.statement`'s shape."""
    keys = [f"d{n}" for n in range(len(query.dimensions))]
    dimensions = [sql.dimension_sql(query, d) for d in query.dimensions]
    measured = " OR ".join(f"vital_{name} IS NOT NULL" for name in NAMES)
    metrics = [f"{_metric_sql(m)} AS m{n}" for n, m in enumerate(query.metrics)]
    order = sql.ordering(query, keys)
    columns = [*(f"{d} AS {k}" for d, k in zip(dimensions, keys, strict=True)), *metrics]
    text = f"""
WITH {raw.raw_sql(query, stale)},
views AS (
  SELECT *, device AS v_device, country AS v_country FROM raw
  WHERE name = {schema.ENGAGEMENT_SQL} AND ({measured})
)
SELECT {", ".join([*columns, "COUNT(*) OVER () AS total_rows"])}
FROM views AS e WHERE {sql.where(query.filters)}
{f"GROUP BY {', '.join(dimensions)}" if dimensions else ""}
{f"ORDER BY {order}" if order else ""}
LIMIT {query.limit} OFFSET {query.offset}
"""  # noqa: S608 (names from fixed lists, values quoted by SQLGlot, as in `sql`)
    percentile = "QUANTILE_CONT({}, 0.75)" if dialect == "duckdb" else "APPROX_PERCENTILE({}, 0.75)"
    for name in NAMES:
        text = text.replace(f"{_P75}(vital_{name})", percentile.format(f"vital_{name}"))
    return raw.rendered(text, dialect)


def rows_from(
    run: Callable[[str], warehouse.Rows], dialect: str
) -> Callable[[Query], warehouse.Rows]:
    """A vitals query's rows from an engine (`raw.engine_rows`)."""
    return raw.engine_rows(statement, run, dialect)


def rows(query: Query) -> warehouse.Rows:
    return rows_from(warehouse.run, warehouse.dialect())(query)
