"""`make bench-large`: the warehouse questions on ClickHouse (chDB) at 100M events.

    make bench-large                                  # 100M events of one site, 30 days
    BENCH_LARGE_EVENTS=2000000 make bench-large       # any size (a quick look)

Generates the warehouse once (`generate.py`: 30 days, the large site's EVENTS rows beside
100 small sites with a tenth as many, written straight into the compacted files: no
landing, compaction nor summaries: ClickHouse stores its own), cached under
build/bench-large/events-<N>/ and used again while its summary.json is there; then loads
its compacted Parquet files into chDB (`chdb_worker.load`: one INSERT ... SELECT, as
`make bench`'s side by side), stores every closed day's summaries as the ingest would
(`clickhouse_days`, timed) and asks `test_warehouse`'s questions over the 30 days,
`BENCH_LARGE_RUNS` (3) times each, interleaved: p50/p95 of each, and the median CPU
seconds of each (chDB runs in this process: on a shared machine its CPU time leaves the
other processes' share out, which its wall time does not). A question runs under
`BENCH_LARGE_MEMORY_GB` (8) and ClickHouse's own time limit (`BENCH_LARGE_SECONDS`, 600):
one that needs more is reported as stopped, not allowed to take the machine. The SQL is
the handler's (`sql.rows_from`), asked directly: no auth nor website look-up (a few
milliseconds on the handler).

Prints each step's time, the disk and memory it took, and writes them (with the machine's
load average at the end) to
build/bench-large/events-<N>/result.json. docs/performance.md says what it needs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sitelens.analytics.warehouse import answers, query, sql
from tests.bench import chdb_worker, generate, report, side_by_side, timing
from tests.bench.test_warehouse import IN_NEW_YORK, NEW_YORK, QUESTIONS

EVENTS = int(os.environ.get("BENCH_LARGE_EVENTS", "100000000"))
RUNS = int(os.environ.get("BENCH_LARGE_RUNS", "3"))
MEMORY_GB = float(os.environ.get("BENCH_LARGE_MEMORY_GB", "8"))
SECONDS = int(os.environ.get("BENCH_LARGE_SECONDS", "600"))
FOLDER = report.ROOT / "build" / "bench-large" / f"events-{EVENTS}"


def _say(text: str) -> None:
    print(f"[bench-large {time.strftime('%H:%M:%S')}] {text}", flush=True)


def _bytes_under(root: Path) -> int:
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


def warehouse_root() -> tuple[Path, dict[str, Any]]:
    """The generated warehouse, generated when not cached yet; its summary."""
    root, cached = FOLDER / "warehouse", FOLDER / "summary.json"
    if cached.exists():
        _say(f"generated warehouse cached: {root}")
        return root, json.loads(cached.read_text())
    free = shutil.disk_usage(FOLDER.parent if FOLDER.parent.exists() else report.ROOT).free
    _say(f"generating {EVENTS:,} events (+{EVENTS // 10:,} of small sites) in {root}")
    _say(
        f"about 55 bytes a row on disk: {EVENTS * 1.1 * 55 / 1e9:,.1f} GB ({free / 1e9:,.0f} free)"
    )
    summary = generate.generate(
        root, events=EVENTS, small_events=EVENTS // 10, direct=True
    ).as_dict()
    cached.write_text(json.dumps(summary, indent=1) + "\n")
    return root, summary


def ask_all(store: Any, summary: dict[str, Any]) -> dict[str, Any]:
    """Each question `RUNS` times, interleaved: p50/p95, or why ClickHouse stopped it."""
    last = summary["last_day"]
    now = datetime.fromisoformat(last).replace(tzinfo=UTC) + timedelta(days=1, hours=1)
    rows = sql.rows_from(store.run, "clickhouse")
    asks: dict[str, Any] = {}
    for name, question in QUESTIONS.items():
        body = {"site_id": generate.BIG_SITE, "date_range": [summary["first_day"], last]}
        body.update(question)
        asks[name] = (query.parse(body, now, "UTC"), body)
    totals, body = asks["totals"]
    asks[IN_NEW_YORK] = (dataclasses.replace(totals, visitor_zones=(NEW_YORK,)), body)
    stopped: dict[str, str] = {}
    cpu: dict[str, list[float]] = {name: [] for name in asks}

    def sampler(name: str) -> Any:
        parsed, body = asks[name]

        def call() -> None:
            if name in stopped:
                return
            began = time.process_time()  # chDB runs in this process: its CPU time too
            try:
                answers.answer(parsed, rows, body)
            except RuntimeError as error:  # chDB's error: a limit, most likely
                stopped[name] = str(error).splitlines()[0][:300]
                _say(f"{name}: stopped: {stopped[name]}")
            cpu[name].append(time.process_time() - began)

        return side_by_side.timed(call, {}, name)

    samples = timing.samples_interleaved({name: sampler(name) for name in asks}, runs=RUNS)
    found: dict[str, Any] = side_by_side.percentiles(samples)
    for name, seconds in cpu.items():  # CPU time leaves out other processes' share
        found[name]["cpu_p50_s"] = round(timing.percentile(seconds, 0.5), 1)
    for name, why in stopped.items():
        found[name] = {"stopped": why}
    return found


def summarise(store: Any, summary: dict[str, Any]) -> dict[str, Any]:
    """Store every closed day's summaries, as the ingest does once a day closes
    (`clickhouse_days`), timed day by day: seconds in all, the slowest day's, CPU."""
    first = datetime.fromisoformat(summary["first_day"]).date()
    last = datetime.fromisoformat(summary["last_day"]).date()
    days = [(first + timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
    _say(f"summarising {len(days)} closed days in chDB (as the ingest does a day)")
    began, cpu = time.perf_counter(), time.process_time()
    each: list[float] = []
    for day in days:
        start = time.perf_counter()
        store.summarise([day])
        each.append(time.perf_counter() - start)
    figures = {
        "days": len(days),
        "seconds": round(time.perf_counter() - began, 1),
        "slowest_day_seconds": round(max(each), 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
        "visits_rows": int(store.run("SELECT COUNT(*) FROM daily_visits")[0][0]),
    }
    _say(
        f"summarised {figures['days']} days in {figures['seconds']:,.1f} s (slowest day "
        f"{figures['slowest_day_seconds']:,.1f} s, {figures['cpu_seconds']:,.1f} s of CPU); "
        f"{figures['visits_rows']:,} visits stored"
    )
    return figures


def main() -> None:
    from sitelens.local.clickhouse import LocalClickHouse

    began = time.perf_counter()
    FOLDER.mkdir(parents=True, exist_ok=True)
    root, summary = warehouse_root()
    parquet = _bytes_under(root / "events")
    _say(f"rows: {sum(summary['events'].values()):,}; Parquet on disk: {parquet / 1e9:,.2f} GB")
    store = LocalClickHouse()
    try:
        _say("loading into chDB (INSERT ... SELECT from the compacted Parquet files)")
        load = chdb_worker.load(store, root)
        _say(
            f"loaded {load['rows']:,} rows in {load['load_seconds']:,.1f} s, {load['parts']} "
            f"parts, {load['bytes_on_disk'] / 1e9:,.2f} GB stored; peak RSS "
            f"{load['peak_rss_mib']:,} MiB"
        )
        store.command(f"SET max_memory_usage = {int(MEMORY_GB * 1024**3)}")
        store.command(f"SET max_execution_time = {SECONDS}")
        summarised = summarise(store, summary)
        questions = ask_all(store, summary)
    finally:
        store.close()
    result = {
        "events": EVENTS,
        "rows": load["rows"],
        "generate_seconds": summary["seconds"],
        "parquet_bytes": parquet,
        "clickhouse_load": load,
        "clickhouse_summaries": summarised,
        "questions": questions,
        "runs": RUNS,
        "peak_rss_mib": round(chdb_worker.peak_rss_mib()),
        "seconds": round(time.perf_counter() - began, 1),
        "load_average": [round(figure, 1) for figure in os.getloadavg()],  # the machine's
        "chdb": side_by_side.chdb_version(),
    }
    (FOLDER / "result.json").write_text(json.dumps(result, indent=1) + "\n")
    for name, figures in questions.items():
        shown = (
            figures.get("stopped")
            or f"p50 {figures['p50_ms']:,.0f} ms, p95 {figures['p95_ms']:,.0f} ms"
            f" ({figures['cpu_p50_s']:,.1f} s of CPU)"
        )
        _say(f"{name}: {shown}")
    _say(
        f"done in {result['seconds']:,.0f} s; peak RSS {result['peak_rss_mib']:,} MiB; disk: "
        f"{parquet / 1e9:,.2f} GB of Parquet (kept), {load['bytes_on_disk'] / 1e9:,.2f} GB in "
        f"chDB (a temporary folder, dropped); written {FOLDER / 'result.json'}"
    )


if __name__ == "__main__":
    main()
