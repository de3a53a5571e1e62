"""A finished run as the documents read it (its PDF, its change list): the run named in the
path checked against the audit's runs, and its state with the summary of its analysis."""

from __future__ import annotations

import json
from typing import Any

from sitelens.audits.runs import status_of
from sitelens.audits.starting import crawl_of
from sitelens.core import errors
from sitelens.data import audits as stored_audits


class RunNotDone(errors.Conflict):
    """409: the run has no finished analysis to show (going on, failed or cancelled)."""

    def __init__(self, run: int, status: str) -> None:
        super().__init__()
        self.message = (
            f"Run {run} is {status}: only a run that is done has a score, issues and pages to show."
        )


def summary_of(record: dict[str, Any], run: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The done run's state and its summary (score, issue counts, change since the run
    before). 404 for a run the audit never had, or whose pages have expired
    (`starting.RETENTION_DAYS`); 409 (`RunNotDone`) for one not done."""
    state = stored_audits.state(crawl_of(record, run))  # none for a run the audit never had
    if state is None:
        raise errors.NotFound()
    status = status_of(record, state) if run == int(record["run"]) else state.get("status", "")
    if status != "done" or not state.get("summary"):
        raise RunNotDone(run, status or "unknown")
    return state, json.loads(state["summary"])
