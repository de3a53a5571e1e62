"""An audit's share views, addressed by its share id (`sitelens.sharing.links`) on the SEO
API, never by its id: the audit as JSON (issues by severity, the change from the run
before), its unlock route, and its page."""

from __future__ import annotations

from sitelens import sharing
from sitelens.audits import shared as shared_audits
from sitelens.edge import pages
from sitelens.edge.http import Request, Response, ok
from sitelens.edge.share import views

SEVERITY_NAMES = {"high": "High severity", "medium": "Medium severity", "low": "Low severity"}


def _find(request: Request) -> sharing.Shared:
    return sharing.audit(request.path_params.get("share_id", ""))


def _title(shared: sharing.Shared) -> str:
    return f"Site audit of {shared.record['url']}"


def _render(request: Request, shared: sharing.Shared) -> Response:
    return pages.page(
        request,
        "audit.html",
        brand=views.brand_of(request, shared),
        title=_title(shared),
        severity_names=SEVERITY_NAMES,
        **shared_audits.view(shared.record, request.base_url),
    )


AUDIT = views.Kind(find=_find, title=_title, render=_render)


def audit(request: Request) -> Response:
    """GET /api/v1/share/audits/{share_id}: the audit, its issues by severity and diff."""
    shared = views.opened(request, AUDIT)
    return ok(shared_audits.view(shared.record, request.base_url))


def unlock(request: Request) -> Response:
    """POST /api/v1/share/audits/{share_id}/unlock."""
    return views.unlock(request, AUDIT)


def page(request: Request) -> Response:
    """GET and POST /share/audits/{share_id}: the audit page, or its password form."""
    return views.page(request, AUDIT)
