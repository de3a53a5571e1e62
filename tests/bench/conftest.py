"""Benchmarks fill `report.RESULTS`; at the end of the session the table is printed and
build/bench.json written."""

from __future__ import annotations

import contextlib
import os
import resource
import time
from collections.abc import Iterator
from typing import Any

import pytest

from sitelens.core.log import logger
from tests.bench import report, timing

STARTED = time.monotonic()
# DuckDB with a thread a core, as make serve runs it (tests/conftest.py gives the tests one)
os.environ.pop("SITELENS_LOCAL_WAREHOUSE_THREADS", None)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not report.RESULTS:
        return
    context = {**report.machine(), "runs": timing.RUNS, **report.CONTEXT}
    if not context["python"].startswith("3.13"):
        report.NOTES.append(
            f"measured on Python {context['python']}; the deployed runtime is python3.13"
        )
    # The session itself (DynamoDB Local's JVM is a child: ended and counted by now).
    largest = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )
    report.RESULTS["bench_run"] = {
        "seconds": round(time.monotonic() - STARTED, 1),
        "max_rss_mib": round(largest / 1024, 1),
    }
    rows = report.lines(report.RESULTS, context)
    path = report.write(report.RESULTS, rows, context)
    terminalreporter.write_line("")
    for line in report.table(rows, context):
        terminalreporter.write_line(line)
    for note in report.NOTES:
        terminalreporter.write_line(f"note: {note}")
    terminalreporter.write_line(f"written: {path.relative_to(report.ROOT)}")
    if not timing.QUICK:  # a quick run's figures mean nothing: the docs keep the last full
        section = report.markdown(rows, {**context, "notes": report.NOTES}, report.RESULTS)
        docs = report.write_docs(section)
        terminalreporter.write_line(f"written: {docs.relative_to(report.ROOT)}")


@pytest.fixture
def deployed_logging() -> Iterator[None]:
    """The deployed log level (INFO), its JSON lines going to /dev/null, and so do the EMF
    metric lines printed on stdout (their cost counts, their noise does not)."""
    handler = logger.registered_handler
    level = logger.log_level
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        saved = handler.setStream(devnull)  # type: ignore[attr-defined]
        logger.setLevel("INFO")
        try:
            yield
        finally:
            logger.setLevel(level)
            handler.setStream(saved)  # type: ignore[attr-defined]
