"""DELETE /api/v1/reports/{id}: delete a report."""

from sitelens import reports
from sitelens.edge.http import Request, Response, api_handler, deleted


@api_handler
def handler(request: Request) -> Response:
    report_id = request.record_id()
    reports.delete(request.account.id, report_id)
    return deleted(report_id, "report")
