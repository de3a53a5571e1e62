"""A Stats API v2 query (Plausible's shape), validated into a `Query` the SQL is built from.

Every bound is a named constant below; a query beyond one is refused with 422 naming the
field, before any engine runs. Dates are the site's: `date_range` presets and plain dates
are days in `timezone`, turned into a UTC instant range [start, end).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any, Final, Literal, TypeAlias
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sitelens import errors

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
)
# dimension -> the column that holds it (visit dimensions: the visit's, from its first pageview)
EVENT_DIMENSIONS: Final = {"event:page": "page", "event:name": "name"}
VISIT_DIMENSIONS: Final = {
    "visit:entry_page": "entry_page",
    "visit:exit_page": "exit_page",
    "visit:source": "source",
    "visit:referrer": "referrer",
    "visit:utm_source": "utm_source",
    "visit:utm_medium": "utm_medium",
    "visit:utm_campaign": "utm_campaign",
    "visit:utm_term": "utm_term",
    "visit:utm_content": "utm_content",
    "visit:browser": "browser",
    "visit:os": "os",
    "visit:device": "device",
    "visit:country": "country",
    "visit:language": "language",
    "visit:screen": "screen",
}
TIME_DIMENSIONS: Final = ("time:hour", "time:day", "time:week", "time:month")
# Plausible's names that are another's here: a goal is a custom event, named by its name
ALIASES: Final = {"event:goal": "event:name"}
FILTER_OPERATORS: Final = ("is", "is_not", "contains", "contains_not", "matches", "matches_not")
PRESETS: Final = ("day", "24h", "7d", "28d", "30d", "91d", "month", "6mo", "12mo", "year", "all")
COMPARISONS: Final = ("previous_period", "year_over_year")

MAX_SITES = 50  # websites in one roll-up
MAX_METRICS = len(METRICS)
MAX_DIMENSIONS = 4  # groups multiply: four dimensions already make very long tables
MAX_DAYS = 3 * 366 + 1  # three years of partitions, the retention the deployment keeps
MAX_HOURLY_DAYS = 93  # time:hour over at most a quarter: 2,232 buckets
MAX_CONDITIONS = 20  # simple filters, counted through and/or/not
MAX_FILTER_DEPTH = 5
MAX_CLAUSES = 50  # values of one simple filter
MAX_CLAUSE_LENGTH = 1_000  # characters of one value (a page path with its query)
MAX_PATTERN_LENGTH = 300  # characters of a regular expression (RE2 in both engines)
MAX_LIMIT = 10_000  # rows per page, as Plausible
MAX_OFFSET = 100_000
MAX_TIMEZONE_LENGTH = 64

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


@dataclass(frozen=True)
class Include:
    total_rows: bool = False
    time_labels: bool = False
    comparisons: str | None = None  # "previous_period" or "year_over_year"


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
        )


def _invalid(name: str, sentence: str) -> errors.Invalid:
    return errors.Invalid.field(name, sentence)


def _list_of_strings(value: Any, name: str, allowed: tuple[str, ...] | None = None) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _invalid(name, f"The {name} field must be a list of strings.")
    if allowed is not None:
        unknown = [item for item in value if item not in allowed]
        if unknown:
            raise _invalid(
                name, f"Unknown {name}: {', '.join(unknown)}. Allowed: {', '.join(allowed)}."
            )
    if len(set(value)) != len(value):
        raise _invalid(name, f"The {name} field must not repeat a value.")
    return value


def parse(body: Any, now: datetime, default_timezone: str = "UTC") -> Query:
    """The validated query of a request body; 422 (`errors.Invalid`) naming the first field
    that is wrong. `now` is an aware datetime; site ids are checked against the account by
    the caller."""
    if not isinstance(body, dict):
        raise _invalid("query", "The query must be a JSON object.")
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
        raise _invalid(unknown[0], f"Unknown field {unknown[0]}. Allowed: {', '.join(known)}.")
    site_ids = _site_ids(body.get("site_id"))
    if "metrics" not in body:
        raise _invalid("metrics", "The metrics field is required.")
    metrics = _list_of_strings(body["metrics"], "metrics", METRICS)
    if not metrics:
        raise _invalid("metrics", "The metrics field must name at least one metric.")
    allowed_dimensions = (*EVENT_DIMENSIONS, *ALIASES, *VISIT_DIMENSIONS, *TIME_DIMENSIONS)
    sent = _list_of_strings(body.get("dimensions", []), "dimensions", allowed_dimensions)
    dimensions = [_canonical(d) for d in sent]
    if len(set(dimensions)) != len(dimensions):
        raise _invalid("dimensions", "The dimensions field must not repeat a value.")
    if len(dimensions) > MAX_DIMENSIONS:
        raise _invalid("dimensions", f"At most {MAX_DIMENSIONS} dimensions.")
    if sum(d in TIME_DIMENSIONS for d in dimensions) > 1:
        raise _invalid("dimensions", "At most one time dimension.")
    timezone = _timezone(body.get("timezone", default_timezone))
    if "date_range" not in body:
        raise _invalid("date_range", "The date range field is required.")
    first, last, start, end = _date_range(body["date_range"], now.astimezone(ZoneInfo(timezone)))
    days = (last - first).days + 1
    if days > MAX_DAYS:
        raise _invalid("date_range", f"The date range must not cover more than {MAX_DAYS} days.")
    if "time:hour" in dimensions and days > MAX_HOURLY_DAYS:
        raise _invalid(
            "dimensions", f"time:hour needs a date range of at most {MAX_HOURLY_DAYS} days."
        )
    filters = _filters(body.get("filters", []))
    if "percentage" in metrics and not dimensions:
        raise _invalid("metrics", "The percentage metric needs at least one dimension.")
    if "conversion_rate" in metrics and not (
        "event:name" in dimensions or any(_names_event(f) for f in filters)
    ):
        raise _invalid(
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
        tuple(filters),
        order_by,
        include,
        limit,
        offset,
    )


def _canonical(name: Any) -> Any:
    """Our name for a dimension sent under Plausible's (anything else unchanged)."""
    return ALIASES.get(name, name) if isinstance(name, str) else name


