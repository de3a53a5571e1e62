"""DELETE /api/v1/websites/{id}/funnels/{funnel_id}: remove a saved funnel."""

from sitelens.edge.http import Request, Response, api_handler, deleted
from sitelens.websites import funnels


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    funnel_id = request.record_id("funnel_id")
    funnels.delete(request.account.id, website_id, funnel_id)
    return deleted(funnel_id, "funnel")
