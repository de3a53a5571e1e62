"""Exports: throughput (rows a second) of writing a generated site's month of raw events as
one Parquet file and as CSV (`analytics.exports.write_file`, what the export task runs under
`make serve` and deployed alike), from merged day files in the warehouse's layout.

Sized at 300,000 rows over 30 days (BENCH_EXPORT_ROWS changes it), 30,000 in quick mode."""

from __future__ import annotations

import os
import time
from datetime import date, timedelta
from pathlib import Path

import duckdb

from sitelens.analytics import exports
from sitelens.analytics.warehouse import layout, schema
from tests.bench import report, timing

ROWS = 30_000 if timing.QUICK else int(os.environ.get("BENCH_EXPORT_ROWS", "300000"))
DAYS = 30
FIRST = date(2026, 10, 1)


def generate(root: Path) -> list[Path]:
    """One merged file a day of site 1, rows spread over the day, text columns varied."""
    connection = duckdb.connect()
    per_day = ROWS // DAYS
    files = []
    for n in range(DAYS):
        day = FIRST + timedelta(days=n)
        path = root / layout.compacted_file(1, day.isoformat())
        path.parent.mkdir(parents=True, exist_ok=True)
        values = {
            "hit_id": f"printf('%08d-{n:04d}-7000-8000-000000000000', i)",
            "ts": f"TIMESTAMP '{day} 00:00:00' + to_milliseconds(i * 86400000 // {per_day})",
            "visitor": "md5(CAST(i // 3 AS VARCHAR))",
            "name": "CASE WHEN i % 10 = 0 THEN 'engagement' ELSE 'pageview' END",
            "page": "'/page/' || CAST(i % 500 AS VARCHAR)",
            "engagement_ms": "CAST(i % 60000 AS BIGINT)",
            "interactive": "FALSE",
        }
        columns = ", ".join(
            f"({values.get(name, 'NULL' if kind != 'string' else chr(39) * 2)})::"
            f"{schema.DUCKDB_TYPES[kind]} AS {name}"
            for name, kind in schema.COLUMNS
        )
        connection.execute(
            f"COPY (SELECT {columns} FROM range({per_day}) AS t(i)) TO '{path}' (FORMAT parquet)"
        )
        files.append(path)
    connection.close()
    return files


def test_export_throughput(tmp_path: Path) -> None:
    files = generate(tmp_path / "warehouse")
    found = {}
    last = FIRST + timedelta(days=DAYS - 1)
    for file_format in exports.FORMATS:
        out = tmp_path / f"events.{file_format}"
        started = time.perf_counter()
        rows = exports.write_file(files, out, 1, FIRST, last, file_format)
        seconds = time.perf_counter() - started
        assert rows == ROWS // DAYS * DAYS
        found[file_format] = {
            "rows": rows,
            "seconds": round(seconds, 2),
            "rows_per_s": round(rows / seconds),
            "mib": round(out.stat().st_size / 1024**2, 1),
        }
    report.RESULTS["exports"] = found
    report.CONTEXT["exports"] = {
        "site": f"{ROWS} rows of one site over {DAYS} days, one merged file a day",
        "engine": "DuckDB (analytics.exports.write_file): one row per hit id, ordered by time",
    }
