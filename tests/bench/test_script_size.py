"""The tracking script's files as `GET /js/<file>` sends them (issue 42): the core and each
extension's file, gzipped, with brotli and as they are, measured through the real route and
handler by `tests/unit/analytics/test_script_size.py`, in the bench report beside the
core's target (under 1,500 bytes gzipped). The function sends the layer's compressed copies
(`make script`: gzip level 9, brotli quality 11) and API Gateway passes a body that has a
Content-Encoding as it is, so these are the bytes a browser receives."""

from __future__ import annotations

from tests.bench import report
from tests.unit.analytics.test_script_size import CORE, CORE_TARGET, sizes


def test_script_size() -> None:
    found = sizes()
    report.RESULTS["script_bytes"] = {"files": found, "core_target_gzip": CORE_TARGET}
    assert found[CORE]["gzip"] < CORE_TARGET
