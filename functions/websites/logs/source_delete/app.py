"""DELETE /api/v1/websites/{id}/logs/source: stop pulling the website's access logs."""

from sitelens.analytics.crawls import pulls
from sitelens.edge.http import Request, Response, api_handler


@api_handler
def handler(request: Request) -> Response:
    website_id = request.record_id()
    pulls.disconnect(request.account.id, website_id)
    return Response(204)
