"""GET /api/v1/projects: the hosts the account has reports of, with their mean score; with
`format=csv`, all of them as a file."""

from sitelens import reports
from sitelens.edge.exports import csv_file
from sitelens.edge.http import Request, Response, api_handler, listed
from sitelens.reports.inputs import ProjectListQuery


@api_handler
def handler(request: Request) -> Response:
    query = ProjectListQuery.parse(request.query)
    if query.format == "csv":
        rows = reports.projects.every_row(request.account.id, query)
        return csv_file(
            ("project", "reports", "score", "created_at"), rows, "sitelens-projects.csv"
        )
    return listed(request, reports.projects.list_page(request.account.id, query))
