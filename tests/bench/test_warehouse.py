"""`POST /api/v1/query` on the warehouse at scale: 10 million events of one site over 30
days beside 100 smaller sites (`generate.py`, compacted), queried on DuckDB through the
real handler, and the bytes Athena would scan for the same queries.

Four questions a dashboard asks (Plausible's): the 30 days' totals, top pages, a daily
series, and sources of visitors from Germany; and a fifth that no summary answers, the
top pages of visitors from Germany (raw rows: a visitor's country is on each of its rows);
and the totals again as for a website in New York, whose visitors the visits summary counts
(its visitor hashes span two UTC days). Each is timed as the median wall clock of `RUNS`
(3) runs of the handler (auth and the website look-up on moto, the SQL on the local
warehouse's DuckDB: every question here is one the counters cannot answer exactly); the
last is the same SQL asked directly, the generated site being in UTC.

Athena's bytes are derived, not measured: the sum of the compressed column chunks
(DuckDB's `parquet_metadata()`) of the compacted files of the site's day partitions in
the range, for every column the rendered Athena statement names. Athena reads only those
partitions (the `website_id`/`day` predicates) and columns (Parquet), so this is an upper
bound: Trino may prune columns a CTE names but the answer never uses.
"""

from __future__ import annotations

import dataclasses
import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sitelens import accounts
from sitelens.analytics import queries
from sitelens.analytics.warehouse import answers as answers_of
from sitelens.analytics.warehouse import query, sql, summaries
from sitelens.core import clock
from sitelens.data import warehouse
from sitelens.data import websites as stored_websites
from sitelens.local import gateway
from tests.bench import generate, report, timing

pytest.importorskip("duckdb")
from sitelens.local.warehouse import LocalWarehouse

QUERY_APP = report.ROOT / "functions/analytics/query/app.py"
NEW_YORK = "America/New_York"
IN_NEW_YORK = "totals_of_a_site_in_new_york"
ATHENA_USD_PER_TB = 5.0
TARGET_MS = 500.0  # Plausible's published figure on ClickHouse
# Each run over 10M rows takes seconds (16 s each on a busy 2-core machine): medians of 3
# keep `make bench` near its 10 minutes.
RUNS = min(timing.RUNS, 3)
SIZES: dict[str, int] = (
    {"events": 50_000, "small_sites": 3, "small_events": 5_000, "days": 3}
    if timing.QUICK
    else {
        "events": generate.EVENTS,
        "small_sites": generate.SMALL_SITES,
        "small_events": generate.SMALL_EVENTS,
        "days": generate.DAYS,
    }
)
QUESTIONS: dict[str, dict[str, Any]] = {
    "totals": {"metrics": ["visitors", "visits", "pageviews", "bounce_rate", "visit_duration"]},
    "top_pages": {
        "metrics": ["visitors", "pageviews"],
        "dimensions": ["event:page"],
        "pagination": {"limit": 10},
    },
    "daily_series": {"metrics": ["visitors", "pageviews"], "dimensions": ["time:day"]},
    "filtered_breakdown": {
        "metrics": ["visitors", "visits", "bounce_rate"],
        "dimensions": ["visit:source"],
        "filters": [["is", "visit:country", ["DE"]]],
        "pagination": {"limit": 10},
    },
    "pages_from_country": {
        "metrics": ["visitors", "pageviews"],
        "dimensions": ["event:page"],
        "filters": [["is", "visit:country", ["DE"]]],
        "pagination": {"limit": 10},
    },
}


def _site(account: str, website_id: int) -> None:
    """The website record the handler checks the site against (the generated site's id)."""
    record = {
        "account": account,
        "id": website_id,
        "domain": f"site{website_id}.example",
        "search": f"site{website_id}.example",
        "privacy": 0,
        "email": 0,
        "exclude_bots": 1,
        "exclude_params": "",
        "exclude_ips": "",
        "favorite": False,
        "favorited_at": None,
        "created_at": "2026-01-05T08:00:00.000000Z",
        "updated_at": "2026-01-05T08:00:00.000000Z",
    }
    stored_websites.create_with_claim(record, record["domain"])


