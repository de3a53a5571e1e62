"""GET /api/v1/projects: the hosts the account has reports of, with their mean score."""

from sitelens import reports
from sitelens.edge.http import Request, Response, api_handler, listed
from sitelens.reports.inputs import ProjectListQuery


@api_handler
def handler(request: Request) -> Response:
    query = ProjectListQuery.parse(request.query)
    return listed(request, reports.projects.list_page(request.account.id, query))
