"""Audits: creating (and queueing the first run), reading, listing and deleting the
account's audits, starting their runs, and the runs' status and history (a run's pages
and issues: `sitelens.audits.results`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sitelens.core import clock, errors
from sitelens.core.log import logger
from sitelens.data import audits as stored_audits
from sitelens.records import listing, privacy
from sitelens.sharing.links import audit_url, new_share_id

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.audits.inputs import AuditCreate, AuditListQuery

SEVERITIES = ("high", "medium", "low")  # an issue's, most severe first
RUNS_KEPT = 20  # runs summarised in an audit's record (the oldest are forgotten)
# Regressed runs are also kept apart, in what a digest shows of them, for as long as a digest
# may still list them: a month's digest of a daily audit covers more runs than RUNS_KEPT.
REGRESSIONS_KEPT = timedelta(days=62)
MAX_REGRESSIONS_KEPT = 100

# A scheduled audit runs again this long after its last run started.
PERIODS = {"daily": timedelta(days=1), "weekly": timedelta(days=7), "monthly": timedelta(days=30)}
RETENTION_DAYS = 90  # a run's pages and issues are kept this long (DynamoDB TTL)
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


def crawl_of(record: dict[str, Any], run: int | None = None) -> str:
    """The crawl key of the audit's run `run` (its current one by default)."""
    return stored_audits.crawl_key(record["account"], record["id"], run or record["run"])


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


def _unfinished(run: int, status: str, state: dict[str, Any]) -> dict[str, Any]:
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


