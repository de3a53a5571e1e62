"""Raw events into the imported tables: Google Analytics 4's BigQuery export (NDJSON, a row
per event) and Umami's CSV export (its `website_event` rows) are first read into one table
of events (`EVENTS`), then each imported table is summed from it by the same SQL, visits
found as each format names them (GA4's `ga_session_id`, Umami's `visit_id`).

A visit's day is its first event's UTC day; its duration is from its first event to its
last (Plausible's rule); it bounces with one pageview and no custom event."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from sitelens.analytics import sources
from sitelens.analytics.imports.tables import TABLES, columns

PAGEVIEW: Final = "pageview"
EVENT_COLUMNS: Final = (
    "ts",
    "visitor",
    "visit",
    "name",
    "hostname",
    "page",
    "source",
    "referrer",
    "utm_source",
    "utm_medium",
    "utm_campaign",
    "utm_content",
    "utm_term",
    "country",
    "region",
    "city",
    "device",
    "browser",
    "os",
)
# GA4's events that are a visit's bookkeeping, not the site's own custom events
GA4_AUTOMATIC: Final = frozenset({"session_start", "first_visit", "user_engagement"})
UMAMI_REQUIRED: Final = ("session_id", "url_path", "event_type", "created_at")


class Unreadable(ValueError):
    """A file that is not the format it claims: the message says what is wrong."""


def _events_table(connection: Any, csv_path: Path) -> None:
    typed = ", ".join(f"'{c}': '{'TIMESTAMP' if c == 'ts' else 'VARCHAR'}'" for c in EVENT_COLUMNS)
    connection.execute(
        f"CREATE TABLE events AS SELECT * FROM read_csv('{csv_path}', header = true, "  # noqa: S608
        f"columns = {{{typed}}}, quote = '\"', escape = '\"')"
    )


@lru_cache(maxsize=1024)
def country_code(name: str) -> str:
    """An ISO 3166 alpha-2 code of a country's code or English name ("" when none)."""
    if not name or name.startswith("("):
        return ""
    if len(name) == 2:
        return name.upper()
    import pycountry

    try:
        return str(pycountry.countries.lookup(name).alpha_2)
    except LookupError:
        return ""


def device_label(value: str) -> str:
    return value[:1].upper() + value[1:].lower() if value else ""


def source_name(value: str) -> str:
    """A source as the warehouse names it: a referrer's host by its name, "(direct)" none."""
    value = (value or "").strip()
    if value in ("(direct)", "(none)", "(not set)", ""):
        return ""
    return sources.source(value.removeprefix("www.")) if "." in value else value


def _params(event: dict[str, Any]) -> dict[str, Any]:
    found = {}
    for param in event.get("event_params") or []:
        value = param.get("value") or {}
        found[param.get("key")] = next(
            (value[k] for k in ("string_value", "int_value", "double_value") if value.get(k)),
            None,
        )
    return found


