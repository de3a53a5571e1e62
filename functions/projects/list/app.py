"""GET /api/v1/projects: the hosts the account has reports of, with their mean score."""

from sitelens import models, reports
from sitelens.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    query = models.ProjectListQuery.parse(request.query)
    return reports.list_projects(request.account.id, query).response(request)
