"""DuckDB and ClickHouse (chDB) side by side on the same rows (`test_warehouse`): the
questions asked alike on each engine in turn, p50/p95 of each, the answers compared row
by row (as tests/integration/analytics/test_clickhouse.py compares them).

ClickHouse runs in a worker process (`chdb_worker`), which loads the compacted Parquet
files of the days asked about: its memory is measured apart, and its rows come back
through a pipe (a few milliseconds a question), as a deployed ClickHouse's come over
HTTP.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sitelens.data import warehouse
from tests.bench import timing

RUNS = 1 if timing.QUICK else 5


def _wall_ms(call: Callable[[], object]) -> Callable[[], float]:
    def sample() -> float:
        begin = time.perf_counter()
        call()
        return (time.perf_counter() - begin) * 1000

    return sample


def timed(
    ask: Callable[[], Any],
    answered: dict[str, Any],
    name: str,
    engine: warehouse.LocalEngine | None = None,
) -> Callable[[], float]:
    """A sampler of wall milliseconds of `ask` (on `engine`, when given), keeping its answer
    (the timed runs' own answers are checked: no separate round, each run at 10M takes
    seconds, and `make bench` has 10 minutes)."""

    def call() -> None:
        if engine is not None:
            warehouse.use(engine)
        answered[name] = ask()

    return _wall_ms(call)


def chdb_version() -> str:
    """chDB's version, as the report names it."""
    try:
        import chdb
    except ImportError:
        return "not installed"
    return str(chdb.__version__)


def percentiles(samples: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """p50 and p95 of each subject's samples (`timing.percentile`)."""
    return {
        name: {
            "p50_ms": round(timing.percentile(values, 0.5), 1),
            "p95_ms": round(timing.percentile(values, 0.95), 1),
        }
        for name, values in samples.items()
    }


def measure(
    root: Path,
    duck: warehouse.LocalEngine,
    asks_of: Callable[[list[str]], dict[str, Callable[[], Any]]],
    days: list[str],
    metrics: dict[str, list[str]],
    runs: int = RUNS,
) -> dict[str, Any]:
    """The questions over `days` on DuckDB and on ClickHouse (chDB, in a worker process
    loading those days' compacted rows), interleaved: p50/p95 of each on each engine, the
    load's figures, and the answers compared row by row."""
    from tests.bench.chdb_worker import Worker
    from tests.integration.analytics.test_clickhouse import _same

    worker = Worker(root, days)
    engines = {
        "duckdb": duck,
        "clickhouse": warehouse.LocalEngine("clickhouse", worker.run, lambda rows: 0),
    }
    answered: dict[str, dict[str, Any]] = {name: {} for name in engines}
    asks = asks_of(days)
    try:
        samples = timing.samples_interleaved(
            {
                f"{engine}/{name}": timed(ask, answered[engine], name, engines[engine])
                for name, ask in asks.items()
                for engine in engines
            },
            runs=runs,
        )
    finally:
        load = worker.close()
    for name, found in answered["duckdb"].items():
        _same(
            name,
            metrics.get(name) or metrics["totals"],  # the New York site's: the totals'
            found["results"],
            answered["clickhouse"][name]["results"],
        )
    figures = percentiles(samples)
    return {
        "days": len(days),
        "rows": load["rows"],  # every site's rows of those days, as loaded
        "runs": runs,
        "engines": {
            engine: {name: figures[f"{engine}/{name}"] for name in asks} for engine in engines
        },
        "clickhouse_load": load,
        "answers_identical": True,  # `_same` holds for every question (it raises else)
    }
