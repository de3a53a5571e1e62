"""DELETE /api/v1/webhooks/{id}: delete an endpoint; nothing more is sent to it."""

from sitelens.edge.http import Request, Response, api_handler, deleted
from sitelens.webhooks import endpoints


@api_handler
def handler(request: Request) -> Response:
    endpoint_id = request.record_id()
    endpoints.delete(request.account.id, endpoint_id)
    return deleted(endpoint_id, "webhook")
