"""A Stats API v2 query (Plausible's shape), validated into a `Query` the SQL is built from.

Metrics, dimensions, ordering, include and pagination are checked here, filters in
`filters` and the time zone and date range in `periods`. Every bound is a named constant;
a query beyond one is refused with 422 naming the field, before any engine runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Final
from zoneinfo import ZoneInfo

from sitelens.analytics.vitals import METRICS as VITAL_METRIC_NAMES
from sitelens.analytics.warehouse import filters, goals, periods, props
from sitelens.analytics.warehouse.dimensions import (
    ALIASES,
    EVENT_DIMENSIONS,
    GOAL_DIMENSION,
    SEARCH_DIMENSIONS,
    TIME_DIMENSIONS,
    VISIT_DIMENSIONS,
    canonical,
)
from sitelens.analytics.warehouse.filters import Filter
from sitelens.analytics.warehouse.goals import Goal
from sitelens.core import errors, numbers

# Core Web Vitals' metrics (`vitals` has their SQL): p75 of each, and its shares
VITAL_METRICS: Final = VITAL_METRIC_NAMES

# Search Console's (`search`), and what they are joined with: the events' by page and time
SEARCH_METRICS: Final = ("clicks", "impressions", "ctr", "position")
JOINED_METRICS: Final = ("visitors", "visits", "pageviews")
JOIN_DIMENSIONS: Final = ("event:page", "time:day", "time:week", "time:month")
SEARCH_OPERATORS: Final = ("is", "is_not", "contains", "contains_not")

METRICS: Final = (
    "visitors",
    "visits",
    "pageviews",
    "views_per_visit",
    "bounce_rate",
    "visit_duration",
    "events",
    "conversion_rate",
    "percentage",
    "total_revenue",  # of revenue goals (`goals.REVENUE_METRICS`)
    "average_revenue",
    "scroll_depth",  # with event:page, visitors and pageviews only (`scroll`)
    *VITAL_METRICS,  # Core Web Vitals (`vitals`)
    *SEARCH_METRICS,  # Search Console's rows (`search`)
)
COMPARISONS: Final = ("previous_period", "year_over_year")
INCLUDES: Final = ("total_rows", "time_labels", "comparisons", "annotations", "imports")

MAX_SITES = 50  # websites in one roll-up
MAX_METRICS = len(METRICS)
MAX_DIMENSIONS = 4  # groups multiply: four dimensions already make very long tables
MAX_HOURLY_DAYS = 93  # time:hour over at most a quarter: 2,232 buckets
MAX_LIMIT = 10_000  # rows per page, as Plausible
MAX_OFFSET = 100_000


@dataclass(frozen=True)
class Include:
    total_rows: bool = False
    time_labels: bool = False
    comparisons: str | None = None  # "previous_period" or "year_over_year"
    annotations: bool = False  # the websites' annotations of the range, in `meta`
    imports: bool = False  # imported history added where it answers (`analytics.imports`)


@dataclass(frozen=True)
class Query:
    site_ids: tuple[int, ...]
    metrics: tuple[str, ...]
    timezone: str
    start: datetime  # UTC, inclusive
    end: datetime  # UTC, exclusive
    first_day: date  # in `timezone`, inclusive
    last_day: date  # in `timezone`, inclusive
    dimensions: tuple[str, ...] = ()
    filters: tuple[Filter, ...] = ()
    order_by: tuple[tuple[str, str], ...] = ()
    include: Include = field(default_factory=Include)
    limit: int = MAX_LIMIT
    offset: int = 0
    goals: tuple[Goal, ...] = ()  # the websites' goals, for `event:goal`
    # The websites' own time zones: a visitor hash turns over at their midnight (`salts`),
    # which decides what summaries may add up (`summaries.plan`); () is UTC.
    visitor_zones: tuple[str, ...] = ()

    @property
    def time_dimension(self) -> str | None:
        return next((d for d in self.dimensions if d in TIME_DIMENSIONS), None)

    def shifted(self, start: datetime, end: datetime, first: date, last: date) -> Query:
        """The same query over another range (a comparison)."""
        return Query(
            self.site_ids,
            self.metrics,
            self.timezone,
            start,
            end,
            first,
            last,
            self.dimensions,
            self.filters,
            self.order_by,
            Include(),
            MAX_LIMIT,
            0,
            self.goals,
            self.visitor_zones,
        )


def _list_of_strings(value: Any, name: str, allowed: tuple[str, ...] | None = None) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise errors.Invalid.field(name, f"The {name} field must be a list of strings.")
    if allowed is not None:
        unknown = [item for item in value if item not in allowed]
        if unknown:
            raise errors.Invalid.field(
                name, f"Unknown {name}: {', '.join(unknown)}. Allowed: {', '.join(allowed)}."
            )
    if len(set(value)) != len(value):
        raise errors.Invalid.field(name, f"The {name} field must not repeat a value.")
    return value


def parse(
    body: Any,
    now: datetime,
    default_timezone: str = "UTC",
    site_goals: tuple[Goal, ...] | None = None,
) -> Query:
    """The validated query of a request body; 422 (`errors.Invalid`) naming the first field
    that is wrong. `now` is an aware datetime; site ids are checked against the account by
    the caller, who gives their goals (`site_goals`; None: not read yet, goal names are
    not checked)."""
    if not isinstance(body, dict):
        raise errors.Invalid.field("query", "The query must be a JSON object.")
    known = {
        "site_id",
        "metrics",
        "date_range",
        "dimensions",
        "filters",
        "order_by",
        "include",
        "pagination",
        "timezone",
    }
    unknown = sorted(set(body) - known)
    if unknown:
        raise errors.Invalid.field(
            unknown[0], f"Unknown field {unknown[0]}. Allowed: {', '.join(known)}."
        )
    site_ids = site_ids_of(body.get("site_id"))
    if "metrics" not in body:
        raise errors.Invalid.field("metrics", "The metrics field is required.")
    metrics = _list_of_strings(body["metrics"], "metrics", METRICS)
    if not metrics:
        raise errors.Invalid.field("metrics", "The metrics field must name at least one metric.")
    allowed_dimensions = (
        *EVENT_DIMENSIONS,
        GOAL_DIMENSION,
        *ALIASES,
        *VISIT_DIMENSIONS,
        *TIME_DIMENSIONS,
        *SEARCH_DIMENSIONS,
    )
    sent = _list_of_strings(body.get("dimensions", []), "dimensions")
    unknown = [d for d in sent if d not in allowed_dimensions and not props.is_props(d)]
    if unknown:
        raise errors.Invalid.field(
            "dimensions",
            f"Unknown dimensions: {', '.join(unknown)}. Allowed: "
            f"{', '.join((*allowed_dimensions, props.PREFIX + '<key>'))}.",
        )
    dimensions = [canonical(d) for d in sent]
    if len(set(dimensions)) != len(dimensions):
        raise errors.Invalid.field("dimensions", "The dimensions field must not repeat a value.")
    if len(dimensions) > MAX_DIMENSIONS:
        raise errors.Invalid.field("dimensions", f"At most {MAX_DIMENSIONS} dimensions.")
    if sum(d in TIME_DIMENSIONS for d in dimensions) > 1:
        raise errors.Invalid.field("dimensions", "At most one time dimension.")
    sent_timezone = body.get("timezone", "")
    # An empty time zone is none, as in a form: the website's.
    timezone = periods.timezone(sent_timezone if sent_timezone != "" else default_timezone)
    if "date_range" not in body:
        raise errors.Invalid.field("date_range", "The date range field is required.")
    zone_now = now.astimezone(ZoneInfo(timezone))
    first, last, start, end = periods.date_range(body["date_range"], zone_now)
    if "time:hour" in dimensions and (last - first).days + 1 > MAX_HOURLY_DAYS:
        raise errors.Invalid.field(
            "dimensions", f"time:hour needs a date range of at most {MAX_HOURLY_DAYS} days."
        )
    query_filters = filters.parse(body.get("filters", []))
    if "percentage" in metrics and not dimensions:
        raise errors.Invalid.field("metrics", "The percentage metric needs at least one dimension.")
    goals.check(metrics, dimensions, query_filters, site_goals)
    if "scroll_depth" in metrics:
        _check_scroll_depth(metrics, dimensions, query_filters)
    if any(metric in VITAL_METRICS for metric in metrics):
        _check_vitals(metrics, dimensions, query_filters)
    _check_search(metrics, dimensions, query_filters)
    if "conversion_rate" in metrics and not (
        "event:name" in dimensions
        or any(filters.names_event(f) for f in query_filters)
        or goals.asked(dimensions, query_filters)
    ):
        raise errors.Invalid.field(
            "metrics",
            "The conversion rate metric needs an event:name (or event:goal) filter or dimension.",
        )
    order_by = _order_by(body.get("order_by"), metrics, dimensions)
    include = _include(body.get("include", {}), dimensions)
    limit, offset = _pagination(body.get("pagination", {}))
    return Query(
        tuple(site_ids),
        tuple(metrics),
        timezone,
        start,
        end,
        first,
        last,
        tuple(dimensions),
        tuple(query_filters),
        order_by,
        include,
        limit,
        offset,
        site_goals or (),
    )


def _check_scroll_depth(metrics: list[str], dimensions: list[str], found: list[Filter]) -> None:
    named = {d for item in found for d in filters.dimensions_of(item)}
    if "event:page" not in dimensions and "event:page" not in named:
        raise errors.Invalid.field(
            "metrics", "scroll_depth needs an event:page filter or dimension."
        )
    others = set(metrics) - {"scroll_depth", "visitors", "pageviews"}
    if others or any(d in VISIT_DIMENSIONS or d == GOAL_DIMENSION for d in (*dimensions, *named)):
        raise errors.Invalid.field(
            "metrics",
            "scroll_depth goes with visitors and pageviews only, and no visit: or event:goal"
            " dimension or filter.",
        )


def _check_vitals(metrics: list[str], dimensions: list[str], found: list[Filter]) -> None:
    if set(metrics) - set(VITAL_METRICS):
        raise errors.Invalid.field("metrics", "Vitals metrics go with vitals metrics only.")
    named = {d for item in found for d in filters.dimensions_of(item)}
    allowed = {"event:page", "visit:device", "visit:country", *TIME_DIMENSIONS}
    if not {*dimensions, *named} <= allowed:
        raise errors.Invalid.field(
            "dimensions",
            "Vitals are asked by event:page, visit:device, visit:country and time only.",
        )


def _check_search(metrics: list[str], dimensions: list[str], found: list[Filter]) -> None:
    """Search metrics go with search dimensions, event:page and time (docs/search-console.md)."""
    named = {d for item in found for d in filters.dimensions_of(item)}
    searched = [m for m in metrics if m in SEARCH_METRICS]
    if not searched:
        if any(d in SEARCH_DIMENSIONS for d in (*dimensions, *named)):
            raise errors.Invalid.field(
                "dimensions", "search:query and search:page go with search metrics only."
            )
        return
    if not {*dimensions, *named} <= {*SEARCH_DIMENSIONS, *JOIN_DIMENSIONS}:
        raise errors.Invalid.field(
            "dimensions",
            "Search metrics are asked by search:query, search:page, event:page and "
            "time:day, time:week or time:month only.",
        )
    others = set(metrics) - set(SEARCH_METRICS)
    if others and (others - set(JOINED_METRICS) or not set(dimensions) <= set(JOIN_DIMENSIONS)):
        raise errors.Invalid.field(
            "metrics",
            "Search metrics go with visitors, visits and pageviews only, joined by event:page "
            "and time (no search: dimension).",
        )
    if others and named - {"event:page"}:
        raise errors.Invalid.field("filters", "A joined query filters by event:page only.")
    simple = all(
        isinstance(item, filters.Condition) and item.operator in SEARCH_OPERATORS for item in found
    )
    if not simple:
        raise errors.Invalid.field(
            "filters", f"Search metrics take filters {', '.join(SEARCH_OPERATORS)} only."
        )


def site_ids_of(value: Any) -> list[int]:
    """A query's `site_id` field: one website id or a list of them (422 otherwise)."""
    given = [numbers.integer(i) for i in (value if isinstance(value, list) else [value])]
    ids = [i for i in given if i is not None and i > 0]
    if not ids or len(ids) != len(given):
        raise errors.Invalid.field(
            "site_id", "The site id field must be a website id or a list of them."
        )
    if len(ids) > MAX_SITES:
        raise errors.Invalid.field("site_id", f"At most {MAX_SITES} websites in one query.")
    return list(dict.fromkeys(ids))


