"""A run's crawled pages and its issues, as the API reads them (`GET /api/v1/audits/{id}/pages`
and `.../issues`, and the share view's issues)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from sitelens.audits import app_shells, reasons
from sitelens.audits.records import crawl_of, stored
from sitelens.audits.runs import SEVERITIES
from sitelens.audits.sorts import URL_ORDER
from sitelens.core import errors
from sitelens.data import audit_columns
from sitelens.data import audits as stored_audits
from sitelens.records import listing
from sitelens.tokens import signing

if TYPE_CHECKING:  # the input models import pydantic, which only parsing handlers need
    from sitelens.audits.inputs import AuditIssuesQuery, AuditPagesQuery

# A filtered pages list reads at most this many of the run's pages a request (as other
# filtered lists: `data.pages.MAX_FILTERED_READS`); its cursor goes on from there.
MAX_PAGE_READS = 1_000
NEAR_DUPLICATES = "near_duplicate_content"  # the issue that lists its clusters


def _run_of(record: dict[str, Any], run: int | None) -> str:
    if run is not None and not 1 <= run <= record["run"]:
        raise errors.Invalid.field("run", f"The run field must be from 1 to {record['run']}.")
    return crawl_of(record, run)


class NotSortable(errors.Conflict):
    """409: a run's pages are sorted once the run is done (its analysis writes the orders)."""

    message = (
        "The run's pages can be sorted once the run is done (runs analysed before sorting "
        "existed cannot be); read them without sort meanwhile."
    )


def show_page(item: dict[str, Any], ranked: list[Any] | None = None) -> dict[str, Any]:
    """A page as the list shows it; `ranked`: its entry of the run's orders ([url, link
    score, inlinks]), None before the run is analysed."""
    links = item.get("links")
    return {
        "url": item["url"],
        "status_code": item.get("status_code"),
        "depth": item.get("found_depth"),
        "response_time_ms": item.get("response_time_ms"),
        "word_count": item.get("words"),
        "inlinks": ranked[2] if ranked else None,
        "link_score": ranked[1] if ranked else None,
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
        # Search Console's clicks, impressions and top queries (audits.traffic.save_search)
        "search": json.loads(item["search"]) if item.get("search") else None,
        # raw HTML against the rendered DOM (render: js), or the app shell found without it
        "rendering": app_shells.of(item),
    }


def pages_page(account_id: str, audit_id: int, query: AuditPagesQuery) -> listing.Page:
    """A page of a run's crawled pages, filtered by issue, status or depth: in URL order,
    or in the order `sort` names once the run is done (its orders, `audits.columns`)."""
    record = stored(account_id, audit_id)
    crawl = _run_of(record, query.run)
    params = query.model_dump(exclude={"cursor", "format"}, exclude_none=True)
    bound_to = listing.binding(account_id, f"audit-pages:{audit_id}", params)
    position: dict[str, Any] = {}
    if query.cursor:
        position, _ = signing.decode_cursor(query.cursor, bound_to)
    affected: dict[str, str] | None = None  # URL -> what the issue found there
    if query.issue is not None:
        found = {i["code"]: i for i in stored_audits.issues(crawl)}.get(query.issue)
        listed = json.loads(found["pages"]) if found else []
        affected = {p["url"]: p["detail"] for p in listed}
    orders = json.loads((stored_audits.state(crawl) or {}).get("orders") or "{}")
    if query.sort is not None and query.sort not in orders:
        raise NotSortable()
    if "after" in position or (not query.cursor and not orders):
        shown, read, next_position = _in_key_order(crawl, query, affected, position)
    else:
        name = query.sort or URL_ORDER
        shown, read, next_position = _in_order(crawl, name, orders, query, affected, position)
    token = signing.encode_cursor(next_position, True, bound_to) if next_position else None
    return listing.Page(
        records=shown,
        next_cursor=token,
        prev_cursor=None,
        params=params,
        cost={},
        entries_read=read,
    )


def _in_key_order(
    crawl: str,
    query: AuditPagesQuery,
    affected: dict[str, str] | None,
    position: dict[str, Any],
) -> tuple[list[dict[str, Any]], int, dict[str, Any] | None]:
    """A page of the list read in its items' (URL) order: before the run is analysed."""
    after = position.get("after")
    if after is not None and (
        not isinstance(after, str) or not after.startswith(stored_audits.PAGE)
    ):
        raise errors.Invalid.field("cursor", "The cursor is invalid.")
    shown: list[dict[str, Any]] = []
    read, more = 0, True
    while more and len(shown) < query.per_page and read < MAX_PAGE_READS:
        chunk, last = stored_audits.pages_after(crawl, after, min(200, MAX_PAGE_READS - read))
        for n, item in enumerate(chunk):
            read += 1
            after = item["key"]
            if _matches(item, query, affected):
                shown.append(_shown(item, query, affected))
                if len(shown) == query.per_page:
                    more = n < len(chunk) - 1 or last is not None
                    break
        else:
            more = last is not None
    return shown, read, {"after": after} if more else None


