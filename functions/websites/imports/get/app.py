"""GET /api/v1/websites/{id}/imports/{import_id}: an import's status, progress and rows."""

from sitelens.analytics.imports import jobs as imports
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    return ok(imports.get(request.account.id, website_id, request.record_id("import_id")))
