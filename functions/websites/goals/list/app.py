"""GET /api/v1/websites/{id}/goals: every goal of a website (at most 100, one page)."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites import goals


@api_handler
def handler(request: Request) -> Response:
    return ok(goals.list_all(request.account.id, request.record_id()))
