"""`POST /api/v1/query` on its two paths: the statistics counters (DynamoDB, moto here) and
the warehouse (DuckDB over the Parquet layout here, Athena deployed).

30 days of a website's traffic (20,000 hits: pageviews, custom events and engagements, in
visits of one to five pages) are counted into the counters (on DynamoDB Local) and
written as rows; each path answers its typical question, timed as the median wall clock
of `timing.RUNS` runs. For Athena, the bytes a query scans follow from the layout: only
the website's partitions of the range (`website_id=/day=`), and at most the columns the
statement names (Athena prunes those it does not use: an upper bound); the bytes per row
of each column are measured on the Parquet files written here and scaled to 1M and 100M
events of the site in the range.
"""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sitelens.analytics import counting, queries
from sitelens.analytics.hit import Hit
from sitelens.analytics.warehouse import query, rows, sql
from sitelens.data import stats, warehouse
from tests.bench import report, timing

pytest.importorskip("duckdb")
from sitelens.local.warehouse import LocalWarehouse

DAYS = 30
HITS = 2_000 if timing.QUICK else 20_000
WEBSITE = 1
END = datetime(2026, 11, 23, tzinfo=UTC)
PAGES = ["/", "/pricing", "/blog", "/blog/launch", "/docs", "/about", "/signup"]
SOURCES = ["", "https://www.google.com/", "https://t.co/x", "https://news.ycombinator.com/"]
ATHENA_USD_PER_TB = 5.0
FAST = {"metrics": ["pageviews", "events"], "dimensions": ["time:day"]}
WAREHOUSE = {
    "metrics": ["visitors", "visits", "bounce_rate", "visit_duration"],
    "dimensions": ["visit:source"],
    "filters": [["is", "visit:device", ["desktop"]]],
}


def _hits(rng: random.Random) -> list[Hit]:
    found: list[Hit] = []
    visitor = 0
    while len(found) < HITS:
        visitor += 1
        at = END - timedelta(seconds=rng.randint(60, DAYS * 86400 - 3600))
        referrer = rng.choice(SOURCES).removeprefix("https://").split("/")[0].removeprefix("www.")
        who = f"{visitor:016x}"
        device = rng.choice(["desktop", "mobile", "tablet"])
        for n in range(rng.randint(1, 5)):
            page = rng.choice(PAGES)
            found.append(
                Hit(
                    WEBSITE,
                    at,
                    page,
                    n == 0,
                    referrer=referrer if n == 0 else "",
                    browser="Chrome",
                    os="Windows",
                    device=device,
                    country="DE",
                    visitor=who,
                )
            )
            at += timedelta(seconds=rng.randint(10, 300))
            if rng.random() < 0.1:
                found.append(
                    Hit(
                        WEBSITE,
                        at,
                        page,
                        False,
                        event="signup::",
                        visitor=who,
                        event_parts=("signup", "", ""),
                    )
                )
        found.append(
            Hit(WEBSITE, at, page, False, visitor=who, engaged_ms=rng.randint(1, 9) * 1000)
        )
    return found


def _count(hits: list[Hit]) -> None:
    totals = counting.sum_counts(hits)
    counts = [(w, name, day, value, n) for (w, name, value, day), n in totals.items()]
    for start in range(0, len(counts), stats.CHUNK_COUNTERS):
        chunk = counts[start : start + stats.CHUNK_COUNTERS]
        assert stats.add_chunk("bench", start, chunk, int(time.time()) + 3600)


def _wall_ms(call: Any) -> Any:
    def sample() -> float:
        begin = time.perf_counter()
        call()
        return (time.perf_counter() - begin) * 1000

    return sample


def _column_bytes(store: LocalWarehouse) -> dict[str, float]:
    """Compressed Parquet bytes per row of each column, over the files written."""
    files = f"{store.root}/**/*.parquet"
    found = store.connection.execute(
        f"SELECT path_in_schema, SUM(total_compressed_size), "
        f"(SELECT SUM(num_rows) FROM parquet_file_metadata('{files}')) "
        f"FROM parquet_metadata('{files}') GROUP BY path_in_schema"
    ).fetchall()
    return {str(name): size / rows_total for name, size, rows_total in found}


def _read_columns(statement: str, columns: dict[str, float]) -> list[str]:
    """The columns a statement reads (Athena reads only those of a Parquet file)."""
    import sqlglot
    from sqlglot import exp

    names = {c.name for c in sqlglot.parse_one(statement, read="athena").find_all(exp.Column)}
    return sorted(name for name in names if name in columns)


def test_query_paths(dynamodb_local_env, tmp_path: Path) -> None:
    rng = random.Random(14)
    hits = _hits(rng)
    _count(hits)
    store = LocalWarehouse(tmp_path / "warehouse")
    store.write(row for hit in hits if (row := rows.row(hit)) is not None)
    warehouse.use(warehouse.LocalEngine("duckdb", store.run, store.write))
    try:
        now = END
        first = (END - timedelta(days=DAYS)).date().isoformat()
        last = (END - timedelta(days=1)).date().isoformat()

        def parse(body: dict[str, Any]) -> query.Query:
            return query.parse(
                {"site_id": WEBSITE, "date_range": [first, last], **body}, now, "UTC"
            )

        fast, slow = parse(FAST), parse(WAREHOUSE)
        assert queries.rows_source(fast).__module__ == "sitelens.analytics.rollups"
        assert queries.rows_source(slow) is sql.rows
        medians = timing.interleaved(
            {
                "counters": _wall_ms(lambda: queries.rows_source(fast)(fast)),
                "warehouse": _wall_ms(lambda: queries.rows_source(slow)(slow)),
                "warehouse_same_question": _wall_ms(lambda: sql.rows(fast)),
            }
        )
        columns = _column_bytes(store)
        statement = sql.statement(slow, "athena", ())
        read = _read_columns(statement, columns)
        per_row = sum(columns[name] for name in read)
        events = sum(1 for hit in hits)
        scanned = {
            str(total): {
                "bytes": round(total * per_row),
                "usd": round(total * per_row / 1e12 * ATHENA_USD_PER_TB, 6),
            }
            for total in (1_000_000, 100_000_000)
        }
    finally:
        warehouse.use(None)
        store.close()
    report.RESULTS["query_paths"] = {
        "events": events,
        "days": DAYS,
        "median_ms": medians,
        "athena_columns_read": read,
        "athena_bytes_per_row": round(per_row, 2),
        "athena_scanned_30_days_of_one_site": scanned,
    }
