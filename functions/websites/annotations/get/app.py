"""GET /api/v1/websites/{id}/annotations/{annotation_id}: one annotation of a website."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites import annotations


@api_handler
def handler(request: Request) -> Response:
    annotation_id = request.record_id("annotation_id")
    return ok(annotations.get(request.account.id, request.record_id(), annotation_id))
