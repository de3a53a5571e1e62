"""Imports: rows a second read from each format into the imported tables and written as their
Parquet files (`analytics.imports.jobs.read_file`, what the import task runs under `make
serve` and deployed alike): a Plausible CSV export zip, a GA4 Data API report, GA4 BigQuery
export rows and an Umami CSV export, generated.

Sized at 50,000 rows a format (BENCH_IMPORT_ROWS changes it), 10,000 in quick mode; the
four run in well under 20 s on a shared core."""

from __future__ import annotations

import io
import json
import os
import time
import zipfile
from datetime import date, timedelta
from pathlib import Path

from sitelens.analytics.imports import jobs
from tests.bench import report, timing
from tests.integration.imports.files import UMAMI_HEADER

ROWS = 10_000 if timing.QUICK else int(os.environ.get("BENCH_IMPORT_ROWS", "50000"))
DAYS = 100
FIRST = date(2025, 1, 1)


def _day(n: int) -> date:
    return FIRST + timedelta(days=n % DAYS)


def plausible(path: Path) -> None:
    """A zip of imported_pages rows (a page a row, a day each) and its days' visitors."""
    pages = ["date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors"]
    pages += [f"{_day(n)},b.example,/p/{n // DAYS},3,2,5,,0" for n in range(ROWS - DAYS)]
    visitors = ["date,visitors,pageviews,bounces,visits,visit_duration"]
    visitors += [f"{_day(n)},100,300,40,120,6000" for n in range(DAYS)]
    span = f"{FIRST:%Y%m%d}_{_day(DAYS - 1):%Y%m%d}"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"imported_pages_{span}.csv", "\n".join(pages) + "\n")
        archive.writestr(f"imported_visitors_{span}.csv", "\n".join(visitors) + "\n")
    path.write_bytes(out.getvalue())


def ga4_report(path: Path) -> None:
    rows = [
        {
            "dimensionValues": [{"value": f"{_day(n):%Y%m%d}"}, {"value": f"/p/{n // DAYS}"}],
            "metricValues": [{"value": "2"}, {"value": "3"}, {"value": "5"}],
        }
        for n in range(ROWS)
    ]
    report_ = {
        "dimensionHeaders": [{"name": "date"}, {"name": "pagePath"}],
        "metricHeaders": [
            {"name": "totalUsers"},
            {"name": "sessions"},
            {"name": "screenPageViews"},
        ],
        "rows": rows,
    }
    path.write_text(json.dumps(report_))


def ga4_bigquery(path: Path) -> None:
    epoch = (FIRST - date(1970, 1, 1)).days * 86_400
    with path.open("w") as out:
        for n in range(ROWS):
            user, session = n // 20, n // 5
            seconds = epoch + (n % DAYS) * 86_400 + n % 3600
            event = {
                "event_date": f"{_day(n):%Y%m%d}",
                "event_timestamp": str(seconds * 1_000_000),
                "event_name": "page_view",
                "user_pseudo_id": f"u{user}",
                "event_params": [
                    {"key": "ga_session_id", "value": {"int_value": session}},
                    {
                        "key": "page_location",
                        "value": {"string_value": f"https://b.example/p/{n % 500}"},
                    },
                ],
                "device": {
                    "category": "desktop",
                    "operating_system": "Linux",
                    "web_info": {"browser": "Firefox"},
                },
                "geo": {"country": "Germany"},
                "traffic_source": {"source": "google", "medium": "organic"},
            }
            out.write(json.dumps(event) + "\n")


def umami(path: Path) -> None:
    with path.open("w") as out:
        out.write(UMAMI_HEADER + "\n")
        for n in range(ROWS):
            at = f"{_day(n)} 10:{n % 60:02d}:{n % 59:02d}"
            out.write(
                f"w,s{n // 20},v{n // 5},e{n},b.example,firefox,Linux,desktop,1920x1080,en,DE,,"
                f"Berlin,/p/{n % 500},,,,,,,,,www.google.com,T,1,,{at}\n"
            )


MAKERS = {
    "plausible": plausible,
    "ga4_report": ga4_report,
    "ga4_bigquery": ga4_bigquery,
    "umami": umami,
}


def test_import_rows_a_second(tmp_path: Path) -> None:
    found = {}
    for name, make in MAKERS.items():
        work = tmp_path / name
        work.mkdir()
        source = work / "source"
        make(source)
        started = time.perf_counter()
        read = jobs.read_file(source, None, work)  # the format found from the content
        seconds = time.perf_counter() - started
        assert read["format"] == name and read["rows"] >= ROWS * 0.99, read
        found[name] = {
            "rows": read["rows"],
            "seconds": round(seconds, 2),
            "rows_per_s": round(read["rows"] / seconds),
            "mib": round(source.stat().st_size / 1024**2, 1),
        }
    report.RESULTS["imports"] = found
    report.CONTEXT["imports"] = {
        "files": f"{ROWS} rows a format over {DAYS} days (pages; GA4 and Umami as events)",
        "engine": "DuckDB (analytics.imports.jobs.read_file): read, summed, written as Parquet",
    }
