"""`include: {"imports": true}` in `POST /api/v1/query`, as Plausible does it: the imported
daily tables are summed over the query's days and added to the native answer, metric by
metric, for the queries they can answer; any other runs on native data alone and says why
in `meta` (`imports_skip_reason`, `imports_warning`, Plausible's words).

The rule that keeps a day from counting twice (docs/imports.md): imported rows count only
for the days before the site's first native day (`first_native_day`), the day its own
events begin, as Plausible clips an import to before its native stats start.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import date, datetime, time
from decimal import ROUND_HALF_UP, Decimal
from operator import itemgetter
from typing import Any, Final
from zoneinfo import ZoneInfo

from sitelens.analytics.imports import sums
from sitelens.analytics.warehouse import answers
from sitelens.analytics.warehouse.dimensions import TIME_DIMENSIONS
from sitelens.analytics.warehouse.query import MAX_LIMIT, Include, Query
from sitelens.data import imports as stored_imports

# a dimension -> the imported table that answers it, and its column (None: no dimension)
TABLE_OF: Final[dict[str | None, tuple[str, str]]] = {
    None: ("imported_visitors", ""),
    "event:page": ("imported_pages", "page"),
    "visit:source": ("imported_sources", "source"),
    "visit:entry_page": ("imported_entry_pages", "entry_page"),
    "visit:exit_page": ("imported_exit_pages", "exit_page"),
    "visit:country": ("imported_locations", "country"),
    "visit:device": ("imported_devices", "device"),
    "visit:browser": ("imported_browsers", "browser"),
    "visit:os": ("imported_operating_systems", "operating_system"),
    "event:goal": ("imported_custom_events", "name"),
}
_VISIT_COUNTS: Final = {
    "visitors": "visitors",
    "visits": "visits",
    "pageviews": "pageviews",
    "bounces": "bounces",
    "visit_duration": "visit_duration",
    "events": "pageviews",  # as Plausible: an imported day's events are its pageviews
}
# each table's sums under the names the metrics are made of
SUMS: Final[dict[str, dict[str, str]]] = {
    "imported_pages": {n: _VISIT_COUNTS[n] for n in ("visitors", "visits", "pageviews", "events")},
    "imported_entry_pages": {**_VISIT_COUNTS, "visits": "entrances"},
    "imported_exit_pages": {**_VISIT_COUNTS, "visits": "exits"},
    "imported_custom_events": {"visitors": "visitors", "events": "events"},
}
# a metric -> the sums it is made of
NEEDS: Final = {
    "visitors": ("visitors",),
    "visits": ("visits",),
    "pageviews": ("pageviews",),
    "events": ("events",),
    "bounce_rate": ("bounces", "visits"),
    "visit_duration": ("visit_duration", "visits"),
    "views_per_visit": ("pageviews", "visits"),
}
WARNINGS: Final = {
    "unsupported_query": (
        "Imported stats are not included in the results because query parameters are not "
        "supported. For more information, see: docs/imports.md"
    ),
    "unsupported_interval": (
        "Imported stats are not included because the time dimension (i.e. the interval) is "
        "too short."
    ),
}


def _sums(table: str) -> dict[str, str]:
    return SUMS.get(table, _VISIT_COUNTS)


def unsupported(query: Query) -> str | None:
    """Why imported rows cannot answer the query (Plausible's reason), or None."""
    if "time:hour" in query.dimensions:
        return "unsupported_interval"
    others = [d for d in query.dimensions if d not in TIME_DIMENSIONS]
    if query.filters or len(others) > 1 or (others and others[0] not in TABLE_OF):
        return "unsupported_query"
    table, _ = TABLE_OF[others[0] if others else None]
    if any(m not in NEEDS or set(NEEDS[m]) - set(_sums(table)) for m in query.metrics):
        return "unsupported_query"
    return None


@dataclasses.dataclass(frozen=True)
class Imported:
    """The done imports of each queried site holding the query's table, and the day each
    site's stop counting (or None)."""

    sites: sums.Sites


def found(
    account: str, query: Query, native: Callable[[Query], answers.Rows]
) -> tuple[Imported, str | None]:
    """The queried sites' done imports and the day each site's stop counting, and why none
    can count in the range (or None)."""
    sites: dict[int, tuple[list[int], str | None]] = {}
    others = [d for d in query.dimensions if d not in TIME_DIMENSIONS]
    table, _ = TABLE_OF[others[0] if others else None]  # the table the query reads
    in_range = any_done = False
    first, last = query.first_day.isoformat(), query.last_day.isoformat()
    for site in query.site_ids:
        done = [r for r in stored_imports.of_website(account, site) if r["status"] == "done"]
        earliest = min((r["from"] for r in done), default=None)
        clip = first_native_day(query, site, earliest, native) if earliest else None
        any_done = any_done or bool(done)
        # only those holding the table are read (none: no statement, no Athena query)
        held = [r for r in done if table in str(r.get("tables") or "").split(",")]
        sites[site] = ([int(r["id"]) for r in held], clip)
        for record in done:
            start, end = max(record["from"], first), min(record["to"], last)
            in_range = in_range or (start <= end and (clip is None or start < clip))
    if not any_done:
        return Imported(sites), "no_imported_data"
    return Imported(sites), (None if in_range else "out_of_range")


def first_native_day(
    query: Query, site: int, earliest: str, native: Callable[[Query], answers.Rows]
) -> str | None:
    """The site's first day (in the query's zone) with native events from its imports'
    first day to the query's last: imported rows count only before it (docs/imports.md).
    Asked as a native query, so it sees every engine's rows, landing's included."""
    first = date.fromisoformat(earliest)
    if first > query.last_day:
        return None
    zone = ZoneInfo(query.timezone)
    days = dataclasses.replace(
        query,
        site_ids=(site,),
        metrics=("events",),
        dimensions=("time:day",),
        filters=(),
        order_by=(("time:day", "asc"),),
        include=Include(),
        limit=1,
        offset=0,
        start=datetime.combine(first, time(), zone).astimezone(ZoneInfo("UTC")),
        first_day=first,
    )
    found = native(days)(days)
    return str(found[0][0]) if found else None


def meta(included: bool, reason: str | None) -> dict[str, Any]:
    """What `meta` says of imports when they were asked for."""
    shown: dict[str, Any] = {"imports_included": included}
    if reason:
        shown["imports_skip_reason"] = reason
        if reason in WARNINGS:
            shown["imports_warning"] = WARNINGS[reason]
    return shown


def imported_groups(query: Query, imported: Imported) -> dict[tuple[str, ...], dict[str, int]]:
    """The imported sums of each group of the query's dimensions over its days (`sums`)."""
    others = [d for d in query.dimensions if d not in TIME_DIMENSIONS]
    table, column = TABLE_OF[others[0] if others else None]
    return sums.groups(query, imported.sites, table, column, _sums(table))


def _rounded(value: float, places: int) -> float:
    exact = Decimal(str(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return float(exact)


def _merged(metric: str, native: dict[str, Any], imported: dict[str, int]) -> int | float:
    """A metric of native and imported figures together (rates weighted by visits)."""
    visits = float(native.get("visits") or 0)
    all_visits = visits + imported.get("visits", 0)
    if metric == "bounce_rate":
        bounces = float(native.get("bounce_rate") or 0) * visits / 100 + imported["bounces"]
        return _rounded(100 * bounces / all_visits, 1) if all_visits else 0
    if metric == "visit_duration":
        total = float(native.get("visit_duration") or 0) * visits + imported["visit_duration"]
        return int(_rounded(total / all_visits, 0)) if all_visits else 0
    if metric == "views_per_visit":
        pageviews = float(native.get("pageviews") or 0) + imported["pageviews"]
        return _rounded(pageviews / all_visits, 2) if all_visits else 0
    return int(native.get(metric) or 0) + imported.get(metric, 0)


def rows(native: Callable[[Query], answers.Rows], imported: Imported) -> answers.Rows:
    """The query's rows with the imported groups added: the native rows (from the source
    `native` chooses for a query) of every group, merged, ordered and paged here."""

    def merged(query: Query) -> list[list[Any]]:
        # the rates are weighted by visits (and views per visit made of pageviews)
        weighted = {"bounce_rate", "visit_duration", "views_per_visit"} & set(query.metrics)
        extra = ("visits", "pageviews") if weighted else ()
        wanted = list(dict.fromkeys([*query.metrics, *extra]))
        whole = dataclasses.replace(
            query, metrics=tuple(wanted), order_by=(), limit=MAX_LIMIT, offset=0, include=Include()
        )
        width = len(query.dimensions)
        natives = {
            tuple(str(v) for v in row[:width]): dict(zip(wanted, row[width:], strict=False))
            for row in native(whole)(whole)
        }
        groups = imported_groups(query, imported)
        found = []
        for key in dict.fromkeys([*natives, *groups]):
            sums = {**dict.fromkeys(NEEDS_ALL, 0), **groups.get(key, {})}
            found.append([*key, *(_merged(m, natives.get(key, {}), sums) for m in query.metrics)])
        ordered = _ordered(query, found)
        page = ordered[query.offset : query.offset + query.limit]
        return [[*row, len(ordered)] for row in page]

    return merged


NEEDS_ALL: Final = ("visitors", "visits", "pageviews", "bounces", "visit_duration", "events")


def _ordered(query: Query, found: list[list[Any]]) -> list[list[Any]]:
    """In the query's order, then Plausible's default, then each dimension (`sql.ordering`)."""
    width = len(query.dimensions)
    position = {d: n for n, d in enumerate(query.dimensions)}
    position.update({m: width + n for n, m in enumerate(query.metrics)})
    order = [(position[name], direction) for name, direction in query.order_by]
    time_key = position.get(query.time_dimension or "")
    default = [(time_key, "asc")] if time_key is not None else [(width, "desc")]
    for key, direction in [*default, *((n, "asc") for n in range(width))]:
        if all(key != chosen for chosen, _ in order):
            order.append((key, direction))
    for key, direction in reversed(order):  # stable sorts, the last order first
        found.sort(key=itemgetter(key), reverse=direction == "desc")
    return found
