"""Audits: creating (and queueing the first run), reading, changing, listing and deleting
the account's audits, starting their runs within the account's caps (`audits.caps`), and
the runs' status and history (a run's pages and issues: `sitelens.audits.results`).

A change (`update`) applies from the audit's next run: a run going on keeps the settings
it started with (its state's copy). Its history and share id are kept; a changed scope
(`SCOPE_FIELDS`) marks the record `scope_changed` until the next run starts, which carries
the mark in its state. The crawl's request headers, basic auth and cookie are sealed
together (`tokens.sealing`) into `crawl_secret`, copied to each run's state for the
crawler; an answer shows only their names and whether each is set (`crawl_secret_shown`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sitelens.audits import app_shells, caps, duplicates, history, rules, setting_checks
from sitelens.audits import runs as run_history
from sitelens.audits.starting import crawl_of, regression, start_run
from sitelens.core import clock, errors
from sitelens.core.log import logger
from sitelens.data import audits as stored_audits
from sitelens.records import listing, privacy
from sitelens.sharing.links import audit_url, new_share_id

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.audits.inputs import AuditCreate, AuditListQuery, AuditUpdate

# A scheduled audit runs again this long after its last run started.
PERIODS = {"daily": timedelta(days=1), "weekly": timedelta(days=7), "monthly": timedelta(days=30)}

# What decides which pages a run crawls: a change of any is noted on the next run.
SCOPE_FIELDS = (
    "url",
    "max_pages",
    "max_depth",
    "include",
    "exclude",
    "respect_robots",
    "list_urls",
    "render",  # a rendered crawl finds the links scripts add
)
# Settings an update sets as sent (`update`), with what a record from before them has.
PLAIN_SETTINGS: dict[str, Any] = {
    "name": "",
    **dict.fromkeys(("url", "max_pages", "max_depth", "include", "exclude")),
    "respect_robots": 1,
    "list_urls": "",
    "user_agent": rules.DEFAULT_USER_AGENT,
    "max_rate": 0,
    "near_duplicate_similarity": duplicates.DEFAULT_SIMILARITY,
    "render": app_shells.DEFAULT_MODE,
}


def show(record: dict[str, Any], state: dict[str, Any] | None, base_url: str) -> dict[str, Any]:
    """The audit as the API returns it: its settings, its current run's status and
    progress, the score and issue counts of its last finished run, and its share page on
    the SEO API at `base_url` (None for an audit from before share ids)."""
    last = run_history.last_done(run_history.finished_runs(record, state))
    status = run_history.status_of(record, state)
    state = state or {}
    share_id = record.get("share_id")
    return {
        "id": record["id"],
        "name": record.get("name") or None,
        "url": record["url"],
        "max_pages": record["max_pages"],
        "max_depth": record["max_depth"],
        "include": record["include"],
        "exclude": record["exclude"],
        "respect_robots": record["respect_robots"],
        "list_urls": record.get("list_urls", ""),
        "schedule": record["schedule"],
        "user_agent": record.get("user_agent", rules.DEFAULT_USER_AGENT),
        # names and flags only: the values are sealed and never shown
        "crawl_secret": json.loads(
            record.get("crawl_secret_shown") or json.dumps(setting_checks.NO_SECRET)
        ),
        "max_rate": record.get("max_rate") or None,
        "render": record.get("render") or app_shells.DEFAULT_MODE,
        "regression": regression(record),
        "muted": json.loads(record.get("muted") or "{}"),
        "near_duplicate_similarity": int(
            record.get("near_duplicate_similarity") or duplicates.DEFAULT_SIMILARITY
        ),
        "scope_changed": bool(record.get("scope_changed")),
        "privacy": record["privacy"],
        "password": bool(record.get("password_hash")),
        "share_id": share_id,
        "share_url": audit_url(base_url, share_id) if share_id else None,
        "run": record["run"],
        "status": status,
        "failure": run_history.failure_of(status, state),
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
    """Store the audit and queue its first run, within the account's caps (nothing is
    stored beyond one)."""
    password, _ = privacy.PasswordRule(fields.privacy, fields.password).changes(None)
    setting_checks.check_start(fields.url)
    setting_checks.check_list(fields.url, fields.list_urls or "", fields.max_pages)
    secret = setting_checks.sealed_fields(
        {name: getattr(fields, name) for name in setting_checks.SECRET_FIELDS}, fields
    )
    now = clock.now_iso()
    record = {
        "account": account_id,
        "id": stored_audits.allocate_id(),
        "name": fields.name or "",
        "url": fields.url,
        "search": fields.url.lower(),
        "max_pages": fields.max_pages,
        "max_depth": fields.max_depth,
        "include": fields.include,
        "exclude": fields.exclude,
        "respect_robots": fields.respect_robots,
        "list_urls": fields.list_urls or "",
        "schedule": fields.schedule,
        "user_agent": fields.user_agent or rules.DEFAULT_USER_AGENT,
        "max_rate": fields.max_rate or 0,
        "render": fields.render or app_shells.DEFAULT_MODE,
        "regression": json.dumps(fields.regression or history.DEFAULT_REGRESSION),
        "muted": json.dumps(fields.muted or {}),
        "near_duplicate_similarity": (
            fields.near_duplicate_similarity or duplicates.DEFAULT_SIMILARITY
        ),
        "scope_changed": 0,
        "privacy": fields.privacy or 0,
        "share_id": new_share_id(),
        "run": 1,
        "runs": "[]",
        "created_at": now,
        "updated_at": now,
        **secret,
        **_next_run(fields.schedule),
        **password,
    }
    crawl = crawl_of(record, 1)
    scheduled = record["id"] if fields.schedule != "none" else None
    ticket = caps.admit(
        account_id, _going, crawl=crawl, pages=fields.max_pages, scheduled=scheduled
    )
    try:
        record = stored_audits.create(record)
    except Exception:
        caps.release(account_id, ticket=ticket, scheduled=scheduled)
        raise
    state = _start_admitted(record, 1, ticket)
    return show(record, state, base_url)


def _going(state: dict[str, Any], since: str) -> bool:
    """Whether a run counted on the account's caps since `since` is still going."""
    return run_history.status_of({"updated_at": since}, state) in run_history.ACTIVE


