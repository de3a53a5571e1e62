"""PUT and PATCH /api/v1/webhooks/{id}: change an endpoint, pause it or enable it again."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.webhooks import endpoints
from sitelens.webhooks.inputs import EndpointUpdate


@api_handler
def handler(request: Request) -> Response:
    endpoint_id = request.record_id()
    fields = EndpointUpdate.parse(request.form())
    return ok(endpoints.update(request.account.id, endpoint_id, fields))
