"""GET, POST /api/v1/workspaces: an agency's per-client sub-accounts, each an account of
its own, listed under the agency (reached with `Sitelens-Workspace`, docs/teams.md)."""

from sitelens.accounts import workspaces
from sitelens.accounts.inputs import WorkspaceCreate
from sitelens.edge.http import Request, Response, api_handler, listed, ok
from sitelens.records.inputs import PageQuery


@api_handler
def handler(request: Request) -> Response:
    if request.method == "POST":
        fields = WorkspaceCreate.parse(request.form())
        return ok(workspaces.create(request.account, fields.name), 201)
    query = PageQuery.parse({"sort": "asc", **request.query})
    return listed(request, workspaces.list_page(request.account, query))
