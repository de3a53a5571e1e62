"""Why a page is under an issue, as people read it: a sentence of what was found and where
(the element, the value, the limit), with the issue's title, fix and learn-more link.

A report check's sentence is the one the check wrote on the page, stored with the page when
it was crawled (`of_results`); a cross-page check's is its definition's, with what it found
there (`definitions.reason`). The titles are the checks' own (`seo.guidance`,
`audits.definitions`): the one place each is worded. Views: an issue's pages a page number
at a time (`issue_view`), and a page's issues (`page_view`).
"""

from __future__ import annotations

import json
from typing import Any

from sitelens.audits import definitions
from sitelens.audits.codes import PAGE_CHECK
from sitelens.core import errors
from sitelens.data import audits as stored_audits
from sitelens.seo.guidance import ADVICE

MAX_REASON = 300  # characters of a stored sentence: the check's own, a few words quoted
MAX_PER_PAGE = 100  # pages of an issue a view lists at once
SITE_CHECKS = frozenset({"404_page", "robots_txt", "sitemap"})  # judged once a site


def of_results(results: dict[str, Any]) -> dict[str, str]:
    """Each failed report check's sentence on the page, from a report's `results` (its
    errors, joined), as a crawled page stores it."""
    found = {}
    for key, result in results.items():
        if result["passed"] or key in SITE_CHECKS:
            continue
        sentence = " ".join((result.get("errors") or {}).values()) or f"{title(PAGE_CHECK + key)}."
        found[key] = sentence if len(sentence) <= MAX_REASON else sentence[: MAX_REASON - 1] + "…"
    return found


def title(code: str) -> str:
    """An issue code's title, as people read it (the code itself for an unknown one)."""
    if code.startswith(PAGE_CHECK) and code.removeprefix(PAGE_CHECK) in ADVICE:
        return ADVICE[code.removeprefix(PAGE_CHECK)].title
    found = definitions.DEFINITIONS.get(code)
    return found.title if found else code


def _guidance(code: str) -> tuple[str, str, str]:
    """(where, fix, learn_more) of an issue code."""
    if code.startswith(PAGE_CHECK):
        advice = ADVICE[code.removeprefix(PAGE_CHECK)]
        return advice.where, advice.fix, advice.learn_more
    found = definitions.DEFINITIONS[code]
    return found.where, found.fix, found.learn_more


def explained(code: str, detail: str, page: dict[str, Any] | None) -> dict[str, Any]:
    """The reason an issue lists a page: its sentence, where it looks, the fix and link."""
    where, fix, learn_more = _guidance(code)
    if code.startswith(PAGE_CHECK):
        stored = (page or {}).get("reasons")
        sentences = json.loads(stored) if isinstance(stored, str) else stored or {}
        # a run crawled before reasons were stored says which check failed, in its words
        sentence = sentences.get(code.removeprefix(PAGE_CHECK)) or f"{title(code)}."
    else:
        sentence = definitions.reason(code, detail)
    return {"reason": sentence, "where": where, "fix": fix, "learn_more": learn_more}


def _shown_page(page: dict[str, Any] | None) -> dict[str, Any]:
    page = page or {}
    return {"status_code": page.get("status_code"), "title": page.get("title")}


def issue_view(
    crawl: str, issues: list[dict[str, Any]], code: str, number: int, per_page: int
) -> dict[str, Any]:
    """An issue of the run with page `number` of its listed pages (`per_page` a page, in
    URL order), each with its reason; 404 when the run has no such issue, 422 for a page
    number past the last."""
    issue = next((i for i in issues if i["code"] == code), None)
    if issue is None:
        raise errors.NotFound()
    listed = issue["pages"]
    last = max(1, -(-len(listed) // per_page))
    if number > last:
        raise errors.Invalid.field("page", f"The page field must be from 1 to {last}.")
    chunk = listed[(number - 1) * per_page : number * per_page]
    stored = stored_audits.pages_of(crawl, [entry["url"] for entry in chunk])
    pages = [
        {
            "url": entry["url"],
            "detail": entry["detail"],
            **_shown_page(stored.get(entry["url"])),
            **explained(code, entry["detail"], stored.get(entry["url"])),
        }
        for entry in chunk
    ]
    return {
        **{key: value for key, value in issue.items() if key != "pages"},
        "page": number,
        "per_page": per_page,
        "last_page": last,
        "listed": len(listed),
        "pages": pages,
    }


def page_view(crawl: str, issues: list[dict[str, Any]], url: str) -> dict[str, Any]:
    """A page of the run with each issue that lists it, most severe first, with its
    reason; 404 when the run has no such page."""
    page = stored_audits.pages_of(crawl, [url]).get(url)
    if page is None or page.get("state") != "fetched":
        raise errors.NotFound()
    failed = json.loads(page.get("failed_checks") or "[]")
    found = []
    for issue in issues:  # the run's issues, most severe first
        code = issue["code"]
        if code.startswith(PAGE_CHECK):  # the page's own list: complete, where an issue's is cut
            listed = code.removeprefix(PAGE_CHECK) in failed
            entry = {"url": url, "detail": code.removeprefix(PAGE_CHECK)} if listed else None
        else:
            entry = next((p for p in issue["pages"] if p["url"] == url), None)
        if entry is None:
            continue
        found.append(
            {
                "code": issue["code"],
                "severity": issue["severity"],
                "title": issue["title"],
                "muted": issue.get("muted", False),
                **explained(issue["code"], entry["detail"], page),
            }
        )
    return {"url": url, **_shown_page(page), "issues": found}
