"""A run's last step: the cross-page checks over its stored pages, the per-page checks
summarised, the score, and the run's summary kept in the audit's record.

It reads the run's pages a Query at a time and keeps only what the checks compare (a few
hundred bytes a page: at `MAX_PAGES` pages, some tens of MB), the one step of a crawl that
sees every page; it runs in its own invocation with the memory for it (AuditFunction).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from sitelens.audits import (
    checks,
    columns,
    content_checks,
    duplicates,
    history,
    link_score,
    reasons,
    traffic,
)
from sitelens.audits.runs import RUNS_KEPT, SEVERITIES, kept_regressions
from sitelens.audits.urls import Scope
from sitelens.core import clock
from sitelens.data import audit_columns as stored_columns
from sitelens.data import audits as stored
from sitelens.seo.analysis import WEIGHTS as REPORT_WEIGHTS
from sitelens.seo.checks import CHECKS
from sitelens.seo.guidance import ADVICE
from sitelens.webhooks import events

# Checks of the whole site that a report runs on its page: an audit judges them once, by
# its own checks (robots.txt, sitemaps, the 404 page), not once a page.
SITE_CHECKS = reasons.SITE_CHECKS
# What an issue costs the score: its severity's weight times the share of pages it touches.
WEIGHTS = {"high": 40, "medium": 20, "low": 5}
MUTED = "muted"  # an audit's grade of a check it does not want counted
PAGE_CHECK = "page_"  # an issue of a report check, failed on pages one by one
ANALYSABLE = ("crawling", "analysing")  # a run's statuses its analysis step may (re)start from
_LISTS = ("links", "external_links", "hreflang", "mixed", "failed_checks")


def decoded(item: dict[str, Any]) -> dict[str, Any]:
    """A stored page with its lists as lists."""
    page = dict(item)
    page.pop("text_sample", None)  # read again for the near-duplicates listed only
    for name in _LISTS:
        if isinstance(page.get(name), str):
            page[name] = json.loads(page[name])
    return page


def page_checks(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One issue per per-page check that some pages fail (each page's report's checks)."""
    return [
        {
            "code": code,
            "severity": CHECKS[code.removeprefix(PAGE_CHECK)].importance,
            "title": ADVICE[code.removeprefix(PAGE_CHECK)].title,
            "fix": ADVICE[code.removeprefix(PAGE_CHECK)].fix,
            "learn_more": ADVICE[code.removeprefix(PAGE_CHECK)].learn_more,
            "count": len(urls),
            "pages": [
                {"url": url, "detail": code.removeprefix(PAGE_CHECK)}
                for url in sorted(urls)[: checks.MAX_AFFECTED]
            ],
        }
        for code, urls in sorted(failing_pages(pages).items())
    ]


def failing_pages(pages: Iterable[dict[str, Any]]) -> dict[str, set[str]]:
    """`page_<check>` -> every page failing that per-page check, from what each stored."""
    failing: dict[str, set[str]] = defaultdict(set)
    for page in pages:
        for key in page.get("failed_checks") or []:
            if key not in SITE_CHECKS and key not in content_checks.JUDGED_HERE and key in CHECKS:
                failing[PAGE_CHECK + key].add(page["url"])
    return failing


def grading(state: dict[str, Any]) -> dict[str, str]:
    """The audit's muted (`muted`) and re-graded (a severity) issue codes."""
    muted = state.get("muted")
    return json.loads(muted) if isinstance(muted, str) and muted else dict(muted or {})


def graded(issues: list[dict[str, Any]], grades: dict[str, str]) -> list[dict[str, Any]]:
    """The issues with the audit's grades: a re-graded issue takes its new severity, a
    muted one is marked `muted` (listed, counted in neither score nor regressions)."""
    for issue in issues:
        grade = grades.get(issue["code"])
        if grade == MUTED:
            issue["muted"] = True
        elif grade in WEIGHTS:
            issue["severity"] = grade
    return issues


def _page_score(page: dict[str, Any], grades: dict[str, str]) -> float:
    """A page's report score, weighed again when the audit mutes or re-grades report
    checks (its stored score otherwise)."""
    if not any(code.startswith(PAGE_CHECK) for code in grades):
        return float(page["score"])
    total = failed = 0
    failing = set(page.get("failed_checks") or [])
    for key, check in CHECKS.items():
        grade = grades.get(PAGE_CHECK + key, check.importance)
        if grade == MUTED:
            continue
        weight = REPORT_WEIGHTS[grade]  # type: ignore[index]
        total += weight
        failed += weight if key in failing else 0
    return 100 * (total - failed) / total if total else 0.0


