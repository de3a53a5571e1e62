"""PUT or PATCH /api/v1/reports/{id}: change settings, or regenerate with results=1."""

from sitelens import reports
from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.reports.inputs import ReportUpdate


@api_handler
def handler(request: Request) -> Response:
    report_id = request.record_id()
    fields = ReportUpdate.parse(request.form())
    return ok(reports.update(request.account.id, report_id, fields, request.base_url))
