"""`POST /api/v1/journeys/query`: where visits go, over a range of the account's websites.

The body is a query's (`site_id`, `date_range`, `timezone`, `filters`, saved segments
included, checked as `POST /api/v1/query` checks them, with the websites' time zone and
goals) and `journey`: `next_pages`, the pages viewed next after `page` (or the visit's end),
or `paths`, the visits' paths from their entry (entering on `page` when given), their first
`steps` pages (at most `warehouse.journeys.MAX_STEPS`), `limit` rows at most
(`warehouse.journeys.MAX_ROWS`). A separate route, as funnels are: its rows are neither
the query API's dimensions nor its metrics.
"""

from __future__ import annotations

from typing import Any, Final

from sitelens.analytics import queries
from sitelens.analytics.warehouse import filters, journeys
from sitelens.core import errors, numbers

FIELDS: Final = (
    "site_id",
    "date_range",
    "timezone",
    "filters",
    "journey",
    "page",
    "steps",
    "limit",
)
_QUESTION: Final = ("site_id", "date_range", "timezone", "filters")


def run(account_id: str, body: Any) -> dict[str, Any]:
    """The journey's answer; 422 naming the field that is wrong, 404 for a website that is
    not the account's."""
    asked = _asked(body)
    question = {name: body[name] for name in _QUESTION if name in body}
    parsed = queries.parse(account_id, {**question, "metrics": ["visits"]})
    answer = journeys.answer(asked["kind"], journeys.rows(parsed, asked))
    echo = {**body, **{k: v for k, v in asked.items() if k != "kind"}}
    return {**answer, "query": {**echo, "timezone": parsed.timezone}}


def _asked(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise errors.Invalid.field("query", "The query must be a JSON object.")
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        raise errors.Invalid.field(
            unknown[0], f"Unknown field {unknown[0]}. Allowed: {', '.join(FIELDS)}."
        )
    kind = body.get("journey")
    if kind not in journeys.KINDS:
        raise errors.Invalid.field(
            "journey", f"The journey field is one of: {', '.join(journeys.KINDS)}."
        )
    page = body.get("page")
    if page is not None and (
        not isinstance(page, str) or not 0 < len(page) <= filters.MAX_CLAUSE_LENGTH
    ):
        raise errors.Invalid.field(
            "page", f"The page field is a page path of 1 to {filters.MAX_CLAUSE_LENGTH} characters."
        )
    if kind == "next_pages" and page is None:
        raise errors.Invalid.field("page", "The next pages journey needs the page field.")
    if kind == "next_pages" and "steps" in body:
        raise errors.Invalid.field("steps", "The steps field is of the paths journey only.")
    steps = _bounded(body, "steps", journeys.MAX_STEPS, 1, journeys.MAX_STEPS)
    limit = _bounded(body, "limit", journeys.DEFAULT_ROWS, 1, journeys.MAX_ROWS)
    return {"kind": kind, "page": page, "steps": steps, "limit": limit}


def _bounded(body: dict[str, Any], name: str, default: int, low: int, top: int) -> int:
    number = numbers.integer(body.get(name, default))
    if number is None or not low <= number <= top:
        raise errors.Invalid.field(name, f"The {name} field must be from {low} to {top}.")
    return number
