"""POST /api/v1/reports: fetch a page, analyse it and keep the report."""

from sitelens import reports
from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.reports.inputs import ReportCreate


@api_handler
def handler(request: Request) -> Response:
    fields = ReportCreate.parse(request.form())
    return ok(reports.create(request.account.id, fields, request.base_url), status=201)