def _in_order(
    crawl: str,
    name: str,
    orders: dict[str, int],
    query: AuditPagesQuery,
    affected: dict[str, str] | None,
    position: dict[str, Any],
) -> tuple[list[dict[str, Any]], int, dict[str, Any] | None]:
    """A page of the list read in one of the run's stored orders: the parts it spans, and
    its pages by key (up to `MAX_PAGE_READS` with filters)."""
    part, index = position.get("part", 0), position.get("index", 0)
    parts = orders.get(name, 0)
    if not isinstance(part, int) or not isinstance(index, int) or part < 0 or index < 0:
        raise errors.Invalid.field("cursor", "The cursor is invalid.")
    shown: list[dict[str, Any]] = []
    read = 0
    entries = audit_columns.order_part(crawl, name, part) if part < parts else []
    while part < parts and len(shown) < query.per_page and read < MAX_PAGE_READS:
        if index >= len(entries):
            part, index = part + 1, 0
            entries = audit_columns.order_part(crawl, name, part) if part < parts else []
            continue
        wanted = entries[index : index + min(query.per_page - len(shown), MAX_PAGE_READS - read)]
        items = audit_columns.pages_by_url(crawl, [entry[0] for entry in wanted])
        for entry in wanted:
            read += 1
            index += 1
            item = items.get(entry[0])
            if item is not None and _matches(item, query, affected):
                shown.append(_shown(item, query, affected, entry))
    if index >= len(entries):
        part, index = part + 1, 0
    return shown, read, {"part": part, "index": index} if part < parts else None


def _shown(
    item: dict[str, Any],
    query: AuditPagesQuery,
    affected: dict[str, str] | None,
    ranked: list[Any] | None = None,
) -> dict[str, Any]:
    """A page as listed; listed for an issue, with what the issue found there and why."""
    shown = show_page(item, ranked)
    if query.issue is not None and affected is not None:
        shown.update(reasons.explained(query.issue, affected[item["url"]], item))
    return shown


def _matches(item: dict[str, Any], query: AuditPagesQuery, affected: dict[str, str] | None) -> bool:
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


def issue_pages(account_id: str, audit_id: int, query: AuditIssuesQuery) -> dict[str, Any]:
    """The run's issue `query.code` with page `query.page` of its pages, each with why."""
    record = stored(account_id, audit_id)
    crawl = _run_of(record, query.run)
    found = run_issues(record, query.run)
    return reasons.issue_view(crawl, found, str(query.code), query.page, query.per_page)


def issue_rows(found: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """One row an issue's listed page, with its reason (a report check's as its title:
    the pages' own sentences are read a page at a time, by `issue_pages`)."""
    for issue in found:
        for page in issue["pages"]:
            yield {**issue, **page, **reasons.explained(issue["code"], page["detail"], None)}


def page_issues(account_id: str, audit_id: int, query: AuditPagesQuery) -> dict[str, Any]:
    """The run's page `query.url` with each issue that lists it, and why."""
    record = stored(account_id, audit_id)
    crawl = _run_of(record, query.run)
    return reasons.page_view(crawl, run_issues(record, query.run), str(query.url))


def run_issues(record: dict[str, Any], run: int | None = None) -> list[dict[str, Any]]:
    """The issues of the audit's run `run` (its current one by default), most severe
    first, each with its affected pages."""
    crawl = _run_of(record, run)
    found = stored_audits.issues(crawl)
    shown = [
        {
            "code": item["code"],
            "severity": item["severity"],
            "title": reasons.title(item["code"]),  # as worded now, for runs of before too
            "fix": item["fix"],
            "learn_more": item["learn_more"],
            "count": item["count"],
            "pageviews": item.get("pageviews"),  # None: the account does not track the host
            "muted": bool(item.get("muted")),  # listed, counted in neither score nor regressions
            "pages": json.loads(item["pages"]),
        }
        for item in found
    ]
    for issue in shown:
        if issue["code"] == NEAR_DUPLICATES:  # its pages grouped, with what differs
            issue["clusters"] = audit_columns.clusters(crawl)
    return sorted(shown, key=lambda i: (SEVERITIES.index(i["severity"]), -i["count"], i["code"]))
