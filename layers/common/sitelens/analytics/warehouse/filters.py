"""A Stats API v2 query's filters: simple conditions on a dimension, nested in and/or/not.

Their shape, their bounds and the RE2 check of patterns live here; the rest of a query
lives in `query`, and how a filter becomes SQL in `sql`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from sitelens.analytics.warehouse.dimensions import (
    EVENT_DIMENSIONS,
    GOAL_DIMENSION,
    SEARCH_DIMENSIONS,
    VISIT_DIMENSIONS,
    canonical,
)
from sitelens.analytics.warehouse.props import is_props
from sitelens.core import errors, numbers

FILTER_OPERATORS: Final = ("is", "is_not", "contains", "contains_not", "matches", "matches_not")

MAX_CONDITIONS = 20  # simple filters, counted through and/or/not
MAX_FILTER_DEPTH = 5
MAX_CLAUSES = 50  # values of one simple filter
MAX_CLAUSE_LENGTH = 1_000  # characters of one value (a page path with its query)
MAX_PATTERN_LENGTH = 300  # characters of a regular expression (RE2 in both engines)
# `["is", "segment", [id]]`: a saved segment's filters, put in its place before the query is
# checked again (`analytics.segments.expanded`); never in a segment's own filters
SEGMENT: Final = "segment"

Filter: TypeAlias = "Condition | Logical"
# Python's syntax that RE2 (DuckDB's engine, Plausible's documented syntax) lacks
_NOT_RE2 = re.compile(r"\(\?(?:[=!>]|<[=!]|P=)|\\[1-9]|[*+?}]\+")


@dataclass(frozen=True)
class Condition:
    """`[operator, dimension, clauses, {"case_sensitive": bool}]`: any clause matches."""

    operator: str
    dimension: str
    clauses: tuple[str, ...]
    case_sensitive: bool = True


@dataclass(frozen=True)
class Logical:
    """`["and", [...]]`, `["or", [...]]` or `["not", filter]`."""

    operator: Literal["and", "or", "not"]
    parts: tuple[Filter, ...]


def parse(value: Any, segments: bool = True) -> list[Filter]:
    """The filters of a query's `filters` field; 422 (`errors.Invalid`) on the field
    `filters` at the first one that is wrong or beyond a bound. A segment's filters
    (`segments` False) may not name a segment."""
    if not isinstance(value, list):
        raise errors.Invalid.field("filters", "The filters field must be a list of filters.")
    count = [0]
    return [_filter(item, 1, count, segments) for item in value]


def segment_ids(found: list[Filter] | tuple[Filter, ...]) -> list[int]:
    """The ids of the saved segments the (top-level) filters name, in their order."""
    return [
        int(item.clauses[0])
        for item in found
        if isinstance(item, Condition) and item.dimension == SEGMENT
    ]


def names_event(item: Filter) -> bool:
    """Whether a top-level filter is on event:name (a goal, for conversion_rate)."""
    return isinstance(item, Condition) and item.dimension == "event:name" and item.operator == "is"


def dimensions_of(item: Filter) -> set[str]:
    """The dimensions a filter names, through and/or/not."""
    if isinstance(item, Condition):
        return {item.dimension}
    return {name for part in item.parts for name in dimensions_of(part)}


def _filter(value: Any, depth: int, count: list[int], segments: bool) -> Filter:
    if depth > MAX_FILTER_DEPTH:
        raise errors.Invalid.field(
            "filters", f"Filters must not nest deeper than {MAX_FILTER_DEPTH}."
        )
    if not isinstance(value, list) or not value or not isinstance(value[0], str):
        raise errors.Invalid.field(
            "filters", "Each filter must be a list starting with its operator."
        )
    operator = value[0]
    if operator in ("and", "or"):
        if len(value) != 2 or not isinstance(value[1], list) or not value[1]:
            raise errors.Invalid.field(
                "filters", f'"{operator}" takes one non-empty list of filters.'
            )
        parts = tuple(_filter(part, depth + 1, count, segments) for part in value[1])
        return Logical(operator, parts)  # type: ignore[arg-type]
    if operator == "not":
        if len(value) != 2:
            raise errors.Invalid.field("filters", '"not" takes one filter.')
        return Logical("not", (_filter(value[1], depth + 1, count, segments),))
    if operator not in FILTER_OPERATORS:
        allowed = ", ".join((*FILTER_OPERATORS, "and", "or", "not"))
        raise errors.Invalid.field(
            "filters", f"Unknown filter operator {operator!r}. Allowed: {allowed}."
        )
    count[0] += 1
    if count[0] > MAX_CONDITIONS:
        raise errors.Invalid.field("filters", f"At most {MAX_CONDITIONS} filters.")
    if len(value) not in (3, 4):
        raise errors.Invalid.field(
            "filters", "A filter is [operator, dimension, clauses(, modifiers)]."
        )
    if value[1] == SEGMENT:
        return _segment(operator, value[2:], depth, segments)
    dimension, clauses = canonical(value[1]), value[2]
    known = dimension in EVENT_DIMENSIONS or dimension in VISIT_DIMENSIONS or is_props(dimension)
    if not known and dimension not in (GOAL_DIMENSION, *SEARCH_DIMENSIONS):
        raise errors.Invalid.field("filters", f"Cannot filter by {dimension!r}.")
    if not isinstance(clauses, list) or not clauses or not all(isinstance(c, str) for c in clauses):
        raise errors.Invalid.field(
            "filters", "A filter's clauses must be a non-empty list of strings."
        )
    if len(clauses) > MAX_CLAUSES:
        raise errors.Invalid.field("filters", f"At most {MAX_CLAUSES} clauses in one filter.")
    if any(len(c) > MAX_CLAUSE_LENGTH for c in clauses):
        raise errors.Invalid.field(
            "filters", f"A clause must not exceed {MAX_CLAUSE_LENGTH} characters."
        )
    if operator.startswith("matches"):
        for pattern in clauses:
            _check_pattern(pattern)
    case_sensitive = True
    if len(value) == 4:
        modifiers = value[3]
        if (
            not isinstance(modifiers, dict)
            or set(modifiers) - {"case_sensitive"}
            or not isinstance(modifiers.get("case_sensitive", True), bool)
        ):
            raise errors.Invalid.field(
                "filters", 'Filter modifiers are {"case_sensitive": true|false}.'
            )
        case_sensitive = modifiers.get("case_sensitive", True)
    return Condition(operator, dimension, tuple(clauses), case_sensitive)


def _segment(operator: str, rest: list[Any], depth: int, segments: bool) -> Condition:
    """`["is", "segment", [id]]`, at the top level of a query's filters."""
    if not segments:
        raise errors.Invalid.field("filters", "A segment's filters cannot name a segment.")
    if operator != "is" or depth > 1:
        raise errors.Invalid.field(
            "filters", 'A segment is asked at the top level as ["is", "segment", [id]].'
        )
    ids = rest[0] if len(rest) == 1 and isinstance(rest[0], list) else None
    number = numbers.whole(ids[0]) if ids and len(ids) == 1 else None
    if number is None or number < 1:
        raise errors.Invalid.field(
            "filters", 'A segment filter names one saved segment\'s id: ["is", "segment", [id]].'
        )
    return Condition("is", SEGMENT, (str(number),))


def _check_pattern(pattern: str) -> None:
    """A `matches` clause must be short, in RE2's syntax, and compile."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise errors.Invalid.field(
            "filters", f"A pattern must not exceed {MAX_PATTERN_LENGTH} characters."
        )
    if _NOT_RE2.search(pattern):
        raise errors.Invalid.field(
            "filters",
            f"Pattern {pattern!r} uses lookaround, backreferences or possessive "
            "quantifiers, which RE2 does not have.",
        )
    try:
        re.compile(pattern)
    except re.error as err:
        raise errors.Invalid.field(
            "filters", f"Invalid regular expression {pattern!r}: {err}."
        ) from None