def show(record: dict[str, Any], state: dict[str, Any] | None, base_url: str) -> dict[str, Any]:
    """The audit as the API returns it: its settings, its current run's status and
    progress, the score and issue counts of its last finished run, and its share page on
    the SEO API at `base_url` (None for an audit from before share ids)."""
    last = last_done(finished_runs(record, state))
    status = status_of(record, state)
    state = state or {}
    share_id = record.get("share_id")
    return {
        "id": record["id"],
        "url": record["url"],
        "max_pages": record["max_pages"],
        "max_depth": record["max_depth"],
        "include": record["include"],
        "exclude": record["exclude"],
        "respect_robots": record["respect_robots"],
        "schedule": record["schedule"],
        "privacy": record["privacy"],
        "password": bool(record.get("password_hash")),
        "share_id": share_id,
        "share_url": audit_url(base_url, share_id) if share_id else None,
        "run": record["run"],
        "status": status,
        "failure": failure_of(status, state),
        "progress": {
            "discovered": int(state.get("discovered", 0)),
            "fetched": int(state.get("fetched", 0)),
            "external_links": int(state.get("externals", 0)),
            "in_sitemaps": int(state.get("sitemap_urls", 0)),
        },
        "score": last["score"] if last else None,
        "issues": last["issues"] if last else {"high": 0, "medium": 0, "low": 0},
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


def create(account_id: str, fields: AuditCreate, base_url: str) -> dict[str, Any]:
    """Store the audit and queue its first run."""
    password, _ = privacy.PasswordRule(fields.privacy, fields.password).changes(None)
    now = clock.now_iso()
    record = {
        "account": account_id,
        "id": stored_audits.allocate_id(),
        "url": fields.url,
        "search": fields.url.lower(),
        "max_pages": fields.max_pages,
        "max_depth": fields.max_depth,
        "include": fields.include,
        "exclude": fields.exclude,
        "respect_robots": fields.respect_robots,
        "schedule": fields.schedule,
        "privacy": fields.privacy or 0,
        "share_id": new_share_id(),
        "run": 1,
        "runs": "[]",
        "created_at": now,
        "updated_at": now,
        **_next_run(fields.schedule),
        **password,
    }
    record = stored_audits.create(record)
    state = start_run(record, 1)
    return show(record, state, base_url)


def start_run(record: dict[str, Any], run: int) -> dict[str, Any]:
    """Write a run's state and queue its start; the state."""
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
        stored_audits.set_state(crawl, ("queued",), status="failed")
        raise
    return state


def _next_run(schedule: str) -> dict[str, str]:
    """The keys of the due index for a run starting now (none without a schedule)."""
    if schedule not in PERIODS:
        return {}
    return {"schedule_due": schedule, "next_run_at": clock.iso(clock.now() + PERIODS[schedule])}


class RunActive(errors.Conflict):
    """409: the audit's current run has not finished."""

    message = (
        "The audit's current run has not finished; start the next once it is done or has "
        "failed, or delete the audit to stop it."
    )


def run_again(account_id: str, audit_id: int, base_url: str) -> dict[str, Any]:
    """Start the audit's next run now; the audit as shown. 409 while its current run has
    not finished."""
    return show(*start_next_run(account_id, audit_id), base_url)


def start_next_run(account_id: str, audit_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Start the audit's next run now; the audit's record and the run's state. 409 while
    its current run has not finished."""
    record = stored(account_id, audit_id)
    current = stored_audits.state(crawl_of(record)) or {}
    status = status_of(record, current)
    if status in ACTIVE:
        raise RunActive()
    if current.get("status", "queued") in ACTIVE:
        # stalled: failed for good, so that a redrive of its lost step finds it so and stops
        stored_audits.set_state(crawl_of(record), ACTIVE, status="failed")
        logger.warning("audit run stalled: failed", extra={"audit": audit_id, "run": record["run"]})
    run = record["run"] + 1

    def change(found: dict[str, Any]) -> dict[str, Any]:
        if found["run"] != record["run"]:
            raise RunActive()  # another request started it first
        # a run done whose summary its record lacks (its worker was killed between the two
        # writes) is kept in the record's history before the record moves on, as is a run
        # that failed
        ended = finished_runs(found, current)
        if status == "failed":
            ended.append(_unfinished(record["run"], "failed", current))
        return {
            **found,
            "runs": json.dumps(ended[-RUNS_KEPT:]),
            "regressed": kept_regressions(found, ended),
            "run": run,
            "updated_at": clock.after(found["updated_at"]),
            **_next_run(found["schedule"]),
        }

    updated = stored_audits.update(account_id, audit_id, change)
    if updated is None:
        raise errors.NotFound()
    return updated, start_run(updated, run)


def stored(account_id: str, audit_id: int) -> dict[str, Any]:
    """The stored audit; 404 when it is not the account's."""
    record = stored_audits.get(account_id, audit_id)
    if record is None:
        raise errors.NotFound()
    return record


def current_state(record: dict[str, Any]) -> dict[str, Any] | None:
    """The state of the audit's current run (None before its start step ran)."""
    return stored_audits.state(crawl_of(record))


def get(account_id: str, audit_id: int, base_url: str) -> dict[str, Any]:
    record = stored(account_id, audit_id)
    return show(record, current_state(record), base_url)


def delete(account_id: str, audit_id: int) -> None:
    """Cancel the audit's run (its queued steps are dropped) and delete the audit; its
    runs' pages and issues expire with their TTL."""
    record = stored(account_id, audit_id)
    stored_audits.set_state(crawl_of(record), ACTIVE, status="cancelled")
    if stored_audits.delete(account_id, audit_id) is None:
        raise errors.NotFound()


def list_page(account_id: str, query: AuditListQuery, base_url: str) -> listing.Page:
    return listing.list_page(
        stored_audits.COLLECTION,
        account_id,
        query,
        "id",
        lambda record: show(record, current_state(record), base_url),
    )


def every_record(account_id: str, query: AuditListQuery, base_url: str) -> Iterator[dict[str, Any]]:
    return listing.every_record(
        lambda token: list_page(
            account_id,
            query.model_copy(update={"cursor": token, "per_page": listing.EXPORT_PAGE}),
            base_url,
        )
    )


def runs(account_id: str, audit_id: int) -> list[dict[str, Any]]:
    """The audit's runs, newest first: finished ones as summarised, the current one with
    its status."""
    record = stored(account_id, audit_id)
    state = current_state(record) or {}
    history = finished_runs(record, state)
    if record["run"] not in {run["run"] for run in history}:
        history.append(_unfinished(record["run"], status_of(record, state), state))
    return sorted(history, key=lambda run: run["run"], reverse=True)