def score(
    pages: list[dict[str, Any]], issues: list[dict[str, Any]], grades: dict[str, str] | None = None
) -> int:
    """The pages' mean report score, less each cross-page issue's weight times the share
    of pages it affects (0 to 100); muted checks count for nothing."""
    grades = grades or {}
    html = [p for p in pages if "score" in p]
    if not html:
        return 0
    mean = sum(_page_score(p, grades) for p in html) / len(html)
    penalty = sum(
        WEIGHTS[i["severity"]] * min(1.0, i["count"] / len(html))
        for i in issues
        if not i["code"].startswith(PAGE_CHECK) and not i.get("muted")
    )
    return max(0, min(100, round(mean - penalty)))


def served(pages: Iterable[dict[str, Any]]) -> set[str]:
    """The URLs of a run's pages the site served: fetched on the site, 200, no redirect."""
    return {
        p["url"]
        for p in pages
        if p.get("state") == "fetched"
        and not p.get("external")
        and not p.get("blocked")
        and p.get("status_code") == 200
        and not p.get("redirect_to")
    }


def snapshot(
    pages: list[dict[str, Any]], cross: dict[str, set[str]], issues: list[dict[str, Any]]
) -> history.Snapshot:
    """A run's complete issue sets: the cross-page checks' and each page's own."""
    return history.Snapshot(
        severities={i["code"]: i["severity"] for i in issues},
        affected={**{c: u for c, u in cross.items() if u}, **failing_pages(pages)},
        served=served(pages),
    )


def analyse(crawl: str) -> None:
    """Check the run across its pages and record the outcome. A step redelivered after a
    failure (a throttle, a worker killed midway) analyses again: its issues are written
    under the same keys, and only the attempt that moves the run from analysing to done
    makes the summary (none for a run cancelled meanwhile). A step that comes again once
    the run is done only finishes what a worker killed after that left undone."""
    state = stored.state(crawl)
    if state is not None and state.get("status") == "done" and state.get("summary"):
        _finish(crawl, state, json.loads(state["summary"]))
        return
    if state is None or not stored.set_state(crawl, ANALYSABLE, status="analysing"):
        return
    grades = grading(state)
    pages = [decoded(item) for item in stored.every_page(crawl) if item.get("state") == "fetched"]
    similar = int(state.get("near_duplicate_similarity") or duplicates.DEFAULT_SIMILARITY)
    found = checks.affected(pages, _start_name(state), duplicates.bits_of(similar))
    found |= content_checks.of_host(state)
    scores = link_score.scores(pages)
    views = traffic.of_site(state["account"], state["url"])
    if views is not None:
        found["high_traffic_low_link_score"] = columns.weak_links(scores, views)
    cross = {code: {url for url, _ in entries} for code, entries in found.items()}
    issues = [i for code in checks.DEFINITIONS if (i := checks.issue(code, found.get(code, [])))]
    issues = graded(issues + page_checks(pages), grades)
    if views is not None:
        traffic.annotate(issues, views)
    orders = columns.save(crawl, pages, scores, state["expires_at"])
    stored_columns.save_clusters(
        crawl, columns.clusters(crawl, pages, similar), state["expires_at"]
    )
    vitals = traffic.field_of_site(state["account"], state["url"])
    if vitals:
        traffic.save_field(crawl, pages, vitals)
    search = traffic.search_of_site(state["account"], state["url"])
    if search:
        traffic.save_search(crawl, pages, search)
    stored.save_issues(crawl, issues, state["expires_at"])
    stored.save_affected(crawl, cross, state["expires_at"])
    counts = {severity: 0 for severity in SEVERITIES}
    for issue in issues:
        if not issue.get("muted"):
            counts[issue["severity"]] += 1
    now = snapshot(pages, cross, issues)
    now.score = score(pages, issues, grades)
    summary = {
        "run": state["run"],
        "status": "done",
        "started_at": state["started_at"],
        "finished_at": clock.now_iso(),
        "pages": sum(1 for p in pages if not p.get("external")),
        "score": now.score,
        "issues": counts,
    }
    if state.get("scope_changed"):
        summary["scope_changed"] = True
    muted = frozenset(code for code, grade in grades.items() if grade == MUTED)
    summary["diff"] = _change(state, now, muted, grades)
    settings = history.regression_settings(state.get("regression"))
    summary["regression_reasons"] = history.reasons(summary["diff"], settings)
    summary["regression"] = bool(summary["regression_reasons"])
    done = {
        "status": "done",
        "summary": json.dumps(summary),
        "complete_sets": 1,
        "orders": json.dumps(orders),  # parts of each sort order (`columns`)
    }
    if vitals:  # what the run's PDF shows of them (`documents.audit_pdf`)
        done["field_summary"] = json.dumps(traffic.field_summary(pages, vitals))
    if not stored.set_state(crawl, ("analysing",), None, **done):
        return  # cancelled, or done by a concurrent delivery of the same step
    _finish(crawl, state, summary)


