"""DELETE /api/v1/websites/{id}/annotations/{annotation_id}: remove an annotation."""

from sitelens.edge.http import Request, Response, api_handler, deleted
from sitelens.websites import annotations


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    annotation_id = request.record_id("annotation_id")
    annotations.delete(request.account.id, website_id, annotation_id)
    return deleted(annotation_id, "annotation")
