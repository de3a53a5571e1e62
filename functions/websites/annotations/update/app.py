"""PUT or PATCH /api/v1/websites/{id}/annotations/{annotation_id}: change an annotation."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites import annotations
from sitelens.websites.annotations.inputs import AnnotationUpdate


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    annotation_id = request.record_id("annotation_id")
    fields = AnnotationUpdate.parse(request.form())
    return ok(annotations.update(request.account.id, website_id, annotation_id, fields))
