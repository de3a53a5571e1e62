"""POST /api/v1/webhooks/{id}/test: queue a `webhook.test` delivery to the endpoint (202)."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.webhooks import deliveries


@api_handler
def handler(request: Request) -> Response:
    return ok(deliveries.ping(request.account.id, request.record_id()), status=202)
