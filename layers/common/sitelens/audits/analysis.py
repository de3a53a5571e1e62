"""A run's last step: the cross-page checks over its stored pages, the per-page checks
summarised, the score, and the run's summary kept in the audit's record.

It reads the run's pages a Query at a time and keeps only what the checks compare (a few
hundred bytes a page: at `MAX_PAGES` pages, some tens of MB), the one step of a crawl that
sees every page; it runs in its own invocation with the memory for it (AuditFunction).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from sitelens.audits import checks, history, traffic
from sitelens.audits.records import RUNS_KEPT, SEVERITIES, kept_regressions
from sitelens.audits.urls import Scope
from sitelens.core import clock
from sitelens.data import audits as stored
from sitelens.seo.checks import CHECKS
from sitelens.seo.guidance import ADVICE
from sitelens.webhooks import events

# Checks of the whole site that a report runs on its page: an audit judges them once, by
# its own checks (robots.txt, sitemaps, the 404 page), not once a page.
SITE_CHECKS = frozenset({"404_page", "robots_txt", "sitemap"})
# What an issue costs the score: its severity's weight times the share of pages it touches.
WEIGHTS = {"high": 40, "medium": 20, "low": 5}
ANALYSABLE = ("crawling", "analysing")  # a run's statuses its analysis step may (re)start from
_LISTS = ("links", "external_links", "hreflang", "mixed", "failed_checks")


def decoded(item: dict[str, Any]) -> dict[str, Any]:
    """A stored page with its lists as lists."""
    page = dict(item)
    for name in _LISTS:
        if isinstance(page.get(name), str):
            page[name] = json.loads(page[name])
    return page


def page_checks(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One issue per per-page check that some pages fail (each page's report's checks)."""
    failing: dict[str, list[str]] = defaultdict(list)
    for page in pages:
        for key in page.get("failed_checks") or []:
            if key not in SITE_CHECKS and key in CHECKS:
                failing[key].append(page["url"])
    return [
        {
            "code": f"page_{key}",
            "severity": CHECKS[key].importance,
            "title": f"Pages failing the report check {key}",
            "fix": ADVICE[key].fix,
            "learn_more": ADVICE[key].learn_more,
            "count": len(urls),
            "pages": [{"url": url, "detail": key} for url in sorted(urls)[: checks.MAX_AFFECTED]],
        }
        for key, urls in sorted(failing.items())
    ]


def score(pages: list[dict[str, Any]], issues: list[dict[str, Any]]) -> int:
    """The pages' mean report score, less each cross-page issue's weight times the share
    of pages it affects (0 to 100)."""
    html = [p for p in pages if "score" in p]
    if not html:
        return 0
    mean = sum(p["score"] for p in html) / len(html)
    penalty = sum(
        WEIGHTS[i["severity"]] * min(1.0, i["count"] / len(html))
        for i in issues
        if not i["code"].startswith("page_")
    )
    return max(0, min(100, round(mean - penalty)))


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
    pages = [decoded(item) for item in stored.every_page(crawl) if item.get("state") == "fetched"]
    issues = checks.run(pages, _start_name(state)) + page_checks(pages)
    views = traffic.of_site(state["account"], state["url"])
    if views is not None:
        traffic.annotate(issues, views)
    vitals = traffic.field_of_site(state["account"], state["url"])
    if vitals:
        traffic.save_field(crawl, pages, vitals)
    stored.save_issues(crawl, issues, state["expires_at"])
    counts = {severity: 0 for severity in SEVERITIES}
    for issue in issues:
        counts[issue["severity"]] += 1
    summary = {
        "run": state["run"],
        "status": "done",
        "started_at": state["started_at"],
        "finished_at": clock.now_iso(),
        "pages": sum(1 for p in pages if not p.get("external")),
        "score": score(pages, issues),
        "issues": counts,
    }
    summary["diff"] = _change(state, pages, issues, summary["score"])
    summary["regression"] = history.regression(summary["diff"])
    if not stored.set_state(crawl, ("analysing",), status="done", summary=json.dumps(summary)):
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
    state: dict[str, Any], pages: list[dict[str, Any]], issues: list[dict[str, Any]], now: int
) -> dict[str, Any] | None:
    """The change from the audit's previous run (None for the first run, and after a run
    that did not finish: failed or cancelled, it has no issues to compare)."""
    if state["run"] <= 1:
        return None
    previous = stored.crawl_key(state["account"], int(state["audit"]), state["run"] - 1)
    before = stored.state(previous) or {}
    if not before.get("summary"):
        return None
    summary = json.loads(before["summary"])
    urls_before = {
        p["url"]
        for p in stored.every_page(previous)
        if p.get("state") == "fetched" and not p.get("external")
    }
    urls_after = {p["url"] for p in pages if not p.get("external")}
    return history.diff(
        stored.issues(previous), issues, urls_before, urls_after, summary.get("score"), now
    )


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
