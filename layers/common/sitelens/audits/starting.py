"""A run's start: its state written with the audit's settings as they are now, and its
first step queued (`records` decides when a run may start, within the account's caps)."""

from __future__ import annotations

import json
from typing import Any

from sitelens.audits import app_shells, duplicates, history, rules
from sitelens.audits import runs as run_history
from sitelens.core import clock
from sitelens.data import audits as stored_audits

RETENTION_DAYS = 90  # a run's pages and issues are kept this long (DynamoDB TTL)


def crawl_of(record: dict[str, Any], run: int | None = None) -> str:
    """The crawl key of the audit's run `run` (its current one by default)."""
    return stored_audits.crawl_key(record["account"], record["id"], run or record["run"])


def regression(record: dict[str, Any]) -> dict[str, Any]:
    """The audit's regression settings, as a run carries them."""
    return history.regression_settings(record.get("regression"))


def start_run(record: dict[str, Any], run: int, scope_changed: bool = False) -> dict[str, Any]:
    """Write a run's state, with the audit's settings as they are now, and queue its start;
    the state. `scope_changed`: the audit's scope changed since its last run."""
    crawl = crawl_of(record, run)
    state = {
        "crawl": crawl,
        "account": record["account"],
        "audit": record["id"],
        "run": run,
        "status": "queued",
        "url": record["url"],
        "max_pages": record["max_pages"],
        "max_depth": record["max_depth"],
        "include": record["include"],
        "exclude": record["exclude"],
        "respect_robots": record["respect_robots"],
        # what the crawler and the analysis read (a record from before them: the defaults)
        "list_urls": record.get("list_urls", ""),
        "user_agent": record.get("user_agent", rules.DEFAULT_USER_AGENT),
        "max_rate": record.get("max_rate", 0),
        "render": record.get("render") or app_shells.DEFAULT_MODE,
        "regression": json.dumps(regression(record)),
        "muted": record.get("muted") or "{}",
        "near_duplicate_similarity": (
            record.get("near_duplicate_similarity") or duplicates.DEFAULT_SIMILARITY
        ),
        "scope_changed": 1 if scope_changed else 0,
        **({"crawl_secret": record["crawl_secret"]} if record.get("crawl_secret") else {}),
        "discovered": 0,
        "externals": 0,
        "fetched": 0,
        "pending": 1,  # the start step itself
        "started_at": clock.now_iso(),
        "expires_at": int(clock.now().timestamp()) + RETENTION_DAYS * 86400,
    }
    stored_audits.start(crawl, state)
    try:
        stored_audits.send([{"kind": "start", "crawl": crawl}])
    except Exception:
        # never queued: failed now, so that the next run may start without waiting for it
        # to stall
        stored_audits.set_state(crawl, ("queued",), status="failed", failure=run_history.NOT_QUEUED)
        raise
    return state
