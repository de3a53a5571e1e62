"""Search Console: the import job (`analytics.searchconsole.imports.run`, what the tasks
queue runs) on a generated property of 50,000 rows a day, served by the local Google
(`sitelens.local.google`) over HTTP in pages of 25,000, written to the warehouse's layout
under `make serve` (DuckDB, one Parquet file a day). Measured: rows a second, Google's
requests, objects and DynamoDB items written.

Sized at 5 days of 50,000 rows (BENCH_SEARCH_CONSOLE_DAYS changes the days), 2 days in
quick mode; the whole run stays well under 20 s on a shared core."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from sitelens.analytics.searchconsole import imports
from sitelens.core import config, scopes
from sitelens.data import search_console as stored
from sitelens.data import warehouse
from sitelens.local import google
from sitelens.tokens import sealing
from tests.bench import report, timing

ROWS_PER_DAY = 50_000
DAYS = 2 if timing.QUICK else int(os.environ.get("BENCH_SEARCH_CONSOLE_DAYS", "5"))
PROPERTY = "sc-domain:bench.example"


def test_search_console_import(aws_env: None, tmp_path: Path, monkeypatch: Any) -> None:
    pytest.importorskip("duckdb")
    from sitelens.local.warehouse import LocalWarehouse

    local = LocalWarehouse(tmp_path / "warehouse")
    warehouse.use(warehouse.LocalEngine("duckdb", local.run, local.write, root=local.root))
    stub = google.GoogleStub(rows_per_day=ROWS_PER_DAY, history_days=imports.DELAY_DAYS + DAYS - 1)
    server = google.start(stub=stub)
    for name, value in server.environment().items():
        monkeypatch.setenv(name, value)
    config.reset()
    writes = {"items": 0}
    counted = stored.set_fields

    def counting(*args: Any) -> bool:
        writes["items"] += 1
        return counted(*args)

    monkeypatch.setattr(stored, "set_fields", counting)
    try:
        with scopes.within(scopes.SYSTEM):
            token = stub.refresh_token(PROPERTY)
            stored.put(
                {
                    "account": "bench",
                    "website_id": 1,
                    "property": PROPERTY,
                    "method": "oauth",
                    "client_email": "",
                    "secret": sealing.seal(token),
                    "connected_at": "2026-11-28T00:00:00.000000Z",
                    "updated_at": "2026-11-28T00:00:00.000000Z",
                    "import_status": "queued",
                }
            )
            started = time.perf_counter()
            assert imports.run("bench", 1, deadline=time.monotonic() + 600) == "done"
            seconds = time.perf_counter() - started
            record = stored.get("bench", 1)
            files = stored.local_files([1])
            written = sum(path.stat().st_size for path in files)
    finally:
        server.shutdown()
        server.server_close()
        warehouse.use(None)
        local.close()
    assert record is not None
    rows = int(record["import_rows"])
    assert rows == ROWS_PER_DAY * DAYS and int(record["import_days"]) == DAYS
    found = {
        "rows": rows,
        "days": DAYS,
        "seconds": round(seconds, 2),
        "rows_per_s": round(rows / seconds),
        "google_requests": len(stub.queries) + 1,  # the token's exchange, the dates, the pages
        "objects_written": len(files),
        "dynamodb_items_written": writes["items"],
        "mib": round(written / 1024**2, 1),
    }
    report.RESULTS["search_console"] = found
    report.CONTEXT["search_console"] = {
        "property": f"{ROWS_PER_DAY} rows a day over {DAYS} days (sitelens.local.google)",
        "job": "imports.run: a day at a time, pages of 25,000, one Parquet file a day (DuckDB)",
    }
    print(f"\nsearch console import: {found}")
