"""An audit's share views, addressed by its share id (`sitelens.sharing.links`) on the SEO
API, never by its id: the audit as JSON (issues by severity, the change from the run
before), its unlock route, and its page."""

from __future__ import annotations

from typing import Any

from sitelens import sharing
from sitelens.audits import shared as shared_audits
from sitelens.edge import pages
from sitelens.edge.http import Request, Response, ok
from sitelens.edge.share import views

_ASKED = ("issue", "url", "page", "per_page")  # the query's fields of AuditShareQuery
SEVERITY_NAMES = {"high": "High severity", "medium": "Medium severity", "low": "Low severity"}


def _find(request: Request) -> sharing.Shared:
    return sharing.audit(request.path_params.get("share_id", ""))


def _title(shared: sharing.Shared) -> str:
    return f"Site audit of {shared.record['url']}"


def _view(request: Request, shared: sharing.Shared) -> dict[str, Any]:
    """The audit's share view, with the issue's pages or the page's issues it asks for."""
    # Imported here: pydantic loads only for a request that asks for more than the audit
    from sitelens.audits.inputs import AuditShareQuery

    wanted = {k: v for k, v in request.query.items() if v != "" and k in _ASKED}
    query = AuditShareQuery.parse(wanted) if wanted else None
    if query is None:
        return shared_audits.view(shared.record, request.base_url)
    return shared_audits.view(
        shared.record, request.base_url, query.issue, query.url, query.page, query.per_page
    )


def _render(request: Request, shared: sharing.Shared) -> Response:
    return pages.page(
        request,
        "audit.html",
        brand=views.brand_of(request, shared),
        title=_title(shared),
        severity_names=SEVERITY_NAMES,
        **{"issue": None, "page": None, **_view(request, shared)},
    )


AUDIT = views.Kind(find=_find, title=_title, render=_render)


def audit(request: Request) -> Response:
    """GET /api/v1/share/audits/{share_id}: the audit, its issues by severity and diff;
    with `issue` (and `page`), that issue's pages and their reasons; with `url`, that
    page's issues."""
    shared = views.opened(request, AUDIT)
    return ok(_view(request, shared))


def unlock(request: Request) -> Response:
    """POST /api/v1/share/audits/{share_id}/unlock."""
    return views.unlock(request, AUDIT)


def page(request: Request) -> Response:
    """GET and POST /share/audits/{share_id}: the audit page, or its password form."""
    return views.page(request, AUDIT)
