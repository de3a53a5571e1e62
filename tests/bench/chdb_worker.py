"""The bench's warehouse on ClickHouse (chDB), in a process of its own, so that its memory
is measured apart from the bench's (and stays out of the bench session's peak).

    python -m tests.bench.chdb_worker ROOT [DAY ...]  # loads ROOT's compacted files, serves

The worker loads the compacted Parquet files of a generated warehouse (`generate.py`), of
every day or of the DAYs given, into the deployed table (`analytics.warehouse.clickhouse`)
by one `INSERT ... SELECT` from file('ROOT/events/*/*/data.parquet'), as deployed ingest
inserts landing files, stores the DAYs' summaries as the ingest does once a day has closed
(`clickhouse_days`: the DuckDB side has them too), and prints
what the load took as one JSON line. Then it answers statements, one JSON line in (the
SQL), one out (the rows, or the error); at the end of its input it prints its peak
resident memory (the load's own peak is among the load's figures). `Worker` is the bench's
side of it.

The load runs with background merges on (ClickHouse merges parts as they come, as it
would deployed), then merges stop, so that no merge runs while questions are timed:
queries read the parts left `FINAL` (`clickhouse.rendered`), a table not fully merged,
as a deployed table between merges is.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

# The Parquet reader's read-ahead (4 GiB by default) and one insert thread: the peak of a
# 10M-row load from about 3.8 GB of resident memory to about 2.5 GB (measured), for a few
# seconds more.
LOAD_SETTINGS: Final[dict[str, int]] = {
    "input_format_parquet_memory_high_watermark": 256 * 1024**2,
    "max_insert_threads": 1,
}


def _rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mib() -> float:
    """The process's peak resident memory so far (Linux: ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load(store: Any, root: Path, days: Sequence[str] = (), merge: bool = False) -> dict[str, Any]:
    """Insert the compacted rows under `root` (of `days` only, when given) into `store` (a
    `LocalClickHouse`): seconds, rows, parts and bytes as stored; with `merge`, every part
    merged after (timed)."""
    from sitelens.analytics.warehouse import clickhouse

    figures: dict[str, Any] = {"rss_before_mib": round(_rss_mib())}
    settings = ", ".join(f"{name} = {value}" for name, value in LOAD_SETTINGS.items())
    # the paths are ours; insert_statement ends with its SETTINGS clause: ours go on it
    chosen = "day=*" if not days else "day={" + ",".join(days) + "}"  # a glob's alternatives
    source = f"file('{root}/events/*/{chosen}/data.parquet', Parquet)"
    began = time.perf_counter()
    store.command(f"{clickhouse.insert_statement(source)}, {settings}")
    figures["load_seconds"] = round(time.perf_counter() - began, 1)
    if days:  # merged days, summarised on DuckDB: closed days, which the ingest summarises
        began = time.perf_counter()
        store.summarise(days)
        figures["summarise_seconds"] = round(time.perf_counter() - began, 1)
    store.stop_merges()
    if merge:
        began = time.perf_counter()
        store.merge()
        figures["merge_seconds"] = round(time.perf_counter() - began, 1)
    ((rows, parts, stored, raw),) = store.run(
        "SELECT SUM(rows), COUNT(*), SUM(bytes_on_disk), SUM(data_uncompressed_bytes) "
        "FROM system.parts WHERE active AND database = currentDatabase() "
        f"AND table = '{clickhouse.TABLE}'"
    )
    figures.update(
        rows=int(rows),
        parts=int(parts),
        bytes_on_disk=int(stored),
        bytes_uncompressed=int(raw),
        rss_after_mib=round(_rss_mib()),
        peak_rss_mib=round(peak_rss_mib()),
    )
    return figures


def main() -> None:
    from sitelens.local.clickhouse import LocalClickHouse

    store = LocalClickHouse()
    print(json.dumps(load(store, Path(sys.argv[1]), sys.argv[2:])), flush=True)
    for line in sys.stdin:
        try:
            answer: dict[str, Any] = {"rows": store.run(json.loads(line))}
        except Exception as error:  # the bench's side raises it
            answer = {"error": str(error)}
        print(json.dumps(answer, default=str), flush=True)
    store.close()
    print(json.dumps({"worker_peak_rss_mib": round(peak_rss_mib())}), flush=True)


class Worker:
    """The bench's side: a worker loading `root` (its `days`, or all), its load's figures,
    and `run` for `warehouse.LocalEngine` (rows as tuples, as `LocalClickHouse.run` gives
    them)."""

    def __init__(self, root: Path, days: Sequence[str] = ()) -> None:
        began = time.perf_counter()
        repository = Path(__file__).resolve().parents[2]
        # this checkout's `tests` and `sitelens`, whatever the environment names
        paths = [str(repository), str(repository / "layers/common"), os.environ.get("PYTHONPATH")]
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.bench.chdb_worker", str(root), *days],
            cwd=repository,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.figures: dict[str, Any] = self._read()
        self.figures["start_seconds"] = round(time.perf_counter() - began, 1)

    def _read(self) -> dict[str, Any]:
        line = self._process.stdout.readline() if self._process.stdout else ""
        if not line:
            raise RuntimeError(f"chdb worker ended ({self._process.wait()})")
        found: dict[str, Any] = json.loads(line)
        return found

    def run(self, sql: str) -> list[tuple[Any, ...]]:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(sql) + "\n")
        self._process.stdin.flush()
        answer = self._read()
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return [tuple(row) for row in answer["rows"]]

    def close(self) -> dict[str, Any]:
        """End the worker: the load's figures with the worker's peak resident memory (its
        load's and its queries')."""
        if self._process.stdin:
            self._process.stdin.close()
        self.figures.update(self._read())
        self._process.wait(timeout=60)
        return self.figures


if __name__ == "__main__":
    main()
