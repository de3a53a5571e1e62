"""POST /api/event: one pageview or custom event from a tracked page (public, CORS open).
OPTIONS /api/event: the CORS preflight."""

from sitelens.analytics import tracking
from sitelens.edge.http import Request, Response, accepted, api_handler, no_content


@api_handler(public=True, headers=tracking.CORS_HEADERS)
def handler(request: Request) -> Response:
    if request.method == "OPTIONS":
        return no_content(tracking.PREFLIGHT_HEADERS)
    tracking.record_hit(request.form(), request.headers, request.source_ip)
    return accepted()
