"""GET /api/v1/reports: one page of the account's reports."""

from sitelens import models, reports
from sitelens.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    query = models.ReportListQuery.parse(request.query)
    return reports.list_page(request.account.id, query).response(request)
