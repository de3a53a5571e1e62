"""GET /api/v1/reports: one page of the account's reports; with `format=csv`, all of them
as a file."""

from sitelens import reports
from sitelens.edge.exports import csv_file
from sitelens.edge.http import Request, Response, api_handler, listed
from sitelens.reports.inputs import ReportListQuery

# The report's own fields; its checks are summed up as their keys that failed.
COLUMNS = (
    "id",
    "url",
    "project",
    "result",
    "score",
    "failed_checks",
    "privacy",
    "password",
    "generated_at",
    "created_at",
    "updated_at",
)


@api_handler
def handler(request: Request) -> Response:
    query = ReportListQuery.parse(request.query)
    if query.format == "csv":
        rows = (
            {**report, "failed_checks": reports.failed_checks(report)}
            for report in reports.every_record(request.account.id, query, request.base_url)
        )
        return csv_file(COLUMNS, rows, "sitelens-reports.csv")
    return listed(request, reports.list_page(request.account.id, query, request.base_url))
