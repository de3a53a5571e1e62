"""GET /api/v1/websites/{id}/exports/{export_id}: an export's status, and its URL once done."""

from sitelens.analytics import exports
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    return ok(exports.get(request.account.id, website_id, request.record_id("export_id")))
