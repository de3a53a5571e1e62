"""GET, POST /api/v1/workspaces: an agency's per-client sub-accounts, each an account of
its own, listed under the agency (reached with `Sitelens-Workspace`, docs/teams.md); and
GET /api/v1/usage: what the account and each of its workspaces used in a month."""

from sitelens.accounts import usage, workspaces
from sitelens.accounts.inputs import UsageQuery, WorkspaceCreate
from sitelens.edge.http import Request, Response, api_handler, listed, ok
from sitelens.records.inputs import PageQuery


@api_handler
def handler(request: Request) -> Response:
    if request.resource == "/api/v1/usage":
        month = UsageQuery.parse(request.query).month
        return ok(usage.of_month(request.account, month))
    if request.method == "POST":
        fields = WorkspaceCreate.parse(request.form())
        return ok(workspaces.create(request.account, fields.name), 201)
    query = PageQuery.parse({"sort": "asc", **request.query})
    return listed(request, workspaces.list_page(request.account, query))