def _event(key: str, body: dict[str, Any]) -> dict[str, Any]:
    return gateway.proxy_event(
        "POST",
        "/api/v1/query",
        "/api/v1/query",
        headers={
            "Authorization": f"Bearer {key}",
            "Content-Type": "application/json",
            "Host": "api.test",
            "X-Forwarded-Proto": "https",
        },
        body=json.dumps(body).encode(),
    )


def _wall_ms(call: Any) -> Any:
    def sample() -> float:
        begin = time.perf_counter()
        call()
        return (time.perf_counter() - begin) * 1000

    return sample


def column_chunks(store: LocalWarehouse, files: list[Path]) -> dict[str, int]:
    """Compressed bytes of each column over these Parquet files (their column chunks)."""
    if not files:
        return {}
    listed = "[" + ", ".join(f"'{path}'" for path in files) + "]"
    found = store.connection.execute(
        f"SELECT path_in_schema, SUM(total_compressed_size) FROM parquet_metadata({listed}) "
        "GROUP BY path_in_schema"
    ).fetchall()
    return {str(name): int(size) for name, size in found}


def columns_named(statement: str, known: set[str]) -> list[str]:
    """The file columns a statement names (Athena reads no others of a Parquet file)."""
    import sqlglot
    from sqlglot import exp

    names = {c.name for c in sqlglot.parse_one(statement, read="athena").find_all(exp.Column)}
    return sorted(names & known)


def athena_scan(store: LocalWarehouse, parsed: query.Query) -> dict[str, Any]:
    """What Athena would read for a query after compaction (see the module's docstring):
    the files of the relation the query reads (a summary, or the compacted events)."""
    plan = summaries.plan(parsed)
    relation = {
        "totals": summaries.TOTALS,
        "visits": summaries.VISITS,
        "pages": summaries.PAGES,
    }.get(plan or "", "events")
    days = []
    day = parsed.start.date()
    while day <= parsed.end.date():
        days.append(day.isoformat())
        day += timedelta(days=1)
    files = [
        path
        for site in parsed.site_ids
        for day in days
        if (
            path := store.root / relation / f"website_id={site}" / f"day={day}" / "data.parquet"
        ).exists()
    ]
    chunks = column_chunks(store, files)
    statement = sql.statement(parsed, "athena", ())
    read = columns_named(statement, set(chunks))
    scanned = sum(chunks[name] for name in read)
    return {
        "relation": relation,
        "bytes": scanned,
        "usd": round(scanned / 1e12 * ATHENA_USD_PER_TB, 6),
        "files": len(files),
        "columns": read,
        "hit_id_bytes": chunks.get("hit_id", 0) if "hit_id" in read else 0,
    }


