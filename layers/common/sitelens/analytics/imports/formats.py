"""The formats an import reads, found from the file's content (or given), each read into
the imported tables (`tables`) of a DuckDB connection:

- `plausible`: Plausible's CSV export, a zip of `imported_<table>_<YYYYMMDD>_<YYYYMMDD>.csv`
  files (or `<table>_...csv`), each with its table's columns;
- `ga4_report`: the GA4 Data API's `runReport` answer (or `batchRunReports`', or a list of
  reports) as JSON, a report per table by the dimension beside `date`;
- `ga4_bigquery`: GA4's BigQuery export rows, one event a line (NDJSON) (`events`);
- `umami`: Umami's CSV export of its `website_event` rows (`events`).
"""

from __future__ import annotations

import csv
import json
import re
import zipfile
from pathlib import Path
from typing import Any, Final

from sitelens.analytics.imports import events
from sitelens.analytics.imports.events import Unreadable
from sitelens.analytics.imports.tables import TABLES, columns, create_sql

FORMATS: Final = ("plausible", "ga4_report", "ga4_bigquery", "umami")
_PLAUSIBLE_NAME: Final = re.compile(r"(?:imported_)?([a-z_]+?)_(\d{8})_(\d{8})\.csv")
MAX_UNZIPPED: Final = 200 * 1024 * 1024  # a zip's files, unpacked: a zip bomb stops here
# GA4 dimension beside `date` -> (table, its column)
GA4_DIMENSIONS: Final = {
    "sessionSource": ("imported_sources", "source"),
    "pagePath": ("imported_pages", "page"),
    "landingPage": ("imported_entry_pages", "entry_page"),
    "countryId": ("imported_locations", "country"),
    "country": ("imported_locations", "country"),
    "deviceCategory": ("imported_devices", "device"),
    "browser": ("imported_browsers", "browser"),
    "operatingSystem": ("imported_operating_systems", "operating_system"),
    "eventName": ("imported_custom_events", "name"),
}
_GA4_COUNTS: Final = {
    "visitors": ("totalUsers", "activeUsers"),
    "visits": ("sessions",),
    "entrances": ("sessions",),
    "pageviews": ("screenPageViews",),
    "events": ("eventCount",),
    "visit_duration": ("userEngagementDuration",),
}


def detect(path: Path) -> str:
    """The format of a file, from its first bytes; Unreadable when it is none of them."""
    with path.open("rb") as opened:
        head = opened.read(4096)
    if head.startswith(b"PK\x03\x04"):
        return "plausible"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"["):
        return "ga4_report"
    if text.startswith(b"{"):
        first = text.split(b"\n", 1)[0]
        if b'"event_timestamp"' in first or b'"event_name"' in first:
            return "ga4_bigquery"
        return "ga4_report"
    header = text.split(b"\n", 1)[0].decode("utf-8", "replace").lower()
    if all(name in header for name in events.UMAMI_REQUIRED):
        return "umami"
    raise Unreadable(
        "The file is none of the formats read: a Plausible export zip, a GA4 report (JSON), "
        "GA4 BigQuery rows (NDJSON) or an Umami CSV export."
    )


def load(connection: Any, path: Path, file_format: str, work: Path) -> int:
    """Read the file into the imported tables (created empty first); the rows read."""
    for table in TABLES:
        connection.execute(create_sql(table))
    events.functions(connection)
    if file_format == "plausible":
        return _plausible(connection, path, work)
    if file_format == "ga4_report":
        return _ga4_reports(connection, path, work)
    if file_format == "ga4_bigquery":
        return events.load_bigquery(connection, path, work)
    return events.load_umami(connection, path)


def _plausible(connection: Any, path: Path, work: Path) -> int:
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise Unreadable("The file is not a readable zip.") from None
    rows = 0
    with archive:
        members = []
        for info in archive.infolist():
            found = _PLAUSIBLE_NAME.fullmatch(Path(info.filename).name)
            if found and f"imported_{found[1]}" in TABLES:
                members.append((info, f"imported_{found[1]}"))
        if not members:
            raise Unreadable(
                "The zip holds no Plausible export file (imported_<table>_<from>_<to>.csv)."
            )
        if sum(info.file_size for info, _ in members) > MAX_UNZIPPED:
            raise Unreadable(f"The zip's files unpack to more than {MAX_UNZIPPED} bytes.")
        for number, (info, table) in enumerate(members):
            target = work / f"{number:03d}.csv"
            try:
                target.write_bytes(archive.read(info))
            except (zipfile.BadZipFile, OSError, EOFError) as err:
                raise Unreadable(f"{info.filename} cannot be unpacked: {err}") from None
            rows += _plausible_table(connection, target, table, Path(info.filename).name)
    return rows


