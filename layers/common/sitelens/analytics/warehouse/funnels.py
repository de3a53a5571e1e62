"""A funnel as SQL: ordered steps, each a goal (by display name: on several websites, each
website's goal of that name), and for each step the visitors who completed it after
completing every step before it, in order.

A visitor here is a visitor hash of one website, which lives one day of the website's time
zone (its salt turns over at the website's midnight: `salts`), so a funnel is completed
within that day, as Plausible's within its visitor's day-long identity; for a website
outside UTC that day spans midnight UTC, and so may a funnel. The n-th step is reached at
the earliest completion of its goal after the step before was reached (strictly after: one
row never makes two steps); earliest completions are what an ordered completion needs, so
this finds every visitor who has one. Written once in DuckDB's dialect and rendered by
SQLGlot for the engine, as `sql`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from sitelens.analytics.warehouse import conversions, goals, raw, sql
from sitelens.analytics.warehouse.goals import Goal
from sitelens.analytics.warehouse.query import Query
from sitelens.data import warehouse
from sitelens.data.funnels import MAX_STEPS, MIN_STEPS

__all__ = ["MAX_STEPS", "MIN_STEPS", "answer", "counts", "counts_from", "statement"]
_VISITOR: Final = "website_id, visitor"


def _step_sql(number: int, step: Sequence[Goal]) -> str:
    matched = " OR ".join(goals.matches_sql(goal) for goal in step) or "FALSE"
    if number == 1:
        return f"""step_1 AS (
  SELECT {_VISITOR}, MIN(ts) AS reached_at FROM base AS e WHERE {matched} GROUP BY {_VISITOR}
)"""
    return f"""step_{number} AS (
  SELECT e.website_id, e.visitor, MIN(e.ts) AS reached_at
  FROM base AS e JOIN step_{number - 1} AS p
    ON e.website_id = p.website_id AND e.visitor = p.visitor
  WHERE e.ts > p.reached_at AND ({matched})
  GROUP BY e.website_id, e.visitor
)"""


def statement(
    query: Query, steps: Sequence[Sequence[Goal]], dialect: str, stale: raw.SiteDays
) -> str:
    """One row: the visitors of the range (under the query's filters), then the visitors
    who reached each step."""
    step_ctes = ",\n".join(_step_sql(n, step) for n, step in enumerate(steps, start=1))
    text = f"""
WITH {conversions.hits_sql(query, stale)},
base AS (SELECT * FROM hits AS e WHERE {sql.where(query.filters)}),
{step_ctes}
SELECT (SELECT COUNT(*) FROM (SELECT DISTINCT {_VISITOR} FROM base) AS v) AS all_visitors,
  {", ".join(f"(SELECT COUNT(*) FROM step_{n}) AS s{n}" for n in range(1, len(steps) + 1))}
"""
    return raw.rendered(text, dialect)


def counts_from(
    run: Callable[[str], warehouse.Rows], dialect: str
) -> Callable[[Query, Sequence[Sequence[Goal]]], list[int]]:
    """The visitors of the range and of each step, from an engine (as `sql.rows_from`)."""

    def counts(query: Query, steps: Sequence[Sequence[Goal]]) -> list[int]:
        found = run(raw.stale_statement(query, dialect))
        stale = tuple((int(site), str(day)) for site, day in found)
        row = run(statement(query, steps, dialect, stale))[0]
        return [int(value or 0) for value in row]

    return counts


def counts(query: Query, steps: Sequence[Sequence[Goal]]) -> list[int]:
    """`counts_from` the engine in use."""
    return counts_from(warehouse.run, warehouse.dialect())(query, steps)


def _percent(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def answer(names: Sequence[str], found: Sequence[int]) -> dict[str, object]:
    """Plausible's funnel figures from the visitors of the range and of each step."""
    everyone, reached = found[0], list(found[1:])
    entering = reached[0]
    steps = []
    for number, (name, visitors) in enumerate(zip(names, reached, strict=True), start=1):
        before = reached[number - 2] if number > 1 else entering
        steps.append(
            {
                "step": number,
                "goal": name,
                "visitors": visitors,
                "conversion_rate": _percent(visitors, entering),
                "conversion_rate_step": _percent(visitors, before),
                "dropoff": before - visitors,
                "dropoff_percentage": _percent(before - visitors, before),
            }
        )
    return {
        "steps": steps,
        "meta": {
            "all_visitors": everyone,
            "entering_visitors": entering,
            "entering_visitors_percentage": _percent(entering, everyone),
            "never_entering_visitors": everyone - entering,
            "conversion_rate": _percent(reached[-1], entering),
        },
    }
