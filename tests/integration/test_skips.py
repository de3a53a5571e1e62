"""A skipped test did not run: locally it says why, in CI (SITELENS_REQUIRE_ALL=1, set by
.ci/run) it fails. tests/fixtures/skipping.py skips in each way the suite does."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OPTIONS = ["-q", "-p", "no:cacheprovider", "--override-ini", "addopts="]


def run_pytest(*args: str, **env: str) -> tuple[dict[str, int], str]:
    """A pytest run in a process of its own, CI's no-skip rule off unless `env` sets it:
    its outcomes by kind (from the summary line) and its output."""
    environment = {k: v for k, v in os.environ.items() if k != "SITELENS_REQUIRE_ALL"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *OPTIONS, *args],
        cwd=ROOT,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    summary = done.stdout.strip().splitlines()[-1]
    return {kind: int(n) for n, kind in re.findall(r"(\d+) (\w+)", summary)}, done.stdout


def outcomes(require_all: str | None) -> dict[str, int]:
    """How the tests of tests/fixtures/skipping.py end, by outcome."""
    env = {} if require_all is None else {"SITELENS_REQUIRE_ALL": require_all}
    return run_pytest("tests/fixtures/skipping.py", **env)[0]


@pytest.mark.slow  # about 2 s or more of a worker: make test-slow (CI)
def test_locally_a_test_without_its_tool_is_skipped() -> None:
    assert outcomes(None) == {"passed": 1, "skipped": 3, "xfailed": 1}


def test_in_ci_a_test_without_its_tool_fails() -> None:
    # a skip in the test fails it; a skip in its setup (a mark, a fixture) is an error
    assert outcomes("1") == {"failed": 1, "errors": 2, "passed": 1, "xfailed": 1}
