"""GET /api/v1/websites/{id}/funnels/{funnel_id}: one saved funnel of a website."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites import funnels


@api_handler
def handler(request: Request) -> Response:
    funnel_id = request.record_id("funnel_id")
    return ok(funnels.get(request.account.id, request.record_id(), funnel_id))
