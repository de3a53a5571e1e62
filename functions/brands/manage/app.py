"""GET, PUT and DELETE /api/v1/projects/{project}/brand and /api/v1/account/brand: a
project's brand (or the account's, every project's fallback) on share pages, client emails
and PDFs; PUT replaces it whole and fetches a new logo URL once."""

from sitelens import brands
from sitelens.brands.inputs import BrandFields
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    account = request.account.id
    project = request.path_params.get("project")  # None: the account's brand
    if request.method == "PUT":
        fields = BrandFields.parse(request.form())
        return ok(brands.put(account, project, fields, request.base_url))
    if request.method == "DELETE":
        brands.delete(account, project)
        return Response(
            200, {"object": "brand", "project": project, "deleted": True, "status": 200}
        )
    return ok(brands.get(account, project, request.base_url))
