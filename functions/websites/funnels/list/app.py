"""GET /api/v1/websites/{id}/funnels: every saved funnel of a website (at most 10, one page)."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites import funnels


@api_handler
def handler(request: Request) -> Response:
    return ok(funnels.list_all(request.account.id, request.record_id()))
