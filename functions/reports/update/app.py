"""PUT or PATCH /api/v1/reports/{id}: change settings, or regenerate with results=1."""

from sitelens import reports
from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.reports.inputs import ReportUpdate
from sitelens.webhooks import events


@api_handler
def handler(request: Request) -> Response:
    report_id = request.record_id()
    fields = ReportUpdate.parse(request.form())
    record = reports.update(request.account.id, report_id, fields, request.base_url)
    if fields.results == 1:  # generated again
        events.report_completed(request.account.id, record)
    return ok(record)
