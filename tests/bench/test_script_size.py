"""The tracking script's gzipped size (issue 24, part 9): the core and each opt-in part,
as `tests/unit/analytics/test_script_size.py` measures them (comments out), in the bench
report beside their target (core under 2 KB)."""

from __future__ import annotations

from tests.bench import report
from tests.unit.analytics.test_script_size import CORE_TARGET, sizes


def test_script_size() -> None:
    found = sizes()
    report.RESULTS["script_gzip_bytes"] = {**found, "core_target": CORE_TARGET}
    assert found["core"] < CORE_TARGET
