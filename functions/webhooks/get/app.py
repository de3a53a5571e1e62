"""GET /api/v1/webhooks/{id}: one endpoint (never its secret)."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.webhooks import endpoints


@api_handler
def handler(request: Request) -> Response:
    return ok(endpoints.get(request.account.id, request.record_id()))
