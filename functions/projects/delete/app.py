"""DELETE /api/v1/projects/{project}: delete a project and all of its reports."""

from sitelens import reports
from sitelens.edge.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    deletion = reports.projects.delete(request.account.id, request.path_params.get("project", ""))
    status = 200 if deletion.finished else 202
    body = {
        "id": deletion.project,
        "object": "project",
        "deleted": deletion.finished,
        "reports": deletion.reports,
        "status": status,
    }
    return Response(status, body)
