"""A website's share views, addressed by its domain on the analytics API (as Plausible
shares them): its statistics as JSON, its unlock route, and its statistics page."""

from __future__ import annotations

from sitelens import sharing
from sitelens.analytics import stats
from sitelens.analytics.inputs import PERIODS, SharePeriod, StatsQuery
from sitelens.edge import pages
from sitelens.edge.http import Request, Response, listed
from sitelens.edge.share import views

RANKED_TITLES = {
    "page": "Pages",
    "landing_page": "Landing pages",
    "referrer": "Referrers",
    "country": "Countries",
    "browser": "Browsers",
    "os": "Operating systems",
    "device": "Devices",
    "language": "Languages",
    "resolution": "Screen sizes",
    "utm_source": "Campaign sources",
    "utm_medium": "Campaign media",
    "campaign": "Campaigns",
    "event": "Events",
}


def _find(request: Request) -> sharing.Shared:
    return sharing.website(request.path_params.get("domain", ""))


def _title(shared: sharing.Shared) -> str:
    return f"{shared.record['domain']} statistics"


def _render(request: Request, shared: sharing.Shared) -> Response:
    period = SharePeriod.parse(request.query)
    first, last = period.days()
    overview = stats.overview(shared.id, first, last)
    return pages.page(
        request,
        "website.html",
        title=_title(shared),
        domain=shared.record["domain"],
        period=period,
        periods=PERIODS,
        first=first.isoformat(),
        last=last.isoformat(),
        overview=overview,
        ranked_titles=RANKED_TITLES,
        series={
            "days": overview.days,
            "visitors": overview.visitors,
            "pageviews": overview.pageviews,
        },
    )


WEBSITE = views.Kind(find=_find, title=_title, render=_render)


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
