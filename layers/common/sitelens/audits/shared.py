"""What an audit's share view shows (read without a key, as `sitelens.sharing` allows):
the audit's public fields, and its last finished run: the score, the issues grouped
by severity with their page counts, and the change from the run before."""

from __future__ import annotations

from typing import Any

from sitelens.audits import reasons, records, results, runs
from sitelens.audits.runs import SEVERITIES
from sitelens.core import errors

ISSUE_FIELDS = ("code", "title", "fix", "learn_more", "count")  # no pages: counts only
# What a visitor without a key sees of the audit: not its crawl settings (header names,
# list of URLs, rate, agent), scope patterns, grading or password state, which are the
# owner's.
PUBLIC_FIELDS = (
    "id",
    "name",
    "url",
    "schedule",
    "share_id",
    "share_url",
    "run",
    "status",
    "failure",
    "progress",
    "score",
    "issues",
    "created_at",
    "updated_at",
)


def view(
    record: dict[str, Any],
    base_url: str,
    issue: str | None = None,
    url: str | None = None,
    page: int = 1,
    per_page: int = 25,
) -> dict[str, Any]:
    """The share view of a stored audit; `last_run` is None until a run has finished.
    With `issue`, that issue of the last run with page `page` of its pages and their
    reasons (`issue`); with `url`, that page with its issues (`page`); 404 for either
    before a run has finished or when the run has none such."""
    state = records.current_state(record)
    last = runs.last_done(runs.finished_runs(record, state))
    shown: dict[str, Any] = {}
    if issue is not None or url is not None:
        if last is None:
            raise errors.NotFound()
        crawl = records.crawl_of(record, last["run"])
        found = [i for i in results.run_issues(record, last["run"]) if not i.get("muted")]
        if issue is not None:
            shown["issue"] = reasons.issue_view(crawl, found, issue, page, per_page)
        if url is not None:
            shown["page"] = reasons.page_view(crawl, found, url)
    return {
        **shown,
        "audit": {
            name: value
            for name, value in records.show(record, state, base_url).items()
            if name in PUBLIC_FIELDS
        },
        "last_run": _run(record, last) if last else None,
    }


def _run(record: dict[str, Any], summary: dict[str, Any]) -> dict[str, Any]:
    issues = results.run_issues(record, summary["run"])
    return {
        "run": summary["run"],
        "finished_at": summary["finished_at"],
        "pages": summary["pages"],
        "score": summary["score"],
        "severities": [
            {
                "severity": severity,
                "issues": [
                    {key: issue[key] for key in ISSUE_FIELDS}
                    for issue in issues
                    if issue["severity"] == severity and not issue.get("muted")
                ],
            }
            for severity in SEVERITIES
        ],
        "diff": _titled(summary.get("diff")),
        "regression": bool(summary.get("regression")),
        "regression_reasons": summary.get("regression_reasons", []),
    }


def _titled(change: dict[str, Any] | None) -> dict[str, Any] | None:
    """A run's change with each issue's title beside its code."""
    if change is None:
        return None
    lists = ("new", "fixed", "removed", "persisting")
    return {
        **change,
        **{
            name: [{**i, "title": reasons.title(i["code"])} for i in change.get(name) or []]
            for name in lists
            if name in change
        },
    }
