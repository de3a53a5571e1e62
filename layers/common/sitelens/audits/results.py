"""A run's crawled pages and its issues, as the API reads them (`GET /api/v1/audits/{id}/pages`
and `.../issues`, and the share view's issues)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from sitelens.audits import app_shells
from sitelens.audits.records import crawl_of, stored
from sitelens.audits.runs import SEVERITIES
from sitelens.core import errors
from sitelens.data import audits as stored_audits
from sitelens.records import listing
from sitelens.tokens import signing

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.audits.inputs import AuditIssuesQuery, AuditPagesQuery

# A filtered pages list reads at most this many of the run's pages a request (as other
# filtered lists: `data.pages.MAX_FILTERED_READS`); its cursor goes on from there.
MAX_PAGE_READS = 1_000


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
        # raw HTML against the rendered DOM (render: js), or the app shell found without it
        "rendering": app_shells.of(item),
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
            "muted": bool(item.get("muted")),  # listed, counted in neither score nor regressions
            "pages": json.loads(item["pages"]),
        }
        for item in found
    ]
    return sorted(shown, key=lambda i: (SEVERITIES.index(i["severity"]), -i["count"], i["code"]))
