"""POST /api/event: one pageview or custom event from a tracked page (public, CORS open),
in Sitelens' fields or Plausible's format. OPTIONS /api/event: the CORS preflight.

Through API Gateway only these routes arrive; through the function's own URL
(HitPath=FunctionUrl, no route: `resource` empty) any path and method do, answered as the
APIs answer them (404, 405 with Allow)."""

from sitelens.analytics import tracking
from sitelens.core import errors
from sitelens.edge.http import (
    Request,
    Response,
    accepted,
    api_handler,
    no_content,
    plausible_accepted,
)

PATH = "/api/event"
METHODS = ["POST", "OPTIONS"]


@api_handler(public=True, headers=tracking.CORS_HEADERS)
def handler(request: Request) -> Response:
    if not request.resource and request.path != PATH:
        raise errors.NotFound()
    if request.method not in METHODS:
        raise errors.MethodNotAllowed(METHODS)
    if request.method == "OPTIONS":
        return no_content(tracking.PREFLIGHT_HEADERS)
    fields = request.form(plain_json=True)
    recorded = tracking.record_hit(fields, request.headers, request.client_ip())
    return plausible_accepted(recorded.dropped) if recorded.plausible else accepted()
