"""POST /api/v1/webhooks: a new endpoint; its signing secret is in this answer only."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.webhooks import endpoints
from sitelens.webhooks.inputs import EndpointCreate


@api_handler
def handler(request: Request) -> Response:
    fields = EndpointCreate.parse(request.form())
    return ok(endpoints.create(request.account.id, fields), status=201)
