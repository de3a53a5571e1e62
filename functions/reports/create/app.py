"""POST /api/v1/reports: fetch a page, analyse it and keep the report."""

from sitelens import models, reports
from sitelens.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    fields = models.ReportCreate.parse(request.form())
    return ok(reports.create(request.account.id, fields), status=201)
