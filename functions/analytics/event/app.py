"""POST /api/event: one pageview or custom event from a tracked page (public, CORS open),
in Sitelens' fields or Plausible's format. OPTIONS /api/event: the CORS preflight."""

from sitelens.analytics import tracking
from sitelens.edge.http import (
    Request,
    Response,
    accepted,
    api_handler,
    no_content,
    plausible_accepted,
)


@api_handler(public=True, headers=tracking.CORS_HEADERS)
def handler(request: Request) -> Response:
    if request.method == "OPTIONS":
        return no_content(tracking.PREFLIGHT_HEADERS)
    fields = request.form(plain_json=True)
    recorded = tracking.record_hit(fields, request.headers, request.client_ip())
    return plausible_accepted(recorded.dropped) if recorded.plausible else accepted()
