"""The CI gate's run of an audit: find or create the audit, start a run, wait for it to
finish, and read what the rules judge (docs/ci-gate.md)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sitelens_client.client import Sitelens
from sitelens_client.models import seo

ACTIVE = ("queued", "crawling", "analysing")  # a run's statuses before it is done or failed
FIRST_POLL, LAST_POLL = 0.25, 2.0  # seconds between reads of the audit, doubling


class RunFailed(Exception):
    """The run did not finish done in time, or failed (exit code 3)."""


@dataclass(frozen=True)
class Finished:
    audit: seo.Audit
    run: seo.AuditRun
    issues: list[seo.AuditIssue]


def start(
    sitelens: Sitelens,
    url: str | None,
    audit_id: int | None,
    max_pages: int | None,
    *,
    deadline: float,
) -> seo.Audit:
    """A new run of the audit `audit_id`, or of the newest audit of `url` (reused, so its
    history and diff carry on), or the first run of a new audit of `url`. A run under way
    is waited for first (until `deadline`)."""
    audit = sitelens.audits.get(audit_id) if audit_id is not None else _of_url(sitelens, url)
    if audit is None:
        fields: dict[str, Any] = {"url": url}
        if max_pages is not None:
            fields["max_pages"] = max_pages
        return sitelens.audits.create(**fields)
    if max_pages is not None and audit.max_pages != max_pages:
        sitelens.audits.update(audit.id, max_pages=max_pages)
    if audit.status in ACTIVE:  # a run under way (a schedule's, another job's): let it end
        wait(sitelens, audit, deadline=deadline)
    return sitelens.audits.start_run(audit.id)


def wait(
    sitelens: Sitelens,
    started: seo.Audit,
    *,
    deadline: float,
) -> seo.Audit:
    """The audit once the run `started` names has ended; RunFailed at the deadline."""
    pause = FIRST_POLL
    audit = started
    while audit.run == started.run and audit.status in ACTIVE:
        if time.monotonic() >= deadline:
            raise RunFailed(
                f"audit {audit.id} run {audit.run} still {audit.status} at the timeout "
                "(the run goes on; read it later with --audit)"
            )
        time.sleep(pause)
        pause = min(pause * 2, LAST_POLL)
        audit = sitelens.audits.get(started.id)
    return audit


def finish(sitelens: Sitelens, audit: seo.Audit, run_number: int) -> Finished:
    """The run `run_number` of a waited-for audit with its issues; RunFailed unless done."""
    runs = {run.run: run for run in sitelens.audits.runs(audit.id)}
    run = runs.get(run_number)
    if run is None or run.status != "done":
        status = run.status if run else audit.status
        failure = (run.failure if run else None) or audit.failure or "no reason given"
        raise RunFailed(f"audit {audit.id} run {run_number} {status}: {failure}")
    return Finished(audit, run, sitelens.audits.issues(audit.id, run=run_number))


def _of_url(sitelens: Sitelens, url: str | None) -> seo.Audit | None:
    """The account's newest audit of `url` (the API may have added the path's slash)."""
    for audit in sitelens.audits.list(search=url, per_page=100):
        if audit.url.rstrip("/") == (url or "").rstrip("/"):
            return audit
    return None