def _start_admitted(
    record: dict[str, Any], run: int, ticket: str | None, scope_changed: bool = False
) -> dict[str, Any]:
    """`start_run`, giving the run's place on the caps back when it could not start."""
    try:
        return start_run(record, run, scope_changed)
    except Exception:
        caps.release(record["account"], ticket=ticket)
        raise


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
    """Start the audit's next run now, within the account's caps (`caps.RunsCap`,
    `caps.PagesCap`); the audit's record and the run's state. 409 while its current run
    has not finished."""
    record = stored(account_id, audit_id)
    current = stored_audits.state(crawl_of(record)) or {}
    status = run_history.status_of(record, current)
    if status in run_history.ACTIVE:
        raise RunActive()
    if current.get("status", "queued") in run_history.ACTIVE:
        # stalled: failed for good, so that a redrive of its lost step finds it so and stops
        stored_audits.set_state(
            crawl_of(record), run_history.ACTIVE, status="failed", failure=run_history.STALLED
        )
        logger.warning("audit run stalled: failed", extra={"audit": audit_id, "run": record["run"]})
    run = record["run"] + 1
    ticket = caps.admit(
        account_id, _going, crawl=crawl_of(record, run), pages=int(record["max_pages"])
    )
    scope_changed = False

    def change(found: dict[str, Any]) -> dict[str, Any]:
        nonlocal scope_changed
        if found["run"] != record["run"]:
            raise RunActive()  # another request started it first
        scope_changed = bool(found.get("scope_changed"))
        # a run done whose summary its record lacks (its worker was killed between the two
        # writes) is kept in the record's history before the record moves on, as is a run
        # that failed
        ended = run_history.finished_runs(found, current)
        if status == "failed":
            ended.append(run_history.unfinished(record["run"], "failed", current))
        return {
            **found,
            "runs": json.dumps(ended[-run_history.RUNS_KEPT :]),
            "regressed": run_history.kept_regressions(found, ended),
            "run": run,
            "scope_changed": 0,  # noted on the run that starts now
            "updated_at": clock.after(found["updated_at"]),
            **_next_run(found["schedule"]),
        }

    try:
        updated = stored_audits.update(account_id, audit_id, change)
        if updated is None:
            raise errors.NotFound()
    except Exception:
        caps.release(account_id, ticket=ticket)
        raise
    return updated, _start_admitted(updated, run, ticket, scope_changed)


