"""A website's goals as the warehouse matches them: which rows complete which goal.

A goal is a custom event by its name, or a pageview whose path (the page without its
query) matches a pattern, where `*` stands for the characters of one segment and `**` for
any. The goals are the website's own (`sitelens.websites.goals` keeps them on its item,
`data.goals` reads them); a query of several websites matches each site's rows to that
site's goals, and goals of the same display name count as one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from sitelens.analytics.warehouse import props, schema
from sitelens.analytics.warehouse.dimensions import GOAL_DIMENSION
from sitelens.analytics.warehouse.filters import Condition, Filter, Logical
from sitelens.core import errors


@dataclass(frozen=True)
class Goal:
    site_id: int
    name: str  # the display name, what `event:goal` shows and filters by
    event_name: str | None = None
    page_path: str | None = None
    custom_props: tuple[tuple[str, str], ...] = ()  # properties its events must have
    currency: str | None = None  # a revenue goal: sums its events' amounts in this currency

    @property
    def is_page(self) -> bool:
        return self.page_path is not None


def of_websites(websites: Iterable[Mapping[str, Any]], stored: Any) -> tuple[Goal, ...]:
    """The goals of stored websites (`stored(website)`: its goals as stored)."""
    return tuple(
        Goal(
            int(website["id"]),
            goal["display_name"],
            goal.get("event_name"),
            goal.get("page_path"),
            tuple(sorted((goal.get("custom_props") or {}).items())),
            goal.get("currency"),
        )
        for website in websites
        for goal in stored(website)
    )


def path_regex(pattern: str) -> str:
    """The RE2 expression (both engines' syntax) a page matches a path pattern by: the
    whole path, then the query string if any."""
    parts = re.split(r"(\*\*|\*)", pattern)
    body = "".join(
        "[^?#]*" if part == "**" else "[^/?#]*" if part == "*" else re.escape(part)
        for part in parts
    )
    return f"^{body}([?#].*)?$"


def matches_sql(goal: Goal, row: str = "e") -> str:
    """A condition true on a row (alias `row`) that completes `goal` (DuckDB's dialect, as
    `sql` composes it)."""
    site = f"{row}.website_id = {int(goal.site_id)}"
    if goal.page_path is not None:
        regex = schema.literal(path_regex(goal.page_path))
        pageview = schema.PAGEVIEW_SQL
        return f"({site} AND {row}.name = {pageview} AND REGEXP_MATCHES({row}.page, {regex}))"
    matched = [
        f"{props.column(props.PREFIX + key, row)} = {schema.literal(value)}"
        for key, value in goal.custom_props
    ]
    named = f"{row}.name = {schema.literal(goal.event_name or '')}"
    return "(" + " AND ".join([site, named, *matched]) + ")"


def named(goals: Iterable[Goal], names: Iterable[str]) -> tuple[Goal, ...]:
    """The goals of these display names, in the order of `goals`."""
    wanted = set(names)
    return tuple(goal for goal in goals if goal.name in wanted)


# What a query about goals may count: Plausible's goal metrics
REVENUE_METRICS: Final = ("total_revenue", "average_revenue")  # of revenue goals
METRICS: Final = ("visitors", "events", "conversion_rate", *REVENUE_METRICS)
FILTER_OPERATORS: Final = ("is", "contains")


def _mentions(item: Filter) -> bool:
    if isinstance(item, Condition):
        return item.dimension == GOAL_DIMENSION
    return any(_mentions(part) for part in item.parts)


def is_goal_filter(item: Filter) -> bool:
    """Whether a top-level filter is on `event:goal`."""
    return isinstance(item, Condition) and item.dimension == GOAL_DIMENSION


def asked(dimensions: Iterable[str], filters: Iterable[Filter]) -> bool:
    """Whether a query is about goals: `event:goal` as a dimension or a filter."""
    return GOAL_DIMENSION in dimensions or any(is_goal_filter(item) for item in filters)


def selected(goals: tuple[Goal, ...], filters: Iterable[Filter]) -> tuple[Goal, ...]:
    """The goals the query's `event:goal` filters leave (all of them without one): each
    filter keeps the goals whose display name is a clause (`is`) or holds one
    (`contains`), in any case unless `case_sensitive` is true."""
    kept = goals
    for item in filters:
        if not is_goal_filter(item):
            continue
        assert isinstance(item, Condition)

        def fold(text: str, condition: Condition = item) -> str:
            return text if condition.case_sensitive else text.lower()

        clauses = [fold(clause) for clause in item.clauses]
        if item.operator == "is":
            kept = tuple(goal for goal in kept if fold(goal.name) in clauses)
        else:
            kept = tuple(goal for goal in kept if any(c in fold(goal.name) for c in clauses))
    return kept


def check(
    metrics: Iterable[str],
    dimensions: Iterable[str],
    filters: Iterable[Filter],
    goals: tuple[Goal, ...] | None,
) -> None:
    """422 (`errors.Invalid`) for a query about goals that this API cannot answer as
    Plausible would: other metrics than `METRICS`, a goal filter inside and/or/not or with
    another operator, or an `is` clause that names no goal of the websites (`goals`; None:
    not known yet)."""
    for item in filters:
        if isinstance(item, Logical) and _mentions(item):
            raise errors.Invalid.field(
                "filters", "An event:goal filter must be at the top level, not in and/or/not."
            )
        if is_goal_filter(item):
            assert isinstance(item, Condition)
            if item.operator not in FILTER_OPERATORS:
                raise errors.Invalid.field(
                    "filters", f"An event:goal filter takes {' or '.join(FILTER_OPERATORS)}."
                )
            if item.operator == "is" and goals is not None:
                names = {goal.name if item.case_sensitive else goal.name.lower() for goal in goals}
                for clause in item.clauses:
                    if (clause if item.case_sensitive else clause.lower()) not in names:
                        raise errors.Invalid.field(
                            "filters",
                            f"The goal {errors.echoed(clause)!r} is not a goal of the website:"
                            " create it at /api/v1/websites/{id}/goals.",
                        )
    if not asked(dimensions, filters):
        revenue = [metric for metric in metrics if metric in REVENUE_METRICS]
        if revenue:
            raise errors.Invalid.field(
                "metrics", f"{', '.join(revenue)} needs an event:goal filter or dimension."
            )
        return
    other = [metric for metric in metrics if metric not in METRICS]
    if other:
        raise errors.Invalid.field(
            "metrics",
            f"With event:goal the metrics may be {', '.join(METRICS)}, not {', '.join(other)}.",
        )
