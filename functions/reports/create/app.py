"""POST /api/v1/reports: fetch a page, analyse it and keep the report."""

from sitelens import reports
from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.reports.inputs import ReportCreate
from sitelens.webhooks import events


@api_handler
def handler(request: Request) -> Response:
    fields = ReportCreate.parse(request.form())
    record = reports.create(request.account.id, fields, request.base_url)
    events.report_completed(request.account.id, record)
    return ok(record, status=201)
