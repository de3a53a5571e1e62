"""Audits: creating (and queueing the first run), reading, listing and deleting the
account's audits, and reading a run's pages, issues and the runs' history."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sitelens.audits.checks import SEVERITIES
from sitelens.core import clock, errors
from sitelens.data import audits as stored_audits
from sitelens.records import listing, privacy
from sitelens.sharing.links import audit_url, new_share_id
from sitelens.tokens import signing

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.audits.inputs import (
        AuditCreate,
        AuditIssuesQuery,
        AuditListQuery,
        AuditPagesQuery,
    )

RUNS_KEPT = 20  # runs summarised in an audit's record (the oldest are forgotten)

# A scheduled audit runs again this long after its last run started.
PERIODS = {"daily": timedelta(days=1), "weekly": timedelta(days=7), "monthly": timedelta(days=30)}
RETENTION_DAYS = 90  # a run's pages and issues are kept this long (DynamoDB TTL)
# A filtered pages list reads at most this many of the run's pages a request (as other
# filtered lists: `data.pages.MAX_FILTERED_READS`); its cursor goes on from there.
MAX_PAGE_READS = 1_000
ACTIVE = ("queued", "crawling", "analysing")


def crawl_of(record: dict[str, Any], run: int | None = None) -> str:
    """The crawl key of the audit's run `run` (its current one by default)."""
    return stored_audits.crawl_key(record["account"], record["id"], run or record["run"])


