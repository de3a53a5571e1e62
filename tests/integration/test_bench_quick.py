"""`make bench`'s measures, once each at small sizes (BENCH_QUICK=1), so that the bench
cannot rot between its runs: every benchmark of tests/bench runs here as a test, and the
report renders their figures. The figures themselves mean nothing and nothing is timed
against a target; `make bench` measures."""

from __future__ import annotations

import os

os.environ["BENCH_QUICK"] = "1"  # before tests.bench reads it

from pathlib import Path

import pytest

from tests.bench import report, timing
from tests.bench.conftest import deployed_logging  # noqa: F401 - a fixture
from tests.bench.test_audit_pdf import test_audit_pdf  # noqa: F401
from tests.bench.test_client import test_client_overhead  # noqa: F401
from tests.bench.test_cold_start import test_cold_start  # noqa: F401
from tests.bench.test_hostile_sitemaps import test_hostile_sitemaps  # noqa: F401
from tests.bench.test_ingest import test_ingestion  # noqa: F401
from tests.bench.test_journeys import test_journeys_at_scale  # noqa: F401
from tests.bench.test_queries import test_query_paths  # noqa: F401
from tests.bench.test_reads import test_reads_per_page  # noqa: F401
from tests.bench.test_script_size import test_script_size  # noqa: F401
from tests.bench.test_search_console import test_search_console_import  # noqa: F401
from tests.bench.test_seo import test_seo_analysis  # noqa: F401
from tests.bench.test_usage import test_usage_reads  # noqa: F401
from tests.bench.test_warehouse import test_warehouse_queries  # noqa: F401
from tests.bench.test_warm import fake, test_warm_overhead  # noqa: F401
from tests.bench.test_writes import test_report_write_units  # noqa: F401
from tests.bench.test_zz_cost import (  # noqa: F401
    test_cost,
    test_defaults_cover_every_input,
    test_every_resource_type_is_priced,
    test_fixed_lines_follow_the_template,
    test_model_arithmetic,
    test_options,
    test_price_arithmetic,
)

# About 11 s of a worker, the whole bench once: make test-slow (which CI runs), not make test.
pytestmark = pytest.mark.slow


def test_quick_mode() -> None:
    assert timing.QUICK and timing.RUNS == 1


def test_report_renders(tmp_path: Path) -> None:
    """Whatever the measures above left in RESULTS (in any order), the table, the JSON and
    the docs' section render; the docs' markers are kept."""
    context = {**report.machine(), "runs": timing.RUNS, **report.CONTEXT}
    rows = report.lines(report.RESULTS, context)
    assert report.table(rows, context)
    written = report.write(report.RESULTS, rows, context, tmp_path / "bench.json")
    docs = tmp_path / "performance.md"
    section = report.markdown(rows, {**context, "notes": report.NOTES}, report.RESULTS)
    report.write_docs(section, docs)
    report.write_docs(section, docs)  # again: replaced, not appended
    text = docs.read_text()
    assert text.count(report.BEGIN) == 1 and text.count(report.END) == 1
    assert text.startswith("# Performance")
    # `make docs` renders the same section again from the JSON alone
    refreshed = report.refresh_docs(written, tmp_path / "refreshed.md").read_text()
    assert refreshed.split(report.BEGIN)[1] == text.split(report.BEGIN)[1]