def _order_by(value: Any, metrics: list[str], dimensions: list[str]) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise errors.Invalid.field(
            "order_by", "The order by field must be a list of [name, direction]."
        )
    pairs = []
    for pair in value:
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or canonical(pair[0]) not in (*metrics, *dimensions)
            or pair[1] not in ("asc", "desc")
        ):
            raise errors.Invalid.field(
                "order_by",
                'Each order is [a queried metric or dimension, "asc" or "desc"].',
            )
        pairs.append((canonical(pair[0]), pair[1]))
    return tuple(pairs)


def _include(value: Any, dimensions: list[str]) -> Include:
    if not isinstance(value, dict) or set(value) - {*INCLUDES}:
        raise errors.Invalid.field("include", f"The include field takes {', '.join(INCLUDES)}.")
    for flag in ("total_rows", "time_labels", "annotations", "imports"):
        if not isinstance(value.get(flag, False), bool):
            raise errors.Invalid.field("include", f"include.{flag} must be true or false.")
    for flag in ("time_labels", "annotations"):
        if value.get(flag) and not any(d in TIME_DIMENSIONS for d in dimensions):
            raise errors.Invalid.field("include", f"include.{flag} needs a time dimension.")
    comparisons = value.get("comparisons")
    if comparisons is not None:
        mode = comparisons.get("mode") if isinstance(comparisons, dict) else None
        if mode not in COMPARISONS:
            raise errors.Invalid.field(
                "include", f'include.comparisons is {{"mode": one of {", ".join(COMPARISONS)}}}.'
            )
        comparisons = mode
    return Include(
        bool(value.get("total_rows", False)),
        bool(value.get("time_labels", False)),
        comparisons,
        bool(value.get("annotations", False)),
        bool(value.get("imports", False)),
    )


def _pagination(value: Any) -> tuple[int, int]:
    if not isinstance(value, dict) or set(value) - {"limit", "offset"}:
        raise errors.Invalid.field("pagination", "The pagination field takes limit and offset.")
    limit = _page_bound("limit", value.get("limit", MAX_LIMIT), 1, MAX_LIMIT)
    return limit, _page_bound("offset", value.get("offset", 0), 0, MAX_OFFSET)


def _page_bound(name: str, value: Any, low: int, top: int) -> int:
    number = numbers.integer(value)
    if number is None or not low <= number <= top:
        raise errors.Invalid.field("pagination", f"pagination.{name} must be from {low} to {top}.")
    return number