def _site_ids(value: Any) -> list[int]:
    ids = value if isinstance(value, list) else [value]
    if not ids or not all(isinstance(i, int) and not isinstance(i, bool) and i > 0 for i in ids):
        raise _invalid("site_id", "The site id field must be a website id or a list of them.")
    if len(ids) > MAX_SITES:
        raise _invalid("site_id", f"At most {MAX_SITES} websites in one query.")
    return list(dict.fromkeys(ids))


def _timezone(value: Any) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= MAX_TIMEZONE_LENGTH:
        raise _invalid("timezone", "The timezone field must be an IANA time zone name.")
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise _invalid("timezone", f"Unknown time zone {value!r}.") from None
    return value


def _local_midnight(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(), zone).astimezone(ZoneInfo("UTC"))


def _date_range(value: Any, now: datetime) -> tuple[date, date, datetime, datetime]:
    """(first day, last day) in the site's zone and the UTC instants [start, end)."""
    zone = now.tzinfo
    assert isinstance(zone, ZoneInfo)
    today = now.date()
    if isinstance(value, str):
        if value not in PRESETS:
            raise _invalid("date_range", f"The date range must be one of: {', '.join(PRESETS)}.")
        if value == "24h":
            start = (now - timedelta(hours=24)).astimezone(ZoneInfo("UTC"))
            return (now - timedelta(hours=24)).date(), today, start, now.astimezone(ZoneInfo("UTC"))
        first = _preset_start(value, today)
        return (
            first,
            today,
            _local_midnight(first, zone),
            _local_midnight(today + timedelta(1), zone),
        )
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise _invalid("date_range", "The date range must be a preset or two ISO 8601 dates.")
    if all(len(v) == 10 for v in value):
        try:
            first, last = (date.fromisoformat(v) for v in value)
        except ValueError:
            raise _invalid("date_range", "The dates must be ISO 8601 (YYYY-MM-DD).") from None
        if last < first:
            raise _invalid("date_range", "The date range must not end before it starts.")
        return first, last, _local_midnight(first, zone), _local_midnight(last + timedelta(1), zone)
    try:
        start_at, end_at = (datetime.fromisoformat(v) for v in value)
    except ValueError:
        raise _invalid("date_range", "The datetimes must be ISO 8601 with an offset.") from None
    if start_at.tzinfo is None or end_at.tzinfo is None:
        raise _invalid("date_range", "The datetimes must be ISO 8601 with an offset.")
    if end_at < start_at:
        raise _invalid("date_range", "The date range must not end before it starts.")
    # the second datetime is the last instant included, as Plausible's "15:59:59"
    utc = ZoneInfo("UTC")
    return (
        start_at.astimezone(zone).date(),
        end_at.astimezone(zone).date(),
        start_at.astimezone(utc),
        (end_at + timedelta(seconds=1)).astimezone(utc),
    )


