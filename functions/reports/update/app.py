"""PUT or PATCH /api/v1/reports/{id}: change settings, or regenerate with results=1."""

from sitelens import models, reports
from sitelens.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    report_id = request.record_id()
    fields = models.ReportUpdate.parse(request.form())
    return ok(reports.update(request.account.id, report_id, fields))