def _finish(crawl: str, state: dict[str, Any], summary: dict[str, Any]) -> None:
    """Keep the done run in its audit's record and send its events, once: an attempt
    killed before either is finished by the step's next delivery. The record's entry is
    replaced whole, and the events go out from the attempt that marks the state notified
    (a kill between the mark and the queueing loses them rather than sending them twice)."""
    _record_run(state, summary)
    if stored.set_state(crawl, ("done",), only_once="notified_at", notified_at=clock.now_iso()):
        events.audit_finished(state["account"], state, summary)  # audit.completed, .regressed


def _change(
    state: dict[str, Any], now: history.Snapshot, muted: frozenset[str], grades: dict[str, str]
) -> dict[str, Any] | None:
    """The change from the audit's previous run (None for the first run, and after a run
    that did not finish: failed or cancelled, it has no issues to compare). The previous
    run's sets are what it stored: its pages, and its cross-page checks' complete sets (a
    run from before they were stored has its checks run again on its stored pages)."""
    if state["run"] <= 1:
        return None
    previous = stored.crawl_key(state["account"], int(state["audit"]), state["run"] - 1)
    before_state = stored.state(previous) or {}
    if not before_state.get("summary"):
        return None
    pages = [decoded(p) for p in stored.every_page(previous) if p.get("state") == "fetched"]
    if before_state.get("complete_sets"):
        cross = stored.affected(previous)
    else:  # judged as this run is: at its near-duplicate threshold
        similar = int(state.get("near_duplicate_similarity") or duplicates.DEFAULT_SIMILARITY)
        found = checks.affected(pages, _start_name(before_state), duplicates.bits_of(similar))
        cross = {code: {url for url, _ in entries} for code, entries in found.items()}
    before = history.Snapshot(
        severities={code: _severity(code, grades) for code in [*cross, *failing_pages(pages)]},
        affected={**{c: u for c, u in cross.items() if u}, **failing_pages(pages)},
        served=served(pages),
        score=json.loads(before_state["summary"]).get("score"),
    )
    return history.diff(before, now, muted)


def _severity(code: str, grades: dict[str, str]) -> str:
    """A check's severity as this audit grades it now (both runs are judged alike)."""
    grade = grades.get(code)
    if grade is not None and grade in WEIGHTS:
        return grade
    if code.startswith(PAGE_CHECK):
        return CHECKS[code.removeprefix(PAGE_CHECK)].importance
    return checks.DEFINITIONS[code][0]


def _start_name(state: dict[str, Any]) -> str:
    scope = Scope(state["url"], state.get("include", ""), state.get("exclude", ""))
    return scope.name(state["url"]) or state["url"]


def _record_run(state: dict[str, Any], summary: dict[str, Any]) -> None:
    """Keep the run's summary in its audit's record (gone if the audit was deleted)."""

    def change(current: dict[str, Any]) -> dict[str, Any]:
        runs = [r for r in json.loads(current.get("runs") or "[]") if r["run"] != summary["run"]]
        runs = ([*runs, summary])[-RUNS_KEPT:]
        return {
            **current,
            "runs": json.dumps(runs),
            "regressed": kept_regressions(current, [summary]),
            "updated_at": clock.after(current["updated_at"]),
        }

    stored.update(state["account"], int(state["audit"]), change)
