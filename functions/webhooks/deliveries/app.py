"""GET /api/v1/webhooks/{id}/deliveries: the endpoint's latest deliveries, newest first, by
pages."""

from sitelens.edge.http import Request, Response, api_handler, listed
from sitelens.records.inputs import PageQuery
from sitelens.webhooks import deliveries


@api_handler
def handler(request: Request) -> Response:
    query = PageQuery.parse(request.query)
    return listed(request, deliveries.log(request.account.id, request.record_id(), query))
