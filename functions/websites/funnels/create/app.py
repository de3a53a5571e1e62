"""POST /api/v1/websites/{id}/funnels: a new saved funnel (a name and 2 to 8 goal ids)."""

from sitelens.edge.http import Request, Response, api_handler, ok
from sitelens.websites import funnels
from sitelens.websites.funnels.inputs import FunnelCreate


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    fields = FunnelCreate.parse(request.form())
    return ok(funnels.create(request.account.id, website_id, fields), status=201)
