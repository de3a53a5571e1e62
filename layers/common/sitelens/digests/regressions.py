"""The account's audit runs that regressed (`sitelens.audits.history`: a new issue of high
severity, new pages of one, or a score drop of 10 or more) and finished in a digest's
period, as the digest lists them: each period's digest lists those of its own days, so a
regression appears in exactly one digest of the account's cadence."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sitelens.core.config import settings
from sitelens.data import audits as stored_audits
from sitelens.digests.periods import Period
from sitelens.sharing.links import audit_url

MAX_AUDITS_READ = 1_000  # an account's audits read for one digest (each keeps 20 runs)
MAX_LISTED = 20  # regressions listed in one digest, the latest first; the rest counted


@dataclass
class Regressions:
    listed: list[dict[str, Any]] = field(default_factory=list)
    more: int = 0


def of_period(account_id: str, period: Period) -> Regressions:
    """The account's regressed runs that finished in the period's days (UTC)."""
    base = settings().seo_base_url
    found = []
    for audit in stored_audits.of_account(account_id, MAX_AUDITS_READ):
        # its last runs, and its regressions of the last two months (a daily audit has had
        # more runs than the record keeps since a month's first day)
        recorded = [
            *json.loads(audit.get("regressed") or "[]"),
            *json.loads(audit.get("runs") or "[]"),
        ]
        for run in {run["run"]: run for run in recorded}.values():
            finished = run.get("finished_at")
            if not run.get("regression") or not finished:
                continue
            if period.first <= date.fromisoformat(finished[:10]) <= period.last:
                found.append(_shown(audit, run, base))
    found.sort(key=lambda entry: entry["finished_at"], reverse=True)
    return Regressions(found[:MAX_LISTED], max(len(found) - MAX_LISTED, 0))


def _shown(audit: dict[str, Any], run: dict[str, Any], base: str) -> dict[str, Any]:
    change = run.get("diff") or {}
    new_high = [
        i.get("title") or i["code"] for i in change.get("new", []) if i["severity"] == "high"
    ]
    spread = [
        i.get("title") or i["code"]
        for i in change.get("persisting", [])
        if i["severity"] == "high" and i["new_pages"]
    ]
    shareable = base and audit.get("share_id") and int(audit["privacy"]) != 1
    return {
        "url": audit["url"],
        "audit": int(audit["id"]),
        "run": run["run"],
        "finished_at": run["finished_at"],
        "score": run.get("score"),
        "score_delta": change.get("score_delta"),
        "new_high": new_high,
        "spread_high": spread,
        "share_url": audit_url(base, audit["share_id"]) if shareable else None,
    }
