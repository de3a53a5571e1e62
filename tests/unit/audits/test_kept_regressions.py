"""Regressed runs kept apart in an audit's record for the digests: what a digest shows of
each, for two months, at most `MAX_REGRESSIONS_KEPT`, whatever `RUNS_KEPT` forgets."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from sitelens.audits import runs

pytestmark = pytest.mark.unit

NOW = datetime(2026, 11, 25, 12, tzinfo=UTC)


def summary(run: int, finished_at: str, regression: bool = True) -> dict:
    issue = {"code": "broken_internal_link", "severity": "high", "pages": 3}
    minor = {"code": "title_too_long", "severity": "low", "pages": 9}
    return {
        "run": run,
        "status": "done",
        "finished_at": finished_at,
        "score": 60,
        "issues": {"high": 1, "medium": 0, "low": 1},
        "regression": regression,
        "diff": {
            "score_delta": -12,
            "new": [issue, minor],
            "fixed": [minor],
            "persisting": [{**minor, "new_pages": 4}, {**issue, "new_pages": 0}],
        },
    }


@pytest.fixture(autouse=True)
def now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sitelens.core.clock.now", lambda: NOW)


def test_a_regression_is_kept_as_a_digest_shows_it() -> None:
    kept = json.loads(runs.kept_regressions({}, [summary(7, "2026-11-20T08:00:00Z")]))
    assert kept == [
        {
            "run": 7,
            "finished_at": "2026-11-20T08:00:00Z",
            "score": 60,
            "regression": True,
            "diff": {
                "score_delta": -12,
                "new": [{"code": "broken_internal_link", "severity": "high", "pages": 3}],
                "persisting": [],
            },
        }
    ]


def test_runs_that_did_not_regress_or_finish_are_not_kept() -> None:
    ended = [summary(1, "2026-11-20T08:00:00Z", regression=False), {"run": 2, "status": "failed"}]
    assert json.loads(runs.kept_regressions({}, ended)) == []


def test_two_months_are_kept_at_most_and_a_run_once() -> None:
    before = [summary(n, f"2026-09-{n:02d}T08:00:00Z") for n in range(20, 30)]
    record = {"regressed": runs.kept_regressions({}, before)}
    kept = json.loads(runs.kept_regressions(record, [summary(29, "2026-09-29T09:00:00Z")]))
    # 62 days before 25 November at noon is 24 September at noon: run 24 ended at 08:00
    assert [r["run"] for r in kept] == [25, 26, 27, 28, 29]
    assert kept[-1]["finished_at"] == "2026-09-29T09:00:00Z"


def test_at_most_the_latest_hundred() -> None:
    many = [summary(n, f"2026-11-{1 + n // 10:02d}T08:00:{n % 60:02d}Z") for n in range(150)]
    kept = json.loads(runs.kept_regressions({}, many))
    assert len(kept) == runs.MAX_REGRESSIONS_KEPT
    assert [r["run"] for r in kept] == list(range(50, 150))