def _plausible_table(connection: Any, csv_path: Path, table: str, name: str) -> int:
    import duckdb

    source = f"read_csv('{csv_path}', header = true, all_varchar = true)"
    try:
        header = {c[0] for c in connection.execute(f"SELECT * FROM {source} LIMIT 0").description}  # noqa: S608
    except duckdb.Error as err:
        raise Unreadable(f"{name} is not a CSV file: {err}") from None
    texts, counts = TABLES[table]
    missing = [c for c in ("date", *texts[:1], "visitors") if c not in header]
    if missing:
        raise Unreadable(f"{name} lacks the columns {', '.join(missing)}.")
    chosen = [
        "CAST(date AS DATE)",
        *(f"coalesce({c}, '')" if c in header else "''" for c in texts),
        *(f"CAST(coalesce({c}, '0') AS BIGINT)" if c in header else "0" for c in counts),
    ]
    try:
        before = connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: S608
        connection.execute(
            f"INSERT INTO {table} SELECT {', '.join(chosen)} FROM {source}"  # noqa: S608
        )
        after = connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: S608
    except duckdb.Error as err:
        raise Unreadable(f"{name} has a value that is not its column's: {err}") from None
    return int(after - before)


def _reports(document: Any) -> list[dict[str, Any]]:
    if isinstance(document, dict) and isinstance(document.get("reports"), list):
        document = document["reports"]
    found = document if isinstance(document, list) else [document]
    if not found or not all(isinstance(r, dict) and "dimensionHeaders" in r for r in found):
        raise Unreadable("The JSON is not a GA4 Data API report (dimensionHeaders, rows).")
    return found


def _ga4_reports(connection: Any, path: Path, work: Path) -> int:
    try:
        document = json.loads(path.read_text(encoding="utf-8-sig"))
    except (ValueError, UnicodeDecodeError):
        raise Unreadable("The file is not valid JSON.") from None
    rows = 0
    for number, report in enumerate(_reports(document)):
        rows += _ga4_report(connection, report, number, work / f"report-{number}.csv")
    return rows


def _ga4_report(connection: Any, report: dict[str, Any], number: int, out: Path) -> int:
    dimensions = [h.get("name") for h in report.get("dimensionHeaders") or []]
    metrics = [h.get("name") for h in report.get("metricHeaders") or []]
    others = [d for d in dimensions if d != "date" and d in GA4_DIMENSIONS]
    if "date" not in dimensions or len(others) > 1:
        raise Unreadable(
            f"Report {number + 1}: a GA4 report read here has the date dimension and at most "
            f"one of {', '.join(GA4_DIMENSIONS)}."
        )
    table, column = GA4_DIMENSIONS[others[0]] if others else ("imported_visitors", "")
    texts, counts = TABLES[table]
    written = []
    for row in report.get("rows") or []:
        try:
            named = {
                d: v.get("value") or ""
                for d, v in zip(dimensions, row["dimensionValues"], strict=True)
            }
            values = {
                m: float(v.get("value") or 0)
                for m, v in zip(metrics, row["metricValues"], strict=True)
            }
            day = named["date"]
            iso = f"{day[:4]}-{day[4:6]}-{day[6:8]}" if len(day) == 8 else day
        except (KeyError, TypeError, ValueError, AttributeError):
            raise Unreadable(f"Report {number + 1} has a row that is not a GA4 row.") from None
        if (
            others
            and others[0] == "eventName"
            and named[others[0]]
            in (
                *events.GA4_AUTOMATIC,
                "page_view",
            )
        ):
            continue
        text = {name: "" for name in texts}
        if column:
            text[column] = _ga4_value(others[0], named[others[0]])
        written.append((iso, *text.values(), *(_ga4_count(c, values) for c in counts)))
    if written:
        with out.open("w", newline="") as opened:
            csv.writer(opened).writerows(written)
        import duckdb

        kinds = {
            "date": "DATE",
            **dict.fromkeys(texts, "VARCHAR"),
            **dict.fromkeys(counts, "BIGINT"),
        }
        names = ", ".join(f"'{c}': '{kinds[c]}'" for c in columns(table))
        source = f"read_csv('{out}', header = false, columns = {{{names}}})"
        try:  # a file of our own writing, its texts quoted by csv
            connection.execute(f"INSERT INTO {table} SELECT * FROM {source}")  # noqa: S608
        except duckdb.Error as err:  # a date that is none
            raise Unreadable(
                f"Report {number + 1} has a value that is not its column's: {err}"
            ) from None
    return len(written)


def _ga4_value(dimension: str, value: str) -> str:
    if dimension == "sessionSource":
        return events.source_name(value)
    if dimension in ("country", "countryId"):
        return events.country_code(value)
    if dimension == "deviceCategory":
        return events.device_label(value)
    if value in ("(not set)", "(other)"):
        return ""
    return value


def _ga4_count(column: str, values: dict[str, float]) -> int:
    """A count of Plausible's table from a GA4 row's metrics (0 where GA4 has none)."""
    if column == "bounces":
        if "bounces" in values:
            return round(values["bounces"])
        if "engagedSessions" in values and "sessions" in values:
            return round(values["sessions"] - values["engagedSessions"])
        return round(values.get("bounceRate", 0) * values.get("sessions", 0))
    if column == "exits":
        return 0
    if column == "visit_duration" and "userEngagementDuration" not in values:
        return round(values.get("averageSessionDuration", 0) * values.get("sessions", 0))
    if column == "visits" and "sessions" not in values:
        return round(values.get("totalUsers", values.get("activeUsers", 0)))
    return round(next((values[m] for m in _GA4_COUNTS.get(column, ()) if m in values), 0))
