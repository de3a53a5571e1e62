"""GET /api/v1/reports: one page of the account's reports."""

from sitelens import reports
from sitelens.edge.http import Request, Response, api_handler, listed
from sitelens.reports.inputs import ReportListQuery


@api_handler
def handler(request: Request) -> Response:
    query = ReportListQuery.parse(request.query)
    return listed(request, reports.list_page(request.account.id, query))
