"""An audit's runs as its record keeps them: the summaries of the finished ones (and the
regressed ones, kept apart for the digests), the status of the current one as shown (a run
that stalled reads `failed`), and why a failed run failed."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from sitelens.core import clock

SEVERITIES = ("high", "medium", "low")  # an issue's, most severe first
RUNS_KEPT = 20  # runs summarised in an audit's record (the oldest are forgotten)
# Regressed runs are also kept apart, in what a digest shows of them, for as long as a digest
# may still list them: a month's digest of a daily audit covers more runs than RUNS_KEPT.
REGRESSIONS_KEPT = timedelta(days=62)
MAX_REGRESSIONS_KEPT = 100

ACTIVE = ("queued", "crawling", "analysing")
# A run none of whose steps has ended (or moved its status) for this long has failed. A
# step that raises on its last delivery fails its run at once (`crawler.DELIVERIES`); this
# is for a step whose worker was killed on every delivery (its 300 s timeout, its memory)
# or that was never queued. Every step still pending was queued before the run's last
# progress (a step queues its links before it ends), so with no backlog its first delivery
# is then, its third 2 x 30 minutes later (AuditQueue's VisibilityTimeout, maxReceiveCount
# 3), over within the worker's 5 minutes: 65 minutes after the last progress no step of
# the run can end any more. 90 minutes (3 x 30, when such a step reaches the dead-letter
# queue) leaves 25 for a backlog. (tests/unit/audits/test_crawl_rules.py holds it to the
# template.)
STALLED_AFTER = timedelta(minutes=90)
STALLED = (
    "The run stopped: none of its steps ended for 90 minutes (a step was lost, or its worker"
    " was stopped on every try). Run the audit again."
)
NOT_QUEUED = "The run could not be queued (the service's queue refused it). Run the audit again."


def finished_runs(record: dict[str, Any], state: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The summaries of the audit's finished runs (done, or failed), oldest first. A run's
    state gets its summary in the same write that makes it done, and the audit's record
    gets it after: a done run not yet in the record is read from its state, so no answer
    shows a run done without its score."""
    finished = json.loads(record.get("runs") or "[]")
    if state and state.get("summary") and int(state["run"]) not in {r["run"] for r in finished}:
        finished.append(json.loads(state["summary"]))
    return finished[-RUNS_KEPT:]


def kept_regressions(record: dict[str, Any], ended: list[dict[str, Any]]) -> str:
    """The record's `regressed` runs (JSON) with those of `ended` (run summaries) that
    regressed: each as a digest shows it (its score, change and high-severity issues), of
    the last `REGRESSIONS_KEPT`, at most `MAX_REGRESSIONS_KEPT`, oldest first."""
    kept = {r["run"]: r for r in json.loads(record.get("regressed") or "[]")}
    for summary in ended:
        if summary.get("regression") and summary.get("finished_at"):
            kept[summary["run"]] = _as_regression(summary)
    since = clock.iso(clock.now() - REGRESSIONS_KEPT)
    recent = [r for _, r in sorted(kept.items()) if r["finished_at"] >= since]
    return json.dumps(recent[-MAX_REGRESSIONS_KEPT:])


def _as_regression(summary: dict[str, Any]) -> dict[str, Any]:
    change = summary.get("diff") or {}
    high = [i for i in change.get("new", []) if i["severity"] == "high"]
    spread = [i for i in change.get("persisting", []) if i["severity"] == "high" and i["new_pages"]]
    return {
        "run": summary["run"],
        "finished_at": summary["finished_at"],
        "score": summary.get("score"),
        "regression": True,
        "diff": {"score_delta": change.get("score_delta"), "new": high, "persisting": spread},
    }


def last_done(finished: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last of the runs that is done (a failed run has no score or issues)."""
    # summaries recorded before failed runs were kept are all of done runs
    return next((run for run in reversed(finished) if run.get("status", "done") == "done"), None)


def unfinished(run: int, status: str, state: dict[str, Any]) -> dict[str, Any]:
    """The history entry of a run without a summary (going on, or failed): what it has
    fetched, no score."""
    return {
        "run": run,
        "status": status,
        "failure": failure_of(status, state),
        "started_at": state.get("started_at"),
        "finished_at": None,
        "pages": int(state.get("fetched", 0)),
        "score": None,
        "issues": None,
        "diff": None,
        "regression": False,
    }


def status_of(record: dict[str, Any], state: dict[str, Any] | None) -> str:
    """The current run's status as shown: `failed` once an active run has stalled (timed
    from its last step, its start, or, without a state, the record's last change)."""
    state = state or {}
    status = state.get("status", "queued")
    if status not in ACTIVE:
        return status
    progressed = state.get("progressed_at") or state.get("started_at") or record["updated_at"]
    return "failed" if progressed < clock.iso(clock.now() - STALLED_AFTER) else status


def failure_of(status: str, state: dict[str, Any] | None) -> str | None:
    """Why a run shown `status` failed (a sentence for the user), None when it has not: the
    reason its crawl stored, or `STALLED` for a run failed by `status_of`."""
    if status != "failed":
        return None
    state = state or {}
    return state.get("failure") or (STALLED if state.get("status", "queued") in ACTIVE else None)
