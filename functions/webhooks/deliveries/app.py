"""GET /api/v1/webhooks/{id}/deliveries: the endpoint's latest deliveries, newest first."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.webhooks import deliveries


@api_handler
def handler(request: Request) -> Response:
    return ok(deliveries.log(request.account.id, request.record_id()))
