"""POST /api/v1/websites/{id}/exports: export the website's raw events of a date range."""

from sitelens.analytics import exports
from sitelens.analytics.exports import ExportCreate
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    fields = ExportCreate.parse(request.form())
    return ok(exports.request_export(request.account.id, website_id, fields), status=202)
