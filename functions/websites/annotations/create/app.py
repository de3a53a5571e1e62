"""POST /api/v1/websites/{id}/annotations: a new annotation (a date or time, a text, a link)."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites import annotations
from sitelens.websites.annotations.inputs import AnnotationCreate


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    fields = AnnotationCreate.parse(request.form())
    return ok(annotations.create(request.account.id, website_id, fields), status=201)
