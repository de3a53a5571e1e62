"""GET /api/v1/websites/{id}/segments: every saved segment of a website (at most 20, one
page)."""

from sitelens.analytics import segments
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    return ok(segments.list_all(request.account.id, request.record_id()))
