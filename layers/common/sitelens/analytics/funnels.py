"""`POST /api/v1/funnels/query`: a funnel of the account's websites' goals over a range.

The body is a query's (`site_id`, `date_range`, `timezone`, `filters`, checked as
`POST /api/v1/query` checks them, with the websites' time zone and goals) and `steps`,
2 to 8 display names of the websites' goals, in order; the answer has each step's
visitors, conversion from the first step and from the previous one, and drop-off
(`warehouse.funnels`). A separate route, not an `include` of the query API: its answer
is one row per step, not groups of dimensions and metrics, and none of the query API's
dimensions, metrics, ordering or pagination applies to it.
"""

from __future__ import annotations

from typing import Any, Final

from sitelens.analytics import queries
from sitelens.analytics.warehouse import funnels, goals
from sitelens.core import errors

FIELDS: Final = ("site_id", "date_range", "timezone", "filters", "steps")


def run(account_id: str, body: Any) -> dict[str, Any]:
    """The funnel's answer; 422 naming the field that is wrong, 404 for a website that is
    not the account's."""
    if not isinstance(body, dict):
        raise errors.Invalid.field("query", "The query must be a JSON object.")
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        raise errors.Invalid.field(
            unknown[0], f"Unknown field {unknown[0]}. Allowed: {', '.join(FIELDS)}."
        )
    names = _steps(body.get("steps"))
    question = {name: body[name] for name in FIELDS if name in body and name != "steps"}
    parsed = queries.parse(account_id, {**question, "metrics": ["visitors"]})
    if goals.asked((), parsed.filters):
        raise errors.Invalid.field(
            "filters", "A funnel's steps are its goals: no event:goal filter."
        )
    steps = [goals.named(parsed.goals, [name]) for name in names]
    for name, step in zip(names, steps, strict=True):
        if not step:
            raise errors.Invalid.field(
                "steps",
                f"The goal {errors.echoed(name)!r} is not a goal of the website:"
                " create it at /api/v1/websites/{id}/goals.",
            )
    answer = funnels.answer(names, funnels.counts(parsed, steps))
    return {**answer, "query": {**body, "timezone": parsed.timezone}}


def _steps(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise errors.Invalid.field("steps", "The steps field must be a list of goal names.")
    if not funnels.MIN_STEPS <= len(value) <= funnels.MAX_STEPS:
        raise errors.Invalid.field(
            "steps", f"A funnel has {funnels.MIN_STEPS} to {funnels.MAX_STEPS} steps."
        )
    if len(set(value)) != len(value):
        raise errors.Invalid.field("steps", "A funnel's steps must be different goals.")
    return value
