"""The `browser` marker is the one rule for tests that need Chromium (tests/conftest.py):
with Chromium hidden, as on a machine without it, every browser test is skipped, saying
why, and none errors; a test that asks for Chromium without the marker fails."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.fixtures import browsers
from tests.integration.test_skips import run_pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"


def run(*args: str, hide: bool = True) -> tuple[dict[str, int], str]:
    """How the tests named end, by outcome, with Chromium hidden (or not)."""
    return run_pytest("-p", "no:randomly", *args, SITELENS_HIDE_CHROMIUM="1" if hide else "0")


def modules_naming_chromium() -> list[str]:
    """Every test module that names Chromium or Playwright: where a browser test can be."""
    found = []
    for path in sorted(TESTS.rglob("test_*.py")):
        text = path.read_text()
        if path.name != Path(__file__).name and re.search(r"chromium|playwright", text, re.I):
            found.append(str(path.relative_to(ROOT)))
    return found


@pytest.mark.slow  # about 3 s or more of a worker: make test-slow (CI)
def test_without_chromium_every_browser_test_skips_and_none_errors() -> None:
    modules = modules_naming_chromium()
    assert len(modules) >= 9, modules
    outcomes, output = run("-rs", *modules)
    assert "failed" not in outcomes and "errors" not in outcomes, output
    assert outcomes["skipped"] >= 20, output
    reasons = re.findall(r"^SKIPPED \[\d+\] [^:]+:\d+: (.*)$", output, re.M)
    assert set(reasons) == {browsers.MISSING}, output


def test_a_test_that_uses_chromium_without_the_marker_fails() -> None:
    outcomes, output = run("tests/fixtures/unmarked_browser.py", hide=False)
    assert "without the `browser` marker" in output
    if browsers.CHROMIUM is None:
        assert outcomes == {"failed": 1, "skipped": 1}, output  # the marked one skipped
    else:
        assert outcomes == {"failed": 1, "passed": 1}, output
