"""`POST /api/v1/funnels/query`: a funnel of the account's websites' goals over a range.

The body is a query's (`site_id`, `date_range`, `timezone`, `filters`, checked as
`POST /api/v1/query` checks them, with the websites' time zone and goals) and `steps`,
2 to 8 display names of the websites' goals, in order, or `funnel_id`, a saved funnel of
the one website asked (`websites.funnels`: its steps are goal ids, named here by the
goals' display names now); the answer has each step's
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
from sitelens.data import funnels as stored_funnels
from sitelens.data import goals as stored_goals
from sitelens.data import websites as stored_websites

FIELDS: Final = ("site_id", "date_range", "timezone", "filters", "steps", "funnel_id")
# said when a saved funnel's step names a goal deleted since (websites.funnels.rules)
GOAL_GONE: Final = (
    "Step {step} of the funnel was goal {goal_id}, which has been deleted: change the"
    " funnel's steps at /api/v1/websites/{site}/funnels/{funnel}."
)


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
    if ("steps" in body) == ("funnel_id" in body):
        raise errors.Invalid.field("steps", "Give either steps or funnel_id, not both.")
    names = _steps(body["steps"]) if "steps" in body else []
    asked = ("steps", "funnel_id")
    question = {name: body[name] for name in FIELDS if name in body and name not in asked}
    parsed = queries.parse(account_id, {**question, "metrics": ["visitors"]})
    if "funnel_id" in body:
        names = saved_steps(account_id, parsed.site_ids, body["funnel_id"])
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
    return {**answer, "query": {**body, "steps": names, "timezone": parsed.timezone}}


def saved_steps(account_id: str, site_ids: tuple[int, ...], funnel_id: Any) -> list[str]:
    """The display names of a saved funnel's goals, in its order; 422 for a funnel that is
    not one of the website's or names a goal deleted since."""
    if len(site_ids) != 1:
        raise errors.Invalid.field("site_id", "A saved funnel is asked of its one website.")
    website = stored_websites.get(account_id, site_ids[0]) or {}
    found = [
        funnel
        for funnel in stored_funnels.of(website)
        if not isinstance(funnel_id, bool) and funnel["id"] == funnel_id
    ]
    if not found:
        raise errors.Invalid.field(
            "funnel_id", "The funnel id field must be the id of a saved funnel of the website."
        )
    names = {int(goal["id"]): goal["display_name"] for goal in stored_goals.of(website)}
    for number, goal_id in enumerate(found[0]["steps"], start=1):
        if goal_id not in names:
            gone = GOAL_GONE.format(
                step=number, goal_id=goal_id, site=site_ids[0], funnel=found[0]["id"]
            )
            raise errors.Invalid.field("funnel_id", gone)
    return [names[goal_id] for goal_id in found[0]["steps"]]


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
