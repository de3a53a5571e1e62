"""A website's share views, addressed by its domain on the analytics API (as Plausible
shares them): its dashboard as JSON and as a page (the query API's figures,
`analytics.dashboard`), its counters as the stats API gives them, and its unlock route."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from sitelens import sharing
from sitelens.analytics import dashboard, segments, stats
from sitelens.analytics.inputs import PERIODS, SharePeriod, StatsQuery
from sitelens.core import errors, numbers
from sitelens.edge import pages
from sitelens.edge.http import Request, Response, listed, ok
from sitelens.edge.share import views

BREAKDOWN_TITLES = {
    "sources": ("Sources", "Source"),
    "pages": ("Pages", "Page"),
    "entry_pages": ("Entry pages", "Entry page"),
    "exit_pages": ("Exit pages", "Exit page"),
    "countries": ("Countries", "Country"),
    "devices": ("Devices", "Device"),
    "browsers": ("Browsers", "Browser"),
    "operating_systems": ("Operating systems", "Operating system"),
}
TOTAL_TITLES = {
    "visitors": "Unique visitors",
    "visits": "Visits",
    "pageviews": "Pageviews",
    "views_per_visit": "Views per visit",
    "bounce_rate": "Bounce rate",
    "visit_duration": "Visit duration",
}


class _Moved(errors.ApiError):
    """308 to the same view under a renamed website's new domain (docs/websites-domains.md)."""

    status = 308
    message = "This website's domain was renamed: its share view is at the Location."

    def __init__(self, location: str) -> None:
        super().__init__()
        self.headers = {"Location": location}


def _find(request: Request) -> sharing.Shared:
    domain = request.path_params.get("domain", "")
    try:
        return sharing.website(domain)
    except sharing.Renamed as renamed:
        parts = request.path.split("/")
        moved = "/".join(renamed.domain if part == domain else part for part in parts)
        query = f"?{urlencode(request.query)}" if request.query else ""
        raise _Moved(f"{request.base_url}{moved}{query}") from None


def _title(shared: sharing.Shared) -> str:
    return f"{shared.record['domain']} statistics"


def _figures(request: Request, shared: sharing.Shared) -> tuple[SharePeriod, dict[str, Any]]:
    period = SharePeriod.parse({k: v for k, v in request.query.items() if k != "segment"})
    first, last = period.days(shared.record.get("timezone") or "UTC")
    segment = request.query.get("segment", "")
    if segment:  # one of the website's saved segments: the dashboard under its filters
        segment_id = numbers.record_id(segment)
        if segment_id is None:
            raise errors.Invalid.field("segment", segments.rules.NOT_A_SEGMENT)
        figures = dashboard.of_segment(shared.account, shared.record, first, last, segment_id)
        return period, figures
    return period, dashboard.of_website(shared.account, shared.record, first, last)


def _render(request: Request, shared: sharing.Shared) -> Response:
    period, figures = _figures(request, shared)
    return pages.page(
        request,
        "website.html",
        brand=views.brand_of(request, shared),
        title=_title(shared),
        domain=shared.record["domain"],
        period=period,
        periods=PERIODS,
        first=figures["date_range"][0],
        last=figures["date_range"][1],
        figures=figures,
        total_titles=TOTAL_TITLES,
        breakdown_titles=BREAKDOWN_TITLES,
        chart={**figures["series"], "annotations": figures["annotations"]},
    )


WEBSITE = views.Kind(find=_find, title=_title, render=_render)


def figures(request: Request) -> Response:
    """GET /api/v1/share/websites/{domain}: the dashboard's figures as JSON."""
    shared = views.opened(request, WEBSITE)
    return ok(_figures(request, shared)[1])


def statistics(request: Request) -> Response:
    """GET /api/v1/share/websites/{domain}/stats: as `GET /api/v1/stats/{id}`."""
    shared = views.opened(request, WEBSITE)
    query = StatsQuery.parse(request.query)
    return listed(request, stats.page(shared.account, shared.id, query))


def unlock(request: Request) -> Response:
    """POST /api/v1/share/websites/{domain}/unlock."""
    return views.unlock(request, WEBSITE)


def page(request: Request) -> Response:
    """GET and POST /share/{domain}: the statistics page, or its password form."""
    return views.page(request, WEBSITE)
