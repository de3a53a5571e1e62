"""A report's share views, addressed by its share id (`sitelens.sharing.links`) on the SEO
API, never by its id: the report as JSON, its unlock route, and its page."""

from __future__ import annotations

from typing import Any

from sitelens import sharing
from sitelens.edge import pages
from sitelens.edge.http import Request, Response, ok
from sitelens.edge.share import views
from sitelens.reports import records as report_records

CATEGORY_NAMES = {
    "seo": "Search engines",
    "performance": "Performance",
    "security": "Security",
    "miscellaneous": "Miscellaneous",
}


def _find(request: Request) -> sharing.Shared:
    return sharing.report(request.path_params.get("share_id", ""))


def _title(shared: sharing.Shared) -> str:
    return f"SEO report of {shared.record['url']}"


IMPORTANCE_ORDER = ("high", "medium", "low")  # failures are listed most important first
VITAL_NAMES = {
    "lcp": "Largest Contentful Paint (LCP)",
    "inp": "Interaction to Next Paint (INP)",
    "cls": "Cumulative Layout Shift (CLS)",
    "fcp": "First Contentful Paint (FCP)",
    "ttfb": "Time to First Byte (TTFB)",
}
RATINGS = {"good": "Good", "needs_improvement": "Needs improvement", "poor": "Poor"}


def _vital_rows(field_data: dict[str, Any]) -> list[dict[str, Any]]:
    """The table of a report's field vitals, as the page shows it (`reports.field`)."""
    found = []
    for name, vital in (field_data.get("vitals") or {}).items():
        p75 = vital["p75"]
        shown = None if p75 is None else f"{p75:.3f}" if name == "cls" else f"{p75:,} ms"
        samples = vital["samples"]
        found.append(
            {
                "name": VITAL_NAMES.get(name, name),
                "p75": shown,
                "rating": vital["rating"],
                "verdict": RATINGS.get(vital["rating"] or "", ""),
                "shares": [vital[share] for share in RATINGS],
                "samples": f"{samples:,} page view" + ("" if samples == 1 else "s"),
            }
        )
    return found


def _render(request: Request, shared: sharing.Shared) -> Response:
    record = report_records.show(shared.record, request.base_url)
    checks = [
        {
            "key": key,
            "name": key.replace("_", " ").capitalize(),
            "category_name": CATEGORY_NAMES.get(result["category"], result["category"]),
            **result,
        }
        for key, result in record["results"].items()
    ]
    failed = [check for check in checks if not check["passed"]]
    failed.sort(key=lambda check: IMPORTANCE_ORDER.index(check["importance"]))  # stable
    return pages.page(
        request,
        "report.html",
        brand=views.brand_of(request, shared),
        title=_title(shared),
        report=record,
        failed=failed,
        passed=[check for check in checks if check["passed"]],
        field=record["field_data"],
        vitals=_vital_rows(record["field_data"] or {}),
    )


REPORT = views.Kind(find=_find, title=_title, render=_render)


def report(request: Request) -> Response:
    """GET /api/v1/share/reports/{share_id}: the report as its owner reads it."""
    shared = views.opened(request, REPORT)
    return ok(report_records.show(shared.record, request.base_url))


def unlock(request: Request) -> Response:
    """POST /api/v1/share/reports/{share_id}/unlock."""
    return views.unlock(request, REPORT)


def page(request: Request) -> Response:
    """GET and POST /share/reports/{share_id}: the report page, or its password form."""
    return views.page(request, REPORT)
