"""What changed between a run and the run before it, on complete sets, and whether that is
a regression. Pure: the caller reads both runs (`Snapshot`s, built from what each page
stored, never from an issue's display list of `checks.MAX_AFFECTED` pages).

A page is *served* when the crawl fetched it on the site with a 200 and no redirect. Per
issue, a URL it no longer lists is *fixed* when its page is still served, and *removed*
when the page went (404, 410, redirected away, dropped from the crawl); a URL it newly
lists is *added* when the page is new to the site (not served before), and *new* when it
was there before and now has the problem.

A run regressed (docs/audits.md, "Regressions") when, counting neither muted checks nor
the audit's `ignore` list:
- its score fell by `score_drop` points or more (default 10); or
- a high-severity check lists pages it did not list before that the site already had
  (`new_pages`), or lists any page at all while new to the site; pages a persisting check
  gained only because they were published since (`added_pages`) count when
  `high_on_added_pages` is set, since normal publishing on a site with a site-wide issue
  is not a regression by default.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sitelens.audits.reasons import title as issue_title
from sitelens.core import words

DEFAULT_SCORE_DROP = 10  # points: a score drop this large is a regression
DEFAULT_REGRESSION: dict[str, Any] = {
    "score_drop": DEFAULT_SCORE_DROP,
    "high_on_added_pages": False,
    "ignore": [],
}


@dataclass
class Snapshot:
    """A run's complete issue sets: each code's severity and every URL it lists, the pages
    served, and the run's score."""

    severities: dict[str, str] = field(default_factory=dict)
    affected: dict[str, set[str]] = field(default_factory=dict)
    served: set[str] = field(default_factory=set)
    score: int | None = None


def regression_settings(stored: str | dict[str, Any] | None) -> dict[str, Any]:
    """An audit's regression settings with the defaults filled in."""
    given = json.loads(stored) if isinstance(stored, str) and stored else stored or {}
    return {**DEFAULT_REGRESSION, **given}


def diff(before: Snapshot, after: Snapshot, muted: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The change from the previous run (`before`) to this one (`after`); a muted check is
    listed with `muted: true`."""
    removed_pages = before.served - after.served
    added_pages = after.served - before.served
    change: dict[str, Any] = {"new": [], "fixed": [], "removed": [], "persisting": []}
    for code in sorted(set(before.affected) | set(after.affected)):
        old, now = before.affected.get(code, set()), after.affected.get(code, set())
        gone, came = old - now, now - old
        entry: dict[str, Any] = {
            "code": code,
            "title": issue_title(code),  # what a person reads (digests, webhooks, share pages)
            "severity": after.severities.get(code) or before.severities[code],
            "pages": len(now),
            "new_pages": len(came - added_pages),
            "added_pages": len(came & added_pages),
            "fixed_pages": len(gone - removed_pages),
            "removed_pages": len(gone & removed_pages),
        }
        if code in muted:
            entry["muted"] = True
        if not old:
            change["new"].append(entry)
        elif now:
            change["persisting"].append(entry)
        elif entry["fixed_pages"]:
            change["fixed"].append({**entry, "pages": len(old)})
        else:  # every page it listed went: gone with them, not fixed
            change["removed"].append({**entry, "pages": len(old)})
    change["pages_added"] = len(added_pages)
    change["pages_removed"] = len(removed_pages)
    change["score_delta"] = (
        None if before.score is None or after.score is None else after.score - before.score
    )
    return change


def regression(change: dict[str, Any] | None, settings: dict[str, Any] | None = None) -> bool:
    """Whether a run's change is a regression under the audit's settings."""
    return bool(reasons(change, settings))


def reasons(change: dict[str, Any] | None, settings: dict[str, Any] | None = None) -> list[str]:
    """Why a run's change is a regression, one sentence a reason (none: it is not)."""
    if change is None:
        return []
    rules = regression_settings(settings)
    ignored = set(rules["ignore"])
    found = []
    delta = change["score_delta"]
    if delta is not None and delta <= -int(rules["score_drop"]):
        found.append(f"The score fell by {-delta} points.")
    for issue in [*change["new"], *change["persisting"]]:
        if issue["severity"] != "high" or issue.get("muted") or issue["code"] in ignored:
            continue
        is_new = issue in change["new"]
        added = issue["added_pages"] if is_new or rules["high_on_added_pages"] else 0
        spread = issue["new_pages"] + added
        if spread:
            pages = words.counted(spread, "page")
            found.append(f"{issue_title(issue['code'])} ({'new, ' if is_new else ''}{pages}).")
    return found
