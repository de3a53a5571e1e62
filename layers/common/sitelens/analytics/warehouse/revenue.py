"""Revenue goals' metrics, `total_revenue` and `average_revenue` (Plausible's names): the
sum and the mean of the amounts of a revenue goal's completions, in the goal's currency.

Amounts are stored in the currency they came in (`core.properties`) and never converted: a
revenue goal sums the amounts of its events sent in its `currency`, and leaves out the
others. A row of several revenue goals of different currencies (an `event:goal` filter
selecting both, or goals of one name in websites of a roll-up) has no revenue (null), as
no sum of two currencies means anything. A metric's value is `{"value": 12.5, "currency":
"EUR"}`, rounded to cents (two places); null for a row of no revenue goal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from sitelens.analytics.warehouse import schema
from sitelens.analytics.warehouse.dimensions import GOAL_DIMENSION
from sitelens.analytics.warehouse.goals import REVENUE_METRICS, Goal, matches_sql, selected
from sitelens.analytics.warehouse.query import Query

NONE: Final = "CAST(NULL AS DECIMAL(38, 6))"
METRIC_SQL: Final = {
    "total_revenue": "CAST(ROUND(SUM(c.revenue), 2) AS DOUBLE)",
    "average_revenue": "CAST(ROUND(AVG(c.revenue), 2) AS DOUBLE)",
}


def _amount_in(goal: Goal, row: str) -> str:
    return (
        f"{row}.revenue_currency = {schema.literal(goal.currency or '')}"
        f" THEN CAST({row}.revenue_amount AS DECIMAL(38, 6))"
    )


def of_goal_sql(goal: Goal, row: str = "e") -> str:
    """A completion's revenue for `goal` (a row that completes it): its amount when sent in
    the goal's currency, else NULL."""
    return f"CASE WHEN {_amount_in(goal, row)} END" if goal.currency else NONE


def of_goals_sql(goals: Iterable[Goal], row: str = "e") -> str:
    """A completion's revenue for the first of `goals` with a currency it completes."""
    cases = [
        f"WHEN {matches_sql(goal, row)} AND {_amount_in(goal, row)}"
        for goal in goals
        if goal.currency
    ]
    return f"CASE {' '.join(cases)} END" if cases else NONE


def _currency(goals: Iterable[Goal]) -> str | None:
    currencies = {goal.currency for goal in goals if goal.currency}
    return currencies.pop() if len(currencies) == 1 else None


def shaped(query: Query, answer: dict[str, Any]) -> dict[str, Any]:
    """The answer with each revenue metric as `{"value", "currency"}` (null where the row
    has no one currency)."""
    places = [n for n, metric in enumerate(query.metrics) if metric in REVENUE_METRICS]
    if not places:
        return answer
    chosen = selected(query.goals, query.filters)
    by_goal = GOAL_DIMENSION in query.dimensions
    position = query.dimensions.index(GOAL_DIMENSION) if by_goal else 0
    for result in answer["results"]:
        named = (
            [g for g in chosen if g.name == result["dimensions"][position]] if by_goal else chosen
        )
        currency = _currency(named)
        for block in (result, result.get("comparison") or {}):
            metrics: list[Any] = block.get("metrics") or []
            for n in places if metrics else ():
                metrics[n] = (
                    None if currency is None else {"value": metrics[n], "currency": currency}
                )
    return answer