def _utc(micros: int) -> str:
    moment = datetime.fromtimestamp(micros // 1_000_000, UTC)
    return f"{moment:%Y-%m-%d %H:%M:%S}.{micros % 1_000_000:06d}"


def bigquery_rows(path: Path, out: Path) -> int:
    """GA4's BigQuery export rows (NDJSON) as the events CSV; how many events."""
    count = 0
    with path.open(encoding="utf-8") as lines, out.open("w", newline="") as written:
        rows = csv.writer(written)
        rows.writerow(EVENT_COLUMNS)
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
                micros = int(event["event_timestamp"])
                name = str(event["event_name"])
            except (ValueError, KeyError, TypeError):
                raise Unreadable(
                    f"Line {number} is not a GA4 BigQuery event (event_timestamp, event_name)."
                ) from None
            if name in GA4_AUTOMATIC:
                continue
            params = _params(event)
            location = urlsplit(str(params.get("page_location") or ""))
            device = event.get("device") or {}
            geo = event.get("geo") or {}
            traffic = event.get("collected_traffic_source") or event.get("traffic_source") or {}
            visitor = str(event.get("user_pseudo_id") or "")
            referrer = urlsplit(str(params.get("page_referrer") or "")).hostname or ""
            rows.writerow(
                (
                    _utc(micros),
                    visitor,
                    f"{visitor}:{params.get('ga_session_id') or ''}",
                    PAGEVIEW if name == "page_view" else name,
                    location.hostname or "",
                    location.path or "/",
                    source_name(traffic.get("manual_source") or traffic.get("source") or referrer),
                    referrer,
                    traffic.get("manual_source") or "",
                    traffic.get("manual_medium") or traffic.get("medium") or "",
                    traffic.get("manual_campaign_name") or "",
                    traffic.get("manual_content") or "",
                    traffic.get("manual_term") or "",
                    country_code(str(geo.get("country") or "")),
                    str(geo.get("region") or ""),
                    str(geo.get("city") or ""),
                    device_label(str(device.get("category") or "")),
                    str((device.get("web_info") or {}).get("browser") or ""),
                    str(device.get("operating_system") or ""),
                )
            )
            count += 1
    return count


def load_bigquery(connection: Any, path: Path, work: Path) -> int:
    """Read GA4 BigQuery rows into the imported tables; the events read."""
    out = work / "events.csv"
    count = bigquery_rows(path, out)
    _events_table(connection, out)
    summed(connection)
    return count


def load_umami(connection: Any, path: Path) -> int:
    """Read Umami's CSV export (`website_event` rows) into the imported tables; its rows."""
    header = connection.execute(
        f"SELECT * FROM read_csv('{path}', header = true, all_varchar = true) LIMIT 0"  # noqa: S608
    ).description
    found = {column[0] for column in header}
    missing = [name for name in UMAMI_REQUIRED if name not in found]
    if missing:
        raise Unreadable(f"The Umami export lacks the columns {', '.join(missing)}.")

    def text(name: str) -> str:
        return f"coalesce({name}, '')" if name in found else "''"

    visit = "visit_id" if "visit_id" in found else "session_id"
    region = "region" if "region" in found else "subdivision1"
    connection.execute(
        "CREATE TABLE events AS SELECT "
        "CAST(created_at AS TIMESTAMP) AS ts, session_id AS visitor, "
        f"{visit} AS visit, "
        f"CASE WHEN event_type = '1' THEN '{PAGEVIEW}' ELSE {text('event_name')} END AS name, "
        f"{text('hostname')} AS hostname, {text('url_path')} AS page, "
        f"umami_source({text('referrer_domain')}) AS source, "
        f"{text('referrer_domain')} AS referrer, "
        + ", ".join(f"{text(c)} AS {c}" for c in EVENT_COLUMNS[8:13])
        + f", upper({text('country')}) AS country, {text(region)} AS region, "
        f"{text('city')} AS city, umami_device({text('device')}) AS device, "
        f"{text('browser')} AS browser, {text('os')} AS os "
        f"FROM read_csv('{path}', header = true, all_varchar = true) "
        "WHERE event_type IN ('1', '2')"
    )
    summed(connection)
    row = connection.execute("SELECT COUNT(*) FROM events").fetchone()
    return int(row[0]) if row else 0


def functions(connection: Any) -> None:
    """The Python rules the SQL calls: a referrer's source name, a device's label."""
    connection.create_function(
        "umami_source", source_name, ["VARCHAR"], "VARCHAR", null_handling="special"
    )
    connection.create_function("umami_device", device_label, ["VARCHAR"], "VARCHAR")


# a visit per visit id, its values its first event's (`pageview` is PAGEVIEW)
_VISITS: Final = """
CREATE TABLE visits AS
SELECT visit, any_value(visitor) AS visitor, CAST(min(ts) AS DATE) AS date,
  arg_min(source, ts) AS source, arg_min(referrer, ts) AS referrer,
  arg_min(utm_source, ts) AS utm_source, arg_min(utm_medium, ts) AS utm_medium,
  arg_min(utm_campaign, ts) AS utm_campaign, arg_min(utm_content, ts) AS utm_content,
  arg_min(utm_term, ts) AS utm_term, arg_min(country, ts) AS country,
  arg_min(region, ts) AS region, arg_min(city, ts) AS city, arg_min(device, ts) AS device,
  arg_min(browser, ts) AS browser, arg_min(os, ts) AS os,
  arg_min(page, ts) FILTER (WHERE name = 'pageview') AS entry_page,
  arg_max(page, ts) FILTER (WHERE name = 'pageview') AS exit_page,
  COUNT(*) FILTER (WHERE name = 'pageview') AS pageviews,
  COUNT(*) FILTER (WHERE name <> 'pageview') AS customs,
  CAST(date_diff('second', min(ts), max(ts)) AS BIGINT) AS duration
FROM events GROUP BY visit
"""
_VISIT_COUNTS: Final = {
    "visitors": "COUNT(DISTINCT visitor)",
    "visits": "COUNT(*)",
    "entrances": "COUNT(*)",
    "exits": "COUNT(*)",
    "pageviews": "SUM(pageviews)",
    "bounces": "SUM(CASE WHEN pageviews = 1 AND customs = 0 THEN 1 ELSE 0 END)",
    "visit_duration": "SUM(duration)",
}
_FROM_VISITS: Final = {
    "imported_visitors": {},
    "imported_sources": {},
    "imported_entry_pages": {"entry_page": "entry_page"},
    "imported_exit_pages": {"exit_page": "exit_page"},
    "imported_locations": {},
    "imported_devices": {},
    "imported_browsers": {"browser_version": "''"},
    "imported_operating_systems": {"operating_system": "os", "operating_system_version": "''"},
}


def summed(connection: Any) -> None:
    """Every imported table summed from `events` (a visit's values are its first event's)."""
    connection.execute(_VISITS)
    for table, renamed in _FROM_VISITS.items():
        texts, counts = TABLES[table]
        keys = [f"{renamed.get(name, name)} AS {name}" for name in texts]
        values = [f"CAST({_VISIT_COUNTS[name]} AS BIGINT) AS {name}" for name in counts]
        where = (
            "WHERE pageviews > 0"
            if table in ("imported_entry_pages", "imported_exit_pages")
            else ""
        )
        connection.execute(
            f"INSERT INTO {table} ({', '.join(columns(table))}) "  # noqa: S608
            f"SELECT date, {', '.join([*keys, *values])} FROM visits {where} "
            f"GROUP BY ALL"
        )
    connection.execute(
        "INSERT INTO imported_pages (date, hostname, page, visits, visitors, pageviews) "  # noqa: S608
        "SELECT CAST(ts AS DATE), any_value(hostname), page, COUNT(DISTINCT visit), "
        f"COUNT(DISTINCT visitor), COUNT(*) FROM events WHERE name = '{PAGEVIEW}' "
        "GROUP BY CAST(ts AS DATE), page"
    )
    connection.execute(
        "INSERT INTO imported_custom_events (date, name, link_url, path, visitors, events) "  # noqa: S608
        "SELECT CAST(ts AS DATE), name, '', '', COUNT(DISTINCT visitor), COUNT(*) FROM events "
        f"WHERE name <> '{PAGEVIEW}' GROUP BY ALL"
    )
