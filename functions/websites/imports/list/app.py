"""GET /api/v1/websites/{id}/imports: the website's imports, newest first."""

from sitelens.analytics.imports import jobs as imports
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    return ok(imports.list_of(request.account.id, request.record_id()))