def _preset_start(preset: str, today: date) -> date:
    if preset == "day":
        return today
    if preset.endswith("d"):
        return today - timedelta(days=int(preset[:-1]) - 1)
    if preset == "month":
        return today.replace(day=1)
    if preset.endswith("mo"):
        months = int(preset[:-2]) - 1
        year, month = divmod(today.year * 12 + today.month - 1 - months, 12)
        return date(year, month + 1, 1)
    if preset == "year":
        return today.replace(month=1, day=1)
    return today - timedelta(days=MAX_DAYS - 1)  # "all": as far back as the data is kept


def _filters(value: Any) -> list[Filter]:
    if not isinstance(value, list):
        raise _invalid("filters", "The filters field must be a list of filters.")
    count = [0]
    return [_filter(item, 1, count) for item in value]


def _filter(value: Any, depth: int, count: list[int]) -> Filter:
    if depth > MAX_FILTER_DEPTH:
        raise _invalid("filters", f"Filters must not nest deeper than {MAX_FILTER_DEPTH}.")
    if not isinstance(value, list) or not value or not isinstance(value[0], str):
        raise _invalid("filters", "Each filter must be a list starting with its operator.")
    operator = value[0]
    if operator in ("and", "or"):
        if len(value) != 2 or not isinstance(value[1], list) or not value[1]:
            raise _invalid("filters", f'"{operator}" takes one non-empty list of filters.')
        parts = tuple(_filter(part, depth + 1, count) for part in value[1])
        return Logical(operator, parts)  # type: ignore[arg-type]
    if operator == "not":
        if len(value) != 2:
            raise _invalid("filters", '"not" takes one filter.')
        return Logical("not", (_filter(value[1], depth + 1, count),))
    if operator not in FILTER_OPERATORS:
        allowed = ", ".join((*FILTER_OPERATORS, "and", "or", "not"))
        raise _invalid("filters", f"Unknown filter operator {operator!r}. Allowed: {allowed}.")
    count[0] += 1
    if count[0] > MAX_CONDITIONS:
        raise _invalid("filters", f"At most {MAX_CONDITIONS} filters.")
    if len(value) not in (3, 4):
        raise _invalid("filters", "A filter is [operator, dimension, clauses(, modifiers)].")
    dimension, clauses = _canonical(value[1]), value[2]
    if dimension not in EVENT_DIMENSIONS and dimension not in VISIT_DIMENSIONS:
        raise _invalid("filters", f"Cannot filter by {dimension!r}.")
    if not isinstance(clauses, list) or not clauses or not all(isinstance(c, str) for c in clauses):
        raise _invalid("filters", "A filter's clauses must be a non-empty list of strings.")
    if len(clauses) > MAX_CLAUSES:
        raise _invalid("filters", f"At most {MAX_CLAUSES} clauses in one filter.")
    if any(len(c) > MAX_CLAUSE_LENGTH for c in clauses):
        raise _invalid("filters", f"A clause must not exceed {MAX_CLAUSE_LENGTH} characters.")
    if operator.startswith("matches"):
        for pattern in clauses:
            if len(pattern) > MAX_PATTERN_LENGTH:
                raise _invalid(
                    "filters", f"A pattern must not exceed {MAX_PATTERN_LENGTH} characters."
                )
            if _NOT_RE2.search(pattern):
                raise _invalid(
                    "filters",
                    f"Pattern {pattern!r} uses lookaround, backreferences or possessive "
                    "quantifiers, which RE2 does not have.",
                )
            try:
                re.compile(pattern)
            except re.error as err:
                raise _invalid(
                    "filters", f"Invalid regular expression {pattern!r}: {err}."
                ) from None
    case_sensitive = True
    if len(value) == 4:
        modifiers = value[3]
        if (
            not isinstance(modifiers, dict)
            or set(modifiers) - {"case_sensitive"}
            or not isinstance(modifiers.get("case_sensitive", True), bool)
        ):
            raise _invalid("filters", 'Filter modifiers are {"case_sensitive": true|false}.')
        case_sensitive = modifiers.get("case_sensitive", True)
    return Condition(operator, dimension, tuple(clauses), case_sensitive)


