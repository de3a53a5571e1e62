"""POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver: send a delivery again
(202), with the same `webhook-id` and a fresh schedule of retries."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.webhooks import deliveries


@api_handler
def handler(request: Request) -> Response:
    endpoint_id = request.record_id()
    delivery_id = request.path_params.get("delivery_id", "")
    return ok(deliveries.redeliver(request.account.id, endpoint_id, delivery_id), status=202)
