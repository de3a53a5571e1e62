"""DELETE /api/v1/websites/{id}/imports/{import_id}: remove an import and its rows."""

from sitelens.analytics.imports import jobs as imports
from sitelens.edge.http import Request, Response, api_handler, deleted


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    import_id = request.record_id("import_id")
    imports.delete(request.account.id, website_id, import_id)
    return deleted(import_id, "import")