def test_warehouse_queries(aws_env: None, tmp_path: Path) -> None:
    summary = generate.generate(tmp_path / "warehouse", **SIZES)
    store = LocalWarehouse(tmp_path / "warehouse")
    store.connection.execute(f"SET memory_limit = '{generate.MEMORY_LIMIT}'")
    account = accounts.create_account("Bench")
    _, key = accounts.add_key(account, "bench key")
    _site(account.id, generate.BIG_SITE)
    warehouse.use(warehouse.LocalEngine("duckdb", store.run, store.write, store.compact))
    handler = gateway.load_module(QUERY_APP).handler
    context = gateway.LambdaContext("QueryFunction")
    first = summary.first_day
    last = summary.last_day
    now = datetime.fromisoformat(last).replace(tzinfo=UTC) + timedelta(days=1, hours=1)
    saved_now = clock.now
    clock.now = lambda: now  # type: ignore[assignment]
    try:
        bodies = {
            name: {"site_id": generate.BIG_SITE, "date_range": [first, last], **question}
            for name, question in QUESTIONS.items()
        }
        for name, body in bodies.items():
            parsed = query.parse(body, now, "UTC")
            assert queries.rows_source(parsed) is sql.rows, name
        # The timed runs' own answers are checked (no separate round: each run at 10M takes
        # seconds, and `make bench` has 10 minutes).
        answered: dict[str, Any] = {}

        def ask(name: str, body: dict[str, Any]) -> None:
            answered[name] = handler(_event(key, body), context)

        # The totals of a website in New York: its visitor hashes span two UTC days, so the
        # visits summary counts its visitors (`summaries.plan`); the same SQL as the handler's
        # for such a site, asked directly (the generated site is in UTC).
        in_new_york = dataclasses.replace(
            query.parse(bodies["totals"], now, "UTC"), visitor_zones=(NEW_YORK,)
        )
        assert summaries.plan(in_new_york) == "visits"

        def ask_in_new_york() -> None:
            answered[IN_NEW_YORK] = answers_of.answer(in_new_york, sql.rows, bodies["totals"])

        medians = timing.interleaved(
            {
                **{
                    name: _wall_ms(lambda name=name, body=body: ask(name, body))
                    for name, body in bodies.items()
                },
                IN_NEW_YORK: _wall_ms(ask_in_new_york),
            },
            runs=RUNS,
        )
        answers = {IN_NEW_YORK: answered.pop(IN_NEW_YORK)}
        for name, answer in answered.items():
            assert answer["statusCode"] == 200, answer
            answers[name] = json.loads(answer["body"])
        # the same pageviews and visits (visits are found within UTC days in any zone)
        here, there = answers["totals"]["results"][0], answers[IN_NEW_YORK]["results"][0]
        assert here["metrics"][1:] == there["metrics"][1:], (here, there)
        totals = answers["totals"]["results"][0]["metrics"]
        series = answers["daily_series"]["results"]
        assert len(series) == SIZES["days"]
        # pageviews of the totals and of the days' series (they should agree)
        agreement = {"totals": totals[2], "days": sum(row["metrics"][1] for row in series)}
        scans = {
            name: athena_scan(store, query.parse(body, now, "UTC")) for name, body in bodies.items()
        }
        scans[IN_NEW_YORK] = athena_scan(store, in_new_york)
    finally:
        clock.now = saved_now  # type: ignore[assignment]
        warehouse.use(None)
        store.close()
    report.RESULTS["warehouse"] = {
        "events": summary.events,
        "big_site_events": summary.events[str(generate.BIG_SITE)],
        "sites": len(summary.events),
        "days": summary.days,
        "median_ms": {name: round(value, 1) for name, value in medians.items()},
        "target_ms": TARGET_MS,
        "athena_scanned": scans,
        "files": summary.files,
        "bytes_on_disk": summary.bytes,
        "generate_seconds": summary.seconds,
        "landing_rows": summary.landing_rows,
        "landing_duplicates": summary.landing_duplicates,
        "compacted": summary.compacted,
        "parquet_bytes_per_row": round(summary.bytes / max(1, sum(summary.events.values())), 1),
        "compaction_rows_per_s": round(
            summary.merged_rows / max(summary.seconds.get("compact", 0.0), 1e-3)
        ),
    }
    if agreement["totals"] != agreement["days"]:
        report.NOTES.append(
            f"warehouse: pageviews of the totals ({agreement['totals']:,}) and of the daily "
            f"series ({agreement['days']:,}) differ"
        )
    report.CONTEXT["warehouse"] = {
        "pageviews_totals_and_days": agreement,
        "questions": QUESTIONS,
        "date_range": [first, last],
        "runs": RUNS,
        "timing": "wall clock of the real handler (moto for auth and the website, DuckDB "
        "on the local warehouse, memory_limit " + generate.MEMORY_LIMIT + "), medians",
        "athena": "derived: compressed column chunks (parquet_metadata) of the compacted "
        "files of the site's days in range, of every column the Athena SQL names; an upper "
        "bound",
        "generator": "tests/bench/generate.py: compacted files written directly by DuckDB "
        f"from generated SQL rows; the last {generate.LANDING_HOURS} hours through "
        "LocalWarehouse.write (with 1% sent twice), then compact()",
    }