def _names_event(item: Filter) -> bool:
    """Whether a top-level filter is on event:name (a goal, for conversion_rate)."""
    return isinstance(item, Condition) and item.dimension == "event:name" and item.operator == "is"


def _order_by(value: Any, metrics: list[str], dimensions: list[str]) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _invalid("order_by", "The order by field must be a list of [name, direction].")
    pairs = []
    for pair in value:
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or _canonical(pair[0]) not in (*metrics, *dimensions)
            or pair[1] not in ("asc", "desc")
        ):
            raise _invalid(
                "order_by",
                'Each order is [a queried metric or dimension, "asc" or "desc"].',
            )
        pairs.append((_canonical(pair[0]), pair[1]))
    return tuple(pairs)


def _include(value: Any, dimensions: list[str]) -> Include:
    if not isinstance(value, dict) or set(value) - {"total_rows", "time_labels", "comparisons"}:
        raise _invalid("include", "The include field takes total_rows, time_labels, comparisons.")
    for flag in ("total_rows", "time_labels"):
        if not isinstance(value.get(flag, False), bool):
            raise _invalid("include", f"include.{flag} must be true or false.")
    if value.get("time_labels") and not any(d in TIME_DIMENSIONS for d in dimensions):
        raise _invalid("include", "include.time_labels needs a time dimension.")
    comparisons = value.get("comparisons")
    if comparisons is not None:
        mode = comparisons.get("mode") if isinstance(comparisons, dict) else None
        if mode not in COMPARISONS:
            raise _invalid(
                "include", f'include.comparisons is {{"mode": one of {", ".join(COMPARISONS)}}}.'
            )
        comparisons = mode
    return Include(
        bool(value.get("total_rows", False)), bool(value.get("time_labels", False)), comparisons
    )


def _pagination(value: Any) -> tuple[int, int]:
    if not isinstance(value, dict) or set(value) - {"limit", "offset"}:
        raise _invalid("pagination", "The pagination field takes limit and offset.")
    limit, offset = value.get("limit", MAX_LIMIT), value.get("offset", 0)
    for name, number, top in (("limit", limit, MAX_LIMIT), ("offset", offset, MAX_OFFSET)):
        low = 1 if name == "limit" else 0
        if not isinstance(number, int) or isinstance(number, bool) or not low <= number <= top:
            raise _invalid("pagination", f"pagination.{name} must be from {low} to {top}.")
    return limit, offset