def update(account_id: str, audit_id: int, fields: AuditUpdate, base_url: str) -> dict[str, Any]:
    """Change the settings sent (`PUT` and `PATCH` alike), from the audit's next run on;
    its runs, history and share id are kept. Adding a schedule counts on the account's cap
    of scheduled audits. 404 when the audit is not the account's; 422, nothing changed,
    for a value refused."""
    current = stored(account_id, audit_id)
    rule = privacy.PasswordRule(fields.privacy, fields.password)
    rule.changes(current)  # a refused password is refused before anything is written
    url = fields.url if fields.url is not None else current["url"]
    if fields.url is not None:
        setting_checks.check_start(fields.url)
    if (fields.url, fields.list_urls, fields.max_pages) != (None, None, None):
        listed = fields.list_urls if fields.list_urls is not None else current.get("list_urls", "")
        setting_checks.check_list(url, listed, fields.max_pages or current["max_pages"])
    sealed = setting_checks.secret_change(fields)
    sealed(current)  # a secret too large is refused before anything is written
    adds_schedule = fields.schedule not in (None, "none") and current["schedule"] == "none"
    if adds_schedule:
        caps.admit(account_id, _going, scheduled=audit_id)

    def change(found: dict[str, Any]) -> dict[str, Any]:
        password, removed = rule.changes(found)
        record = {k: v for k, v in found.items() if k not in removed}
        record.update(password)
        for name, before in PLAIN_SETTINGS.items():
            value = getattr(fields, name)
            if value is None:
                continue
            if name in SCOPE_FIELDS and value != found.get(name, before):
                record["scope_changed"] = 1
            record[name] = value
        record["search"] = record["url"].lower()
        if fields.privacy is not None:
            record["privacy"] = fields.privacy
        if fields.regression is not None:
            record["regression"] = json.dumps(fields.regression)
        if fields.muted is not None:
            record["muted"] = json.dumps(fields.muted)
        if fields.schedule is not None and fields.schedule != found["schedule"]:
            for key in ("schedule_due", "next_run_at"):  # out of the due index, or moved
                record.pop(key, None)
            record.update(schedule=fields.schedule, **_next_run(fields.schedule))
        secret = sealed(found)
        if secret is not None:
            for key in ("crawl_secret", "crawl_secret_shown"):
                record.pop(key, None)
            record.update(secret)
        record["updated_at"] = clock.after(found["updated_at"])
        return record

    try:
        updated = stored_audits.update(account_id, audit_id, change)
    except Exception:
        if adds_schedule:
            caps.release(account_id, scheduled=audit_id)
        raise
    if updated is None:
        if adds_schedule:
            caps.release(account_id, scheduled=audit_id)
        raise errors.NotFound()
    if fields.schedule == "none" and current["schedule"] != "none":
        _released(account_id, audit_id)
    return show(updated, current_state(updated), base_url)


def _released(account_id: str, audit_id: int) -> None:
    """Give an audit's place on the cap of scheduled audits back. The change it follows is
    made: should this fail, the place is found free when the cap is next reached."""
    try:
        caps.release(account_id, scheduled=audit_id)
    except Exception:
        logger.warning("scheduled audit not uncounted", extra={"audit": audit_id})


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
    stored_audits.set_state(crawl_of(record), run_history.ACTIVE, status="cancelled")
    deleted = stored_audits.delete(account_id, audit_id)
    if deleted is None:
        raise errors.NotFound()
    if deleted.get("schedule", "none") != "none":
        _released(account_id, audit_id)


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
    history = run_history.finished_runs(record, state)
    if record["run"] not in {run["run"] for run in history}:
        history.append(
            run_history.unfinished(record["run"], run_history.status_of(record, state), state)
        )
    return sorted(history, key=lambda run: run["run"], reverse=True)