def finished_runs(record: dict[str, Any], state: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The summaries of the audit's finished runs, oldest first. A run's state gets its
    summary in the same write that makes it done, and the audit's record gets it after: a
    done run not yet in the record is read from its state, so no answer shows a run done
    without its score."""
    finished = json.loads(record.get("runs") or "[]")
    if state and state.get("summary") and int(state["run"]) not in {r["run"] for r in finished}:
        finished.append(json.loads(state["summary"]))
    return finished[-RUNS_KEPT:]


def show(record: dict[str, Any], state: dict[str, Any] | None, base_url: str) -> dict[str, Any]:
    """The audit as the API returns it: its settings, its current run's status and
    progress, the score and issue counts of its last finished run, and its share page on
    the SEO API at `base_url` (None for an audit from before share ids)."""
    finished = finished_runs(record, state)
    last = finished[-1] if finished else None
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
        "status": state.get("status", "queued"),
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
    stored_audits.send([{"kind": "start", "crawl": crawl}])
    return state


def _next_run(schedule: str) -> dict[str, str]:
    """The keys of the due index for a run starting now (none without a schedule)."""
    if schedule not in PERIODS:
        return {}
    return {"schedule_due": schedule, "next_run_at": clock.iso(clock.now() + PERIODS[schedule])}


class RunActive(errors.Conflict):
    """409: the audit's current run has not finished."""

    message = "The audit's current run has not finished; delete the audit to stop it."


def run_again(account_id: str, audit_id: int, base_url: str) -> dict[str, Any]:
    """Start the audit's next run now; the audit as shown. 409 while its current run has
    not finished."""
    return show(*start_next_run(account_id, audit_id), base_url)


def start_next_run(account_id: str, audit_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Start the audit's next run now; the audit's record and the run's state. 409 while
    its current run has not finished."""
    record = stored(account_id, audit_id)
    current = stored_audits.state(crawl_of(record)) or {}
    if current.get("status", "queued") in ACTIVE:
        raise RunActive()
    run = record["run"] + 1

    def change(found: dict[str, Any]) -> dict[str, Any]:
        if found["run"] != record["run"]:
            raise RunActive()  # another request started it first
        return {
            **found,
            # a run done whose summary its record lacks (its worker was killed between the
            # two writes) is kept in the record's history before the record moves on
            "runs": json.dumps(finished_runs(found, current)),
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
        history.append(
            {
                "run": record["run"],
                "status": state.get("status", "queued"),
                "started_at": state.get("started_at"),
                "finished_at": None,
                "pages": int(state.get("fetched", 0)),
                "score": None,
                "issues": None,
                "diff": None,
                "regression": False,
            }
        )
    return sorted(history, key=lambda run: run["run"], reverse=True)


def _run_of(record: dict[str, Any], run: int | None) -> str:
    if run is not None and not 1 <= run <= record["run"]:
        raise errors.Invalid.field("run", f"The run field must be from 1 to {record['run']}.")
    return crawl_of(record, run)


def show_page(item: dict[str, Any]) -> dict[str, Any]:
    links = item.get("links")
    return {
        "url": item["url"],
        "status_code": item.get("status_code"),
        "depth": item.get("found_depth"),
        "external": bool(item.get("external")),
        "blocked": bool(item.get("blocked")),
        "in_sitemap": bool(item.get("in_sitemap")),
        "redirect_to": item.get("redirect_to"),
        "redirects": item.get("redirects", 0),
        "error": item.get("error"),
        "title": item.get("title"),
        "description": item.get("description"),
        "canonical": item.get("canonical"),
        "noindex": bool(item.get("noindex")),
        "links": len(json.loads(links)) if isinstance(links, str) else 0,
        "score": item.get("score"),
        "failed_checks": json.loads(item["failed_checks"]) if item.get("failed_checks") else [],
        # real visits' vitals of the page (audits.traffic.save_field); None without them
        "field_vitals": json.loads(item["field_vitals"]) if item.get("field_vitals") else None,
    }


def pages_page(account_id: str, audit_id: int, query: AuditPagesQuery) -> listing.Page:
    """A page of a run's crawled pages in URL order, filtered by issue, status or depth."""
    record = stored(account_id, audit_id)
    crawl = _run_of(record, query.run)
    params = query.model_dump(exclude={"cursor", "format"}, exclude_none=True)
    bound_to = listing.binding(account_id, f"audit-pages:{audit_id}", params)
    after = None
    if query.cursor:
        position, _ = signing.decode_cursor(query.cursor, bound_to)
        after = position.get("after")
        if not isinstance(after, str) or not after.startswith(stored_audits.PAGE):
            raise errors.Invalid.field("cursor", "The cursor is invalid.")
    affected: set[str] | None = None
    if query.issue is not None:
        found = {i["code"]: i for i in stored_audits.issues(crawl)}.get(query.issue)
        affected = {p["url"] for p in json.loads(found["pages"])} if found else set()
    shown: list[dict[str, Any]] = []
    read, more = 0, True
    while more and len(shown) < query.per_page and read < MAX_PAGE_READS:
        chunk, last = stored_audits.pages_after(crawl, after, min(200, MAX_PAGE_READS - read))
        for n, item in enumerate(chunk):
            read += 1
            after = item["key"]
            if _matches(item, query, affected):
                shown.append(show_page(item))
                if len(shown) == query.per_page:
                    more = n < len(chunk) - 1 or last is not None
                    break
        else:
            more = last is not None
    token = signing.encode_cursor({"after": after}, True, bound_to) if more else None
    return listing.Page(
        records=shown,
        next_cursor=token,
        prev_cursor=None,
        params=params,
        cost={},
        entries_read=read,
    )


def _matches(item: dict[str, Any], query: AuditPagesQuery, affected: set[str] | None) -> bool:
    if item.get("state") != "fetched":
        return False
    if affected is not None and item["url"] not in affected:
        return False
    if query.status_code is not None and item.get("status_code") != query.status_code:
        return False
    return query.depth is None or item.get("found_depth") == query.depth


def every_page(account_id: str, audit_id: int, query: AuditPagesQuery) -> Iterator[dict[str, Any]]:
    return listing.every_record(
        lambda token: pages_page(
            account_id, audit_id, query.model_copy(update={"cursor": token, "per_page": 100})
        )
    )


def issues(account_id: str, audit_id: int, query: AuditIssuesQuery) -> list[dict[str, Any]]:
    """A run's issues, most severe first, each with its affected pages."""
    record = stored(account_id, audit_id)
    return run_issues(record, query.run)


def run_issues(record: dict[str, Any], run: int | None = None) -> list[dict[str, Any]]:
    """The issues of the audit's run `run` (its current one by default), most severe
    first, each with its affected pages."""
    found = stored_audits.issues(_run_of(record, run))
    shown = [
        {
            "code": item["code"],
            "severity": item["severity"],
            "title": item["title"],
            "fix": item["fix"],
            "learn_more": item["learn_more"],
            "count": item["count"],
            "pageviews": item.get("pageviews"),  # None: the account does not track the host
            "pages": json.loads(item["pages"]),
        }
        for item in found
    ]
    return sorted(shown, key=lambda i: (SEVERITIES.index(i["severity"]), -i["count"], i["code"]))
