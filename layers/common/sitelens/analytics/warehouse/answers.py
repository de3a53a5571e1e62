"""A query's answer in the Stats API v2 shape, from whichever engine runs the SQL.

`answer(query, run, dialect)` renders the statement, runs it with `run` (DuckDB locally,
Athena deployed), and shapes `results`, `meta` (`total_rows`, `time_labels`) and, for
`include.comparisons`, each row's `comparison` over the previous period or the year before.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sitelens.analytics import sources
from sitelens.analytics.warehouse.dimensions import SOURCE_DIMENSIONS, TIME_DIMENSIONS
from sitelens.analytics.warehouse.query import Query

# A query's rows: its dimensions, its metrics, then the number of groups before paging,
# from the warehouse's SQL (`sql.statement`) or from the statistics counters (`rollups`).
Rows = Callable[[Query], Sequence[Sequence[Any]]]


def _number(value: Any) -> int | float:
    if value is None:
        return 0
    if isinstance(value, float) and value.is_integer() and not isinstance(value, bool):
        return value
    return value if isinstance(value, int | float) else float(value)


def _rows(query: Query, rows: Rows) -> tuple[list[dict[str, Any]], int]:
    found = rows(query)
    width = len(query.dimensions)
    unnamed = [d in SOURCE_DIMENSIONS for d in query.dimensions]  # "" is Plausible's label
    results = [
        {
            "dimensions": [
                sources.NONE if label and value == "" else str(value)
                for value, label in zip(row[:width], unnamed, strict=True)
            ],
            "metrics": [_number(value) for value in row[width : width + len(query.metrics)]],
        }
        for row in found
    ]
    total = int(found[0][-1]) if found else 0
    return results, total


def time_labels(query: Query) -> list[str]:
    """Every bucket of the query's time dimension over its range, in the site's zone."""
    dimension = query.time_dimension
    if dimension is None:
        return []
    if dimension == "time:hour":
        zone = ZoneInfo(query.timezone)
        first = datetime.combine(query.first_day, time(), zone)
        count = ((query.last_day - query.first_day).days + 1) * 24
        hours = (first + timedelta(hours=n) for n in range(count))
        return list(dict.fromkeys(hour.strftime("%Y-%m-%d %H:00:00") for hour in hours))
    days = [
        query.first_day + timedelta(days=n)
        for n in range((query.last_day - query.first_day).days + 1)
    ]
    if dimension == "time:week":  # Monday, or the range's first day in its first week
        days = [max(day - timedelta(days=day.weekday()), query.first_day) for day in days]
    elif dimension == "time:month":
        days = [day.replace(day=1) for day in days]
    return list(dict.fromkeys(day.isoformat() for day in days))


def _filled(query: Query, results: list[dict[str, Any]], labels: list[str]) -> list[dict[str, Any]]:
    """With the time dimension alone, a zero row for every bucket without data."""
    if query.dimensions != (query.time_dimension,):
        return results
    by_label = {row["dimensions"][0]: row for row in results}
    zero = [0] * len(query.metrics)
    return [by_label.get(label, {"dimensions": [label], "metrics": zero}) for label in labels]


def comparison_range(query: Query) -> tuple[datetime, datetime, date, date]:
    """The range a comparison covers: as long, just before; or the same dates a year back."""
    if query.include.comparisons == "year_over_year":

        def back(day: date) -> date:
            try:
                return day.replace(year=day.year - 1)
            except ValueError:  # 29 February
                return day.replace(year=day.year - 1, day=28)

        first, last = back(query.first_day), back(query.last_day)
        shift = query.start - datetime.combine(query.first_day, time(), ZoneInfo(query.timezone))
        zone = ZoneInfo(query.timezone)
        start = datetime.combine(first, time(), zone) + shift
        end = start + (query.end - query.start)
        return start.astimezone(ZoneInfo("UTC")), end.astimezone(ZoneInfo("UTC")), first, last
    length = query.end - query.start
    days = (query.last_day - query.first_day).days + 1
    return (
        query.start - length,
        query.start,
        query.first_day - timedelta(days=days),
        query.first_day - timedelta(days=1),
    )


def _change(metric: str, now: float, before: float) -> float | int | None:
    """Plausible's change: points for the two rates (none for a bounce rate from 0), else
    the percent change as a whole number, 100 from nothing to something, 0 from 0 to 0."""
    if metric == "conversion_rate":
        return round(now - before, 1)
    if metric == "bounce_rate":
        return round(now - before, 1) if before > 0 else None
    if before == 0:
        return 100 if now else 0
    return _half_away_from_zero(100 * (now - before) / before)


def _half_away_from_zero(value: float) -> int:
    """Rounded as Plausible (Elixir's `round`) rounds, not to the even neighbour."""
    whole = math.floor(abs(value) + 0.5)
    return int(math.copysign(whole, value)) if whole else 0


def answer(query: Query, rows: Rows, echo: dict[str, Any]) -> dict[str, Any]:
    """The Stats API v2 answer: results, meta and the query as understood (`echo`)."""
    results, total = _rows(query, rows)
    if query.include.total_rows and not results and query.offset:
        # a page past the last row has no row to carry the count: ask the first for it
        _, total = _rows(dataclasses.replace(query, offset=0, limit=1), rows)
    meta: dict[str, Any] = {}
    # a time series names every bucket with time_labels, and for comparisons (as
    # Plausible's does), so that each bucket meets the earlier period's bucket in its place
    labels = time_labels(query) if query.include.time_labels or query.include.comparisons else []
    if query.include.time_labels:
        meta["time_labels"] = labels
    filled = bool(labels) and query.dimensions == (query.time_dimension,)
    if filled:
        results = _filled(query, results, labels)
    if query.include.total_rows:
        meta["total_rows"] = len(results) if filled else total
    if query.include.comparisons:
        start, end, first, last = comparison_range(query)
        earlier = query.shifted(start, end, first, last)
        before, _ = _rows(earlier, rows)
        earlier_labels = time_labels(earlier)
        if filled:
            before = _filled(earlier, before, earlier_labels)
        matched = _match(query, before, labels, earlier_labels)
        for row in results:
            past = matched.get(tuple(row["dimensions"]))
            metrics = past["metrics"] if past else [0] * len(query.metrics)
            row["comparison"] = {
                "dimensions": (
                    past["dimensions"]
                    if past
                    else _earlier_dimensions(query, row, labels, earlier_labels)
                ),
                "metrics": metrics,
                "change": [
                    _change(name, now, then)
                    for name, now, then in zip(query.metrics, row["metrics"], metrics, strict=True)
                ],
            }
        meta["comparison_date_range"] = [first.isoformat(), last.isoformat()]
    return {"results": results, "meta": meta, "query": echo}


def _time_position(query: Query) -> int | None:
    return next((n for n, d in enumerate(query.dimensions) if d in TIME_DIMENSIONS), None)


def _earlier_dimensions(
    query: Query, row: dict[str, Any], labels: list[str], earlier: list[str]
) -> list[str]:
    """A row's dimensions in the earlier period: its time bucket moved to the one in the
    same place (2021-01-07 against 2020-12-31), the others as they are."""
    dimensions = list(row["dimensions"])
    position = _time_position(query)
    if position is not None:
        back = dict(zip(labels, earlier, strict=False))
        dimensions[position] = back.get(dimensions[position], dimensions[position])
    return dimensions


def _match(
    query: Query, before: list[dict[str, Any]], labels: list[str], earlier: list[str]
) -> dict[tuple[str, ...], dict[str, Any]]:
    """The earlier rows by the dimensions of the row they compare with: time buckets by
    position (the n-th bucket with the n-th), other dimensions by value."""
    position = _time_position(query)
    translate = dict(zip(earlier, labels, strict=False))
    matched = {}
    for row in before:
        key = list(row["dimensions"])
        if position is not None:
            if key[position] not in translate:
                continue
            key[position] = translate[key[position]]
        matched[tuple(key)] = row
    return matched
