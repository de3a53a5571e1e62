"""What changed, URL by URL, between two runs of an audit (Screaming Frog's "change
detection"): each URL of the site added or removed, and each whose status code, title,
canonical, indexability, word count or depth changed, with the old and the new values.

Read from what each run stored of every page (`data.audits.every_page`: both runs' pages
in URL order, merged as they stream, so memory stays flat at any size), never from an
issue's display list. A page of the site is one the crawl fetched that is not external.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sitelens.audits.done_runs import summary_of
from sitelens.audits.records import stored
from sitelens.audits.starting import crawl_of
from sitelens.core import errors
from sitelens.data import audits as stored_audits

FIELDS = ("status_code", "title", "canonical", "indexability", "word_count", "depth")
COLUMNS = (
    "url",
    "change",  # added, removed or changed
    "changed",  # the fields that changed, space-separated
    *(f"{name}_{which}" for name in FIELDS for which in ("old", "new")),
)


def indexability(page: dict[str, Any]) -> str:
    """Whether a search engine may index the page, or why not (Screaming Frog's
    "Indexability Status"): indexable, blocked by robots.txt, no response, redirected,
    client error, server error, noindex or canonicalised."""
    status = page.get("status_code")
    if page.get("blocked"):
        return "blocked by robots.txt"
    if status is None:
        return "no response"
    if page.get("redirect_to") or 300 <= int(status) < 400:
        return "redirected"
    if 400 <= int(status) < 500:
        return "client error"
    if int(status) >= 500:
        return "server error"
    if page.get("noindex"):
        return "noindex"
    canonical = page.get("canonical")
    if canonical and canonical != page["url"]:
        return "canonicalised"
    return "indexable"


def facts(page: dict[str, Any]) -> dict[str, Any]:
    """What the change list compares of a stored page."""
    return {
        "status_code": page.get("status_code"),
        "title": page.get("title"),
        "canonical": page.get("canonical"),
        "indexability": indexability(page),
        "word_count": page.get("words"),
        "depth": page.get("found_depth"),
    }


def between(
    account_id: str, audit_id: int, run: int, against: int | None
) -> Iterator[dict[str, Any]]:
    """Each URL that changed from run `against` (the run before `run` by default) to `run`,
    in URL order, a row of `COLUMNS`. 404 for a run the audit never had; 409 for one not
    done; 422 when there is no run to compare with."""
    record = stored(account_id, audit_id)
    if against is None:
        if run <= 1:
            raise errors.Invalid.field(
                "against", "Run 1 is the audit's first: there is no run before it to compare with."
            )
        against = run - 1
    if against == run:
        raise errors.Invalid.field("against", "Compare the run with another run, not itself.")
    if not 1 <= against <= int(record["run"]):
        raise errors.Invalid.field(
            "against", f"The against field must be from 1 to {record['run']}."
        )
    summary_of(record, run)
    summary_of(record, against)
    old = _site_pages(crawl_of(record, against))
    new = _site_pages(crawl_of(record, run))
    return _merged(old, new)


def _site_pages(crawl: str) -> Iterator[dict[str, Any]]:
    for page in stored_audits.every_page(crawl):
        if page.get("state") == "fetched" and not page.get("external"):
            yield page


def _merged(
    old: Iterator[dict[str, Any]], new: Iterator[dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    """Both runs' pages (each in URL order) side by side: a row per URL that changed."""
    before, after = next(old, None), next(new, None)
    while before is not None or after is not None:
        if before is not None and (after is None or before["url"] < after["url"]):
            yield _row(before["url"], "removed", facts(before), None)
            before = next(old, None)
        elif after is not None and (before is None or after["url"] < before["url"]):
            yield _row(after["url"], "added", None, facts(after))
            after = next(new, None)
        elif before is not None and after is not None:  # the same URL in both runs
            was, now = facts(before), facts(after)
            if was != now:
                yield _row(after["url"], "changed", was, now)
            before, after = next(old, None), next(new, None)


def _row(
    url: str, change: str, was: dict[str, Any] | None, now: dict[str, Any] | None
) -> dict[str, Any]:
    row: dict[str, Any] = {"url": url, "change": change}
    differs = []
    for name in FIELDS:
        row[f"{name}_old"] = was[name] if was else None
        row[f"{name}_new"] = now[name] if now else None
        if was and now and was[name] != now[name]:
            differs.append(name)
    row["changed"] = " ".join(differs)
    return row
