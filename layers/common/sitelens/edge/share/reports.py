"""A report's share views, addressed by its share id (`sitelens.sharing.links`) on the SEO
API, never by its id: the report as JSON, its unlock route, and its page."""

from __future__ import annotations

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
        title=_title(shared),
        report=record,
        failed=failed,
        passed=[check for check in checks if check["passed"]],
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
