"""What changed between a run and the run before it: issues new, fixed and persisting
(with the pages each gained and lost), pages added and removed, the score's change, and
whether that is a regression (a new issue of high severity, or a score drop of
`REGRESSION_POINTS` or more). Pure: the caller reads both runs."""

from __future__ import annotations

import json
from typing import Any

REGRESSION_POINTS = 10  # a score drop this large is a regression


def _affected(issues: list[dict[str, Any]]) -> dict[str, tuple[str, set[str]]]:
    """code -> (severity, the URLs it lists)."""
    found = {}
    for issue in issues:
        pages = issue["pages"]
        listed = json.loads(pages) if isinstance(pages, str) else pages
        found[issue["code"]] = (issue["severity"], {page["url"] for page in listed})
    return found


def diff(
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    pages_before: set[str],
    pages_after: set[str],
    score_before: int | None,
    score_after: int,
) -> dict[str, Any]:
    """The change from the previous run (`before`) to this one (`after`)."""
    old, new = _affected(before), _affected(after)
    changed = {
        "new": [
            {"code": code, "severity": severity, "pages": len(urls)}
            for code, (severity, urls) in sorted(new.items())
            if code not in old
        ],
        "fixed": [
            {"code": code, "severity": severity, "pages": len(urls)}
            for code, (severity, urls) in sorted(old.items())
            if code not in new
        ],
        "persisting": [
            {
                "code": code,
                "severity": severity,
                "pages": len(urls),
                "new_pages": len(urls - old[code][1]),
                "fixed_pages": len(old[code][1] - urls),
            }
            for code, (severity, urls) in sorted(new.items())
            if code in old
        ],
        "pages_added": len(pages_after - pages_before),
        "pages_removed": len(pages_before - pages_after),
        "score_delta": None if score_before is None else score_after - score_before,
    }
    return changed


def regression(change: dict[str, Any] | None) -> bool:
    """Whether a run's change is a regression."""
    if change is None:
        return False
    new_high = any(issue["severity"] == "high" for issue in change["new"]) or any(
        issue["severity"] == "high" and issue["new_pages"] for issue in change["persisting"]
    )
    delta = change["score_delta"]
    return new_high or (delta is not None and delta <= -REGRESSION_POINTS)
