"""GET /api/v1/stats/{id}/realtime: visitors of the last five minutes, their pages and
sources."""

from sitelens.analytics import realtime
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    return ok(realtime.now(request.account.id, request.record_id()))
