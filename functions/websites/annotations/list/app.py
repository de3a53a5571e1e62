"""GET /api/v1/websites/{id}/annotations: every annotation of a website, by date."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites import annotations


@api_handler
def handler(request: Request) -> Response:
    return ok(annotations.list_all(request.account.id, request.record_id()))
