"""PUT or PATCH /api/v1/websites/{id}/funnels/{funnel_id}: rename a funnel or change its steps."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites import funnels
from sitelens.websites.funnels.inputs import FunnelUpdate


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    funnel_id = request.record_id("funnel_id")
    fields = FunnelUpdate.parse(request.form())
    return ok(funnels.update(request.account.id, website_id, funnel_id, fields))
