"""Queries about goals (`event:goal` as a dimension or a filter) as SQL, with Plausible's
metrics: `visitors` who completed a goal, `events` (its completions) and
`conversion_rate`, those visitors as a percentage of all visitors of the same group.

The rows are the query's pageviews and custom events (with their visits' dimensions when
it names one) under its other filters: `base`. A goal's completions are the base rows that
match it (`goals.matches_sql`); with `event:goal` as a dimension each goal is a group of
its own (a row completing two goals counts for each), as a filter the selected goals'
completions count together. `conversion_rate` divides by the distinct visitors of the base
rows of the same other dimensions (the whole base without any), as Plausible's goal
breakdown and its conversion-rate graph do. Compaction's summaries hold no goal, so these
queries read raw rows (`summaries.plan` answers None for them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sitelens.analytics.warehouse import goals, raw, revenue, schema, sql
from sitelens.analytics.warehouse.dimensions import GOAL_DIMENSION, VISIT_DIMENSIONS
from sitelens.analytics.warehouse.filters import Condition, Filter
from sitelens.analytics.warehouse.query import Query
from sitelens.data import warehouse

_METRIC_SQL: Final = {
    "visitors": "COUNT(DISTINCT c.visitor)",
    "events": "COUNT(*)",
    "conversion_rate": (
        "ROUND(100.0 * COUNT(DISTINCT c.visitor) / NULLIF(MAX(t.total_visitors), 0), 1)"
    ),
    **revenue.METRIC_SQL,
}


def asked(query: Query) -> bool:
    """Whether the query is about goals (and answered here)."""
    return goals.asked(query.dimensions, query.filters)


def _names(item: Filter) -> set[str]:
    if isinstance(item, Condition):
        return {item.dimension}
    return {name for part in item.parts for name in _names(part)}


def _needs_visits(query: Query) -> bool:
    named = set(query.dimensions) | {n for item in query.filters for n in _names(item)}
    return any(name in VISIT_DIMENSIONS for name in named)


def hits_sql(query: Query, stale: raw.SiteDays) -> str:
    """`hits`: the range's pageviews and custom events (with their visits' dimensions when
    the query names one)."""
    if _needs_visits(query):
        return sql.visits_sql(query, stale)
    return f"""{raw.raw_sql(query, stale)},
hits AS (SELECT * FROM raw WHERE name <> {schema.ENGAGEMENT_SQL})"""


def _completions_sql(query: Query, selected: tuple[goals.Goal, ...]) -> str:
    """`completions`: base rows that complete a selected goal, with its name as `goal`."""
    if not selected:
        return (
            f"completions AS (SELECT '' AS goal, {revenue.NONE} AS revenue, e.* FROM base AS e"
            " WHERE FALSE)"
        )
    if GOAL_DIMENSION in query.dimensions:
        branches = [
            f"SELECT {schema.literal(goal.name)} AS goal, {revenue.of_goal_sql(goal)} AS revenue,"
            f" e.* FROM base AS e WHERE {goals.matches_sql(goal)}"
            for goal in selected
        ]
        return "completions AS (\n  " + "\n  UNION ALL ".join(branches) + "\n)"
    matched = " OR ".join(goals.matches_sql(goal) for goal in selected)
    return (
        f"completions AS (SELECT '' AS goal, {revenue.of_goals_sql(selected)} AS revenue, e.*"
        f" FROM base AS e WHERE {matched})"
    )


def statement(query: Query, dialect: str, stale: raw.SiteDays) -> str:
    """The query's SQL for `dialect`, in `sql.statement`'s shape: one row per group, its
    dimensions, its metrics, then the number of groups."""
    selected = goals.selected(query.goals, query.filters)
    others = tuple(item for item in query.filters if not goals.is_goal_filter(item))
    keys = [f"d{n}" for n in range(len(query.dimensions))]
    values = [
        "e.goal" if d == GOAL_DIMENSION else sql.dimension_sql(query, d) for d in query.dimensions
    ]
    # the group a conversion rate divides by: the other dimensions
    grouped = [
        (key, value)
        for key, value, name in zip(keys, values, query.dimensions, strict=True)
        if name != GOAL_DIMENSION
    ]
    totalled = [
        *(f"{value} AS {key}" for key, value in grouped),
        "COUNT(DISTINCT visitor) AS total_visitors",
    ]
    total_group = f"GROUP BY {', '.join(v for _, v in grouped)}" if grouped else ""
    joined = " AND ".join(f"t.{k} = c.{k}" for k, _ in grouped) or "TRUE"
    metrics = [f"{_METRIC_SQL[m]} AS m{n}" for n, m in enumerate(query.metrics)]
    order = sql.ordering(query, keys)
    converted = [
        *(f"{value} AS {key}" for key, value in zip(keys, values, strict=True)),
        "e.visitor",
        "e.revenue",
    ]
    text = f"""
WITH {hits_sql(query, stale)},
base AS (SELECT * FROM hits AS e WHERE {sql.where(others)}),
totals AS (SELECT {", ".join(totalled)} FROM base AS e {total_group}),
{_completions_sql(query, selected)},
converted AS (SELECT {", ".join(converted)} FROM completions AS e)
SELECT {", ".join([*(f"c.{k} AS {k}" for k in keys), *metrics, "COUNT(*) OVER () AS total_rows"])}
FROM converted AS c JOIN totals AS t ON {joined}
{f"GROUP BY {', '.join(f'c.{k}' for k in keys)}" if keys else ""}
{f"ORDER BY {order}" if order else ""}
LIMIT {query.limit} OFFSET {query.offset}
"""
    return raw.rendered(text, dialect)


def rows_from(
    run: Callable[[str], warehouse.Rows], dialect: str
) -> Callable[[Query], warehouse.Rows]:
    """A goal query's rows from an engine, as `sql.rows_from`."""

    def rows(query: Query) -> warehouse.Rows:
        found = run(raw.stale_statement(query, dialect))
        stale = tuple((int(site), str(day)) for site, day in found)
        return run(statement(query, dialect, stale))

    return rows


def rows(query: Query) -> warehouse.Rows:
    """A goal query's rows from the engine in use."""
    return rows_from(warehouse.run, warehouse.dialect())(query)
