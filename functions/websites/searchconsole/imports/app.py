"""POST /api/v1/websites/{id}/search-console/imports: import the website's Search Console
rows now (queued; GET .../search-console shows its progress)."""

from sitelens.analytics.searchconsole import connections
from sitelens.edge.http import Request, Response, api_handler, ok


@api_handler
def handler(request: Request) -> Response:
    shown = connections.import_now(request.account.id, request.record_id())
    return ok(shown, status=202)
